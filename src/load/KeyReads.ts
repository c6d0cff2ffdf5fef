/**
 * Keys of a fan-out read from a table of the warehouse: the distinct non-null values of one
 * column, optionally narrowed to some rows (`KeyFilter`): rows whose columns equal given values
 * (the `_missing` rows of one pipeline), and rows stamped after the start of a pipeline's last
 * done run (what a change-driven refresh has not seen yet).
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import type { KeyFilter } from "../extract/Sources.js"
import { ident, rowsOf } from "./Database.js"

/** Whether `table` exists in the warehouse's main schema. */
export const tableExists = async (conn: DuckDBConnection, table: string): Promise<boolean> => {
  const found = await rowsOf(
    conn,
    `SELECT count(*) AS n FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = ?`,
    [table]
  )
  return Number(found[0]?.n ?? 0) > 0
}

/**
 * The distinct non-null values of `table.column` as text, ordered, of the rows `filter` keeps;
 * `undefined` when the warehouse has no such table yet.
 */
export const readKeys = async (
  conn: DuckDBConnection,
  table: string,
  column: string,
  filter: KeyFilter = {}
): Promise<ReadonlyArray<string> | undefined> => {
  if (!(await tableExists(conn, table))) return undefined
  const where = [`${ident(column)} IS NOT NULL`]
  const params: Array<string> = []
  for (const [col, value] of Object.entries(filter.equals ?? {})) {
    where.push(`CAST(${ident(col)} AS VARCHAR) = ?`)
    params.push(value)
  }
  if (filter.since !== undefined) {
    const last = `(SELECT max(started_at) FROM _runs WHERE pipeline = ? AND status = 'done')`
    where.push(`(${last} IS NULL OR ${ident(filter.since.column)} > ${last})`)
    params.push(filter.since.lastDoneRunOf, filter.since.lastDoneRunOf)
  }
  const rows = await rowsOf(
    conn,
    `SELECT DISTINCT CAST(${ident(column)} AS VARCHAR) AS k FROM ${ident(table)} WHERE ${where.join(" AND ")} ORDER BY 1`,
    params
  )
  return rows.map((r) => String(r.k))
}
