/**
 * What the warehouse remembers about a pipeline, and how to make it forget: the resumable state
 * behind `estate-etl state show | state reset` and `estate-etl drop`.
 *
 * A pipeline's state is its checkpoints (`_checkpoints`: one position per slice; an incremental
 * slice's position holds its watermark), the rows staged for its `replace` tables
 * (`_replace_pending`) and its last run (`_runs`). Its history (`_runs`, `_ledger`, `_slices`,
 * `_missing`, `_rejects`, `_raw_pages`) is never forgotten: the ledger is what the daily cap
 * counts, and the raw pages are what `reload` re-lands at no cost.
 *
 * Forgetting is done on the caller's open warehouse, which holds the file lock: a run holding the
 * warehouse makes the open fail (`WarehouseError` reason `Locked`) before anything is read.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { Effect } from "effect"
import { ident, inTransaction, rowsOf } from "./Database.js"
import { type CheckpointRecord, type RunRecord, toCheckpointRecord, toRunRecord } from "./PageCommit.js"
import { replaceTableOf } from "./TableDdl.js"
import type { TableReadsApi } from "./TableReads.js"
import type { WarehouseError } from "./WarehouseError.js"

/** One slice's checkpoint. */
export interface SliceState extends CheckpointRecord {
  /** An incremental slice's watermark (the newest record time landed), when its position has one. */
  readonly watermark?: string | undefined
}

/** A table a pipeline lands: its rows now (all of them, whoever landed them); `null` when it does not exist. */
export interface TableState {
  readonly name: string
  readonly rows: number | null
  /** Other pipelines whose runs recorded rows landed into this table (evidence from `_runs.rows_per_table`). */
  readonly sharedWith: ReadonlyArray<string>
}

export interface PipelineState {
  readonly pipeline: string
  readonly lastRun: RunRecord | undefined
  readonly slices: ReadonlyArray<SliceState>
  readonly tables: ReadonlyArray<TableState>
}

/**
 * Run statuses a next run would resume (see `pipeline/run/Start.ts`); `incomplete` resumes only
 * a slice whose checkpoint is unfinished, so forgetting the checkpoints is enough for it.
 */
const RESUMABLE = ["running", "paused", "interrupted"]

const watermarkOf = (value: unknown): string | undefined => {
  const w = (value as { watermark?: unknown } | null)?.watermark
  return typeof w === "string" ? w : undefined
}

const existingTables = async (conn: DuckDBConnection): Promise<ReadonlySet<string>> =>
  new Set(
    (await rowsOf(conn, `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary`)).map((r) =>
      String(r.table_name)
    )
  )

/** Pipelines other than `pipeline` whose runs landed rows into each of `tables`. */
const landersOf = async (conn: DuckDBConnection, pipeline: string, tables: ReadonlyArray<string>) => {
  const runs = await rowsOf(conn, `SELECT pipeline, rows_per_table FROM _runs WHERE pipeline <> ?`, [pipeline])
  const out = new Map<string, Set<string>>(tables.map((t) => [t, new Set()]))
  for (const r of runs) {
    const counts = JSON.parse(String(r.rows_per_table ?? "{}")) as Record<string, number>
    for (const t of tables) if ((counts[t] ?? 0) > 0) out.get(t)!.add(String(r.pipeline))
  }
  return out
}

const stateOf = async (conn: DuckDBConnection, pipeline: string, tables: ReadonlyArray<string>): Promise<PipelineState> => {
  const last = await rowsOf(conn, `SELECT * FROM _runs WHERE pipeline = ? ORDER BY started_at DESC, run_id DESC LIMIT 1`, [pipeline])
  const slices = (await rowsOf(conn, `SELECT * FROM _checkpoints WHERE pipeline = ? ORDER BY key`, [pipeline])).map((r) => {
    const c = toCheckpointRecord(r)
    return { ...c, watermark: watermarkOf(c.value) }
  })
  // tables the declaration does not name but its runs landed into (a pipeline not in the catalogue)
  const landed = last.length === 0 ? [] : Object.keys(toRunRecord(last[0]!).rowsPerTable)
  const names = [...new Set([...tables, ...(tables.length === 0 ? landed : [])])]
  const exists = await existingTables(conn)
  const landers = await landersOf(conn, pipeline, names)
  const tableStates: Array<TableState> = []
  for (const name of names) {
    const rows = exists.has(name) ? Number((await rowsOf(conn, `SELECT count(*) AS n FROM ${ident(name)}`))[0]!.n) : null
    tableStates.push({ name, rows, sharedWith: [...landers.get(name)!].sort() })
  }
  return { pipeline, lastRun: last[0] ? toRunRecord(last[0]) : undefined, slices, tables: tableStates }
}

