/**
 * `replace` tables: rows of a run wait in `_replace__<table>` (committed page by page, so a
 * paused run keeps them) and replace the table's contents when the run finishes `done`.
 * The swap builds a new table and renames it over the old one inside the caller's transaction.
 *
 * Assumed: a replace table belongs to one pipeline; the swap installs exactly the rows that
 * pipeline staged (every run since its last `done`), last row per primary key winning.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import type { TableSpec } from "../normalize/Table.js"
import { ident, rowsOf } from "./Database.js"
import { lastPerKey } from "./PageStager.js"
import { createTableSql, replaceTableOf } from "./TableDdl.js"

export const swapReplaceTables = async (
  conn: DuckDBConnection,
  pipeline: string,
  specOf: (table: string) => TableSpec,
  options: { readonly discard?: boolean } = {}
): Promise<ReadonlyArray<string>> => {
  const pending = await rowsOf(conn, `SELECT table_name FROM _replace_pending WHERE pipeline = ? ORDER BY table_name`, [pipeline])
  const tables = pending.map((p) => String(p.table_name))
  for (const table of tables) {
    const spec = specOf(table)
    const side = ident(replaceTableOf(table))
    if (!options.discard) {
      const cols = spec.columns.map((c) => ident(c.name)).join(", ")
      const source = `SELECT ${cols}, _ord FROM ${side} WHERE _pipeline = ?`
      const rows = spec.primaryKey.length > 0 ? lastPerKey(spec, source, "_ord") : `${source} ORDER BY _ord`
      const swap = `${table}__swap`
      await conn.run(`DROP TABLE IF EXISTS ${ident(swap)}`)
      await conn.run(createTableSql(spec, swap))
      await conn.run(`INSERT INTO ${ident(swap)} (${cols}) SELECT ${cols} FROM (${rows})`, [pipeline])
      await conn.run(`DROP TABLE ${ident(table)}`)
      await conn.run(`ALTER TABLE ${ident(swap)} RENAME TO ${ident(table)}`)
    }
    await conn.run(`DELETE FROM ${side} WHERE _pipeline = ?`, [pipeline])
  }
  await conn.run(`DELETE FROM _replace_pending WHERE pipeline = ?`, [pipeline])
  return tables
}
