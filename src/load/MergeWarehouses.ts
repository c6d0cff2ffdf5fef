/**
 * Merging shards: warehouses filled by `--shard i/n` runs are folded into one target through
 * DuckDB `ATTACH` (read-only). Tables are created or evolved in the target from each source's
 * `_tables` registry; rows of keyed tables replace the target's rows with the same key (a later
 * source wins), rows of append tables are added per run (a run already present is skipped), versions of
 * history tables are folded together per key (`mergeHistorySql`); `_runs`, `_ledger`, `_raw_pages` and the
 * run records keyed by run (`_slices`, `_missing`, `_calls`: what `status`, `report` and `trace` read) are
 * concatenated (ids already present are kept), `_rejects` appended, `_history_members` added to, and a checkpoint is taken
 * from a source only when it is newer than the target's.
 *
 * Assumed: rows staged for unfinished `replace` runs are not carried over (finish those runs first).
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { TableSpec } from "../normalize/Table.js"
import { ident, inTransaction, isOpenInProcess, literal, rowsOf } from "./Database.js"
import { mergeHistorySql } from "./HistoryTable.js"
import { deleteKeysSql } from "./PageStager.js"
import { registeredSpecs } from "./TableDdl.js"
import { makeWarehouse, type WarehouseOptions } from "./Warehouse.js"
import { openError, WarehouseError } from "./WarehouseError.js"

export interface MergeSummary {
  readonly sources: number
  /** Row counts of the target's tables after the merge. */
  readonly tables: Record<string, number>
}

const attach = async (conn: DuckDBConnection, path: string, alias: string) => {
  try {
    await conn.run(`ATTACH ${literal(path)} AS ${ident(alias)} (READ_ONLY)`)
  } catch (cause) {
    throw openError(path, cause)
  }
  const meta = await rowsOf(conn, `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = ? AND table_name = '_meta'`, [alias])
  if (Number(meta[0]!.n) === 0) {
    throw new WarehouseError({
      reason: "Foreign",
      path,
      detail: `${path} is not a warehouse of this toolkit (no _meta table); it cannot be merged`
    })
  }
}

const sourceColumns = async (conn: DuckDBConnection, alias: string, table: string) =>
  new Set(
    (
      await rowsOf(conn, `SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' AND table_name = ?`, [
        alias,
        table
      ])
    ).map((r) => String(r.column_name))
  )

const copyTable = async (conn: DuckDBConnection, alias: string, spec: TableSpec) => {
  const have = await sourceColumns(conn, alias, spec.name)
  if (have.size === 0) return
  const own = spec.disposition === "append" ? ["_run_id", "_extracted_at"] : []
  const present = [...spec.columns.map((c) => c.name), ...own].filter((c) => have.has(c))
  const cols = present.map(ident).join(", ")
  const from = `${ident(alias)}.main.${ident(spec.name)}`
  if (spec.disposition === "history") {
    for (const sql of mergeHistorySql(spec, from, present)) await conn.run(sql)
    return
  }
  if (spec.primaryKey.length > 0) await conn.run(deleteKeysSql(spec, ident(spec.name), `SELECT ${cols} FROM ${from}`))
  // Append rows come per run: a run already in the target is not added twice (merging is repeatable).
  const onlyNewRuns =
    spec.disposition === "append" && have.has("_run_id")
      ? ` WHERE _run_id NOT IN (SELECT DISTINCT _run_id FROM ${ident(spec.name)} WHERE _run_id IS NOT NULL)`
      : ""
  await conn.run(`INSERT INTO ${ident(spec.name)} (${cols}) SELECT ${cols} FROM ${from}${onlyNewRuns}`)
}

/** The columns of `table` both the shard and the target have, by name (a shard of an older format lacks some). */
const sharedColumns = async (conn: DuckDBConnection, alias: string, table: string) => {
  const have = await sourceColumns(conn, alias, table)
  const own = await rowsOf(
    conn,
    `SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ? ORDER BY column_index`,
    [table]
  )
  return own
    .map((r) => String(r.column_name))
    .filter((c) => have.has(c))
    .map(ident)
    .join(", ")
}