/** The last run of a pipeline that kept raw pages (what `reload` re-lands by default), with how many. */
export interface ArchivedRun {
  readonly runId: string
  readonly pages: number
}

/** `pipeline`'s last run with pages in the raw archive (`_raw_pages`), if any. */
export const lastArchivedRun = (w: TableReadsApi, pipeline: string): Effect.Effect<ArchivedRun | undefined, WarehouseError> =>
  w.withConnection(`Cannot read the raw pages of ${pipeline}`, async (conn) => {
    const rows = await rowsOf(
      conn,
      `SELECT run_id, count(*) AS pages FROM _raw_pages WHERE pipeline = ? GROUP BY run_id ORDER BY max("at") DESC LIMIT 1`,
      [pipeline]
    )
    return rows[0] ? { runId: String(rows[0].run_id), pages: Number(rows[0].pages) } : undefined
  })

/** The pipelines this warehouse holds runs or checkpoints of, by name. */
export const pipelinesWithState = (w: TableReadsApi): Effect.Effect<ReadonlyArray<string>, WarehouseError> =>
  w.withConnection("Cannot read the pipelines' state", async (conn) =>
    (await rowsOf(conn, `SELECT pipeline FROM _runs UNION SELECT pipeline FROM _checkpoints ORDER BY 1`)).map((r) => String(r.pipeline))
  )

/** The state of `pipeline`; `tables` are the tables its declaration lands (none: those its last run landed). */
export const readPipelineState = Effect.fn("PipelineState.read")(function* (
  w: TableReadsApi,
  pipeline: string,
  tables: ReadonlyArray<string>
) {
  return yield* w.withConnection(`Cannot read the state of ${pipeline}`, (conn) => stateOf(conn, pipeline, tables))
})

/** Marks the pipeline's last run, when a next run would resume it, as failed: a failed run is not resumed. */
const abandonLastRun = async (conn: DuckDBConnection, pipeline: string, why: string): Promise<string | undefined> => {
  const last = await rowsOf(conn, `SELECT run_id, status FROM _runs WHERE pipeline = ? ORDER BY started_at DESC, run_id DESC LIMIT 1`, [
    pipeline
  ])
  const run = last[0]
  if (run === undefined || !RESUMABLE.includes(String(run.status))) return undefined
  await conn.run(
    `UPDATE _runs SET status = 'failed', finished_at = coalesce(finished_at, CAST(now() AS TIMESTAMP)), error = ? WHERE run_id = ?`,
    [`abandoned (was ${String(run.status)}): ${why}`, String(run.run_id)]
  )
  return String(run.run_id)
}

/**
 * Drops the rows `pipeline` staged for its `replace` tables (they replace the table only when its
 * run finishes `done`; see `ReplaceSwap.ts`, whose discard this is).
 */
const discardStaged = async (conn: DuckDBConnection, pipeline: string) => {
  const exists = await existingTables(conn)
  for (const r of await rowsOf(conn, `SELECT table_name FROM _replace_pending WHERE pipeline = ?`, [pipeline])) {
    const side = replaceTableOf(String(r.table_name))
    if (exists.has(side)) await conn.run(`DELETE FROM ${ident(side)} WHERE _pipeline = ?`, [pipeline])
  }
  await conn.run(`DELETE FROM _replace_pending WHERE pipeline = ?`, [pipeline])
}