const copyBookkeeping = async (conn: DuckDBConnection, alias: string) => {
  const src = (t: string) => `${ident(alias)}.main.${t}`
  const byName = async (table: string) => {
    const cols = await sharedColumns(conn, alias, table)
    return `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM ${src(table)}`
  }
  // _runs and _ledger gained columns in format 4: copied by name, so a format 3 shard merges too
  await conn.run(`${await byName("_runs")} ON CONFLICT DO NOTHING`)
  await conn.run(`${await byName("_ledger")} ON CONFLICT DO NOTHING`)
  await conn.run(`INSERT INTO _raw_pages SELECT * FROM ${src("_raw_pages")} ON CONFLICT DO NOTHING`)
  await conn.run(`INSERT INTO _rejects SELECT * FROM ${src("_rejects")}`)
  await conn.run(
    `INSERT INTO _checkpoints SELECT * FROM ${src("_checkpoints")} ON CONFLICT (pipeline, key) DO UPDATE SET
       run_id = EXCLUDED.run_id, value = EXCLUDED.value, done = EXCLUDED.done, updated_at = EXCLUDED.updated_at
     WHERE EXCLUDED.updated_at > _checkpoints.updated_at`
  )
  // which slice listed which history keys (`HistoryClosing.ts`): the target's next complete full
  // pull closes by them (a shard warehouse older than them has none)
  if (await hasTable(conn, alias, "_history_members"))
    await conn.run(
      `INSERT INTO _history_members SELECT pipeline, scope, slice, table_name, "key" FROM ${src("_history_members")}
       EXCEPT SELECT pipeline, scope, slice, table_name, "key" FROM _history_members`
    )
  // each run's slices, unknown keys and calls, by name (a shard older than one of them has none)
  for (const table of RUN_RECORDS) if (await hasTable(conn, alias, table)) await conn.run(`${await byName(table)} ON CONFLICT DO NOTHING`)
}

/** Run records keyed by (run, ...): copied from a shard like `_runs`, a row already present kept. */
const RUN_RECORDS = ["_slices", "_missing", "_calls"] as const

const hasTable = async (conn: DuckDBConnection, alias: string, table: string) => {
  const found = await rowsOf(
    conn,
    `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main' AND table_name = ?`,
    [alias, table]
  )
  return Number(found[0]?.n ?? 0) > 0
}

/** Folds the `sources` warehouses into `target` (created if missing), in order. */
export const mergeWarehouses = (target: string, sources: ReadonlyArray<string>, options: Omit<WarehouseOptions, "path"> = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ ...options, path: target, rawDir: false })
      for (const [i, source] of sources.entries()) {
        const path = nodePath.resolve(source)
        if (path === wh.path)
          return yield* Effect.fail(new WarehouseError({ reason: "Sql", path, detail: `Cannot merge ${path} into itself` }))
        if (!fs.existsSync(path))
          return yield* Effect.fail(new WarehouseError({ reason: "Io", path, detail: `Shard warehouse ${path} does not exist` }))
        if (isOpenInProcess(path)) {
          return yield* Effect.fail(
            new WarehouseError({
              reason: "Locked",
              path,
              detail: `Shard warehouse ${path} is open in this process; close it before merging`
            })
          )
        }
        const alias = `shard_${i}`
        const specs = yield* wh.withConnection(`Cannot attach ${path}`, async (conn) => {
          await attach(conn, path, alias)
          return registeredSpecs(conn, alias)
        })
        yield* wh.ensureTables(specs).pipe(
          Effect.zipRight(
            wh.withConnection(`Cannot merge ${path}`, (conn) =>
              inTransaction(conn, async () => {
                for (const spec of specs) await copyTable(conn, alias, spec)
                await copyBookkeeping(conn, alias)
              })
            )
          ),
          Effect.ensuring(wh.withConnection("detach", (conn) => conn.run(`DETACH ${ident(alias)}`)).pipe(Effect.ignore))
        )
      }
      return { sources: sources.length, tables: yield* wh.tableCounts() } satisfies MergeSummary
    })
  ).pipe(Effect.withSpan("Warehouse.merge"))