export interface ResetResult {
  /** Checkpoints forgotten. */
  readonly forgotten: number
  /** The unfinished run that will not be resumed (full reset only). */
  readonly abandonedRun: string | undefined
}

/**
 * Forgets checkpoints of `pipeline`, keeping every landed row, in one transaction.
 *
 * - All of them (`slices` undefined): the checkpoints, the rows staged for its `replace` tables,
 *   and its unfinished last run (marked `failed`, "abandoned"): the next run starts afresh with
 *   the parameters it is given, and incremental slices start again from their `since`.
 * - Only `slices`: those slices start from their beginning at the next run (within the resumed
 *   run when the last one is unfinished, or the incremental slice's watermark is forgotten);
 *   the other slices keep their place.
 */
export const resetPipelineState = Effect.fn("PipelineState.reset")(function* (
  w: TableReadsApi,
  pipeline: string,
  slices?: ReadonlyArray<string>
) {
  return yield* w.withConnection(`Cannot reset the state of ${pipeline}`, (conn) =>
    inTransaction(conn, async (): Promise<ResetResult> => {
      if (slices !== undefined) {
        let forgotten = 0
        for (const key of slices) {
          const n = await rowsOf(conn, `DELETE FROM _checkpoints WHERE pipeline = ? AND key = ? RETURNING key`, [pipeline, key])
          forgotten += n.length
        }
        return { forgotten, abandonedRun: undefined }
      }
      const forgotten = (await rowsOf(conn, `DELETE FROM _checkpoints WHERE pipeline = ? RETURNING key`, [pipeline])).length
      await discardStaged(conn, pipeline)
      return { forgotten, abandonedRun: await abandonLastRun(conn, pipeline, "its state was reset") }
    })
  )
})

export interface DropResult {
  readonly dropped: ReadonlyArray<string>
  /** Tables kept because another pipeline landed rows into them. */
  readonly kept: ReadonlyArray<TableState>
  readonly forgotten: number
  readonly abandonedRun: string | undefined
}

/**
 * Which of `state.tables` a drop removes: those no other pipeline landed rows into. A table
 * another pipeline fills (`alerts` by `alerts-search` or the webhook loader, `properties` by
 * `properties-search`...) is kept whole: its rows cannot be told apart by pipeline.
 */
export const droppable = (
  state: PipelineState
): { readonly drop: ReadonlyArray<TableState>; readonly keep: ReadonlyArray<TableState> } => ({
  drop: state.tables.filter((t) => t.sharedWith.length === 0),
  keep: state.tables.filter((t) => t.sharedWith.length > 0)
})

/**
 * Drops `pipeline`'s own tables (see `droppable`; with their `replace` side tables and registry
 * rows) and forgets its state as a full reset does, in one transaction. Decided on the state read
 * inside the same transaction, so it drops what `droppable` shows for the warehouse as it is.
 */
export const dropPipeline = Effect.fn("PipelineState.drop")(function* (w: TableReadsApi, pipeline: string, tables: ReadonlyArray<string>) {
  return yield* w.withConnection(`Cannot drop ${pipeline}`, (conn) =>
    inTransaction(conn, async (): Promise<DropResult> => {
      const { drop, keep } = droppable(await stateOf(conn, pipeline, tables))
      await discardStaged(conn, pipeline)
      const exists = await existingTables(conn)
      for (const t of drop) {
        await conn.run(`DROP TABLE IF EXISTS ${ident(t.name)}`)
        if (exists.has(replaceTableOf(t.name))) await conn.run(`DROP TABLE ${ident(replaceTableOf(t.name))}`)
        await conn.run(`DELETE FROM _tables WHERE table_name = ?`, [t.name])
      }
      const forgotten = (await rowsOf(conn, `DELETE FROM _checkpoints WHERE pipeline = ? RETURNING key`, [pipeline])).length
      const abandonedRun = await abandonLastRun(conn, pipeline, "its tables were dropped")
      return { dropped: drop.filter((t) => t.rows !== null).map((t) => t.name), kept: keep, forgotten, abandonedRun }
    })
  )
})
