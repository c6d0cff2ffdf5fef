/**
 * What the warehouse remembers of runs, read back: runs and their slices, checkpoints, the ledger's
 * sums, the key hashes a resumed run needs, the last full pull and the paid answers a run may
 * reuse. Read by the runner, `plan`, `status`, `trace`, `state` and the report; nothing here writes.
 */
import { Effect, Option } from "effect"
import { TS } from "./Bookkeeping.js"
import { type Database, rowsOf } from "./Database.js"
import { readLastFullRead } from "./HistoryClosing.js"
import { readReusableAnswers } from "./PaidArchive.js"
import {
  type CheckpointRecord,
  type RawPageRecord,
  type RunRecord,
  type SliceRecord,
  toCheckpointRecord,
  toRunRecord
} from "./PageCommit.js"
import { readSliceKeys } from "./SliceKeys.js"
import type { WarehouseError } from "./WarehouseError.js"

const toSliceRecord = (r: Record<string, unknown>): SliceRecord => ({
  slice: String(r.slice),
  declared: r.declared === null ? null : Number(r.declared),
  received: Number(r.received),
  landed: Number(r.landed),
  rejected: Number(r.rejected),
  distinct: r.distinct_keys === null || r.distinct_keys === undefined ? null : Number(r.distinct_keys),
  pages: Number(r.pages),
  endedBy: r.ended_by === null ? null : (String(r.ended_by) as SliceRecord["endedBy"]),
  endDetail: r.end_detail === null ? null : String(r.end_detail),
  done: r.done === true
})

const toRawPageRecord = (r: Record<string, unknown>): RawPageRecord => ({
  runId: String(r.run_id),
  pipeline: String(r.pipeline),
  seq: Number(r.seq),
  pageKey: String(r.page_key),
  path: String(r.path),
  operation: r.operation === null || r.operation === undefined ? undefined : String(r.operation)
})

/**
 * `withMemory` wraps the reads that grow with a run (its slices' keys, the archived answers), which
 * a resumed run makes while DuckDB is held at the landing limit: one that does not fit is read
 * again with more memory (`LandingSettings.withMemoryToLand`).
 */
export const makeRunLog = (
  db: Database,
  withMemory: <A>(read: Effect.Effect<A, WarehouseError>) => Effect.Effect<A, WarehouseError> = (read) => read
) => {
  const read = <A>(what: string, sql: string, params: ReadonlyArray<string | number>, f: (rows: Array<Record<string, unknown>>) => A) =>
    Effect.map(
      db.use(what, (conn) => rowsOf(conn, sql, params)),
      f
    )

  return {
    runs: (limit = 20): Effect.Effect<Array<RunRecord>, WarehouseError> =>
      read("Cannot read runs", `SELECT * FROM _runs ORDER BY started_at DESC, run_id DESC LIMIT ?`, [limit], (rows) =>
        rows.map(toRunRecord)
      ),

    lastRun: (pipeline: string): Effect.Effect<Option.Option<RunRecord>, WarehouseError> =>
      read("Cannot read runs", `SELECT * FROM _runs WHERE pipeline = ? ORDER BY started_at DESC, run_id DESC LIMIT 1`, [pipeline], (rows) =>
        Option.map(Option.fromNullable(rows[0]), toRunRecord)
      ),

    checkpoints: (pipeline: string): Effect.Effect<Array<CheckpointRecord>, WarehouseError> =>
      read("Cannot read checkpoints", `SELECT * FROM _checkpoints WHERE pipeline = ? ORDER BY key`, [pipeline], (rows) =>
        rows.map(toCheckpointRecord)
      ),

    /** Units charged since an instant (ISO), over every run and pipeline: the daily cap's input. */
    unitsSpentSince: (iso: string): Effect.Effect<number, WarehouseError> =>
      read("Cannot sum the ledger", `SELECT coalesce(sum(units), 0) AS u FROM _ledger WHERE "at" >= ${TS("?")}`, [iso], (rows) =>
        Number(rows[0]!.u)
      ),

    /**
     * The median units of each operation's last `recent` charges (`_ledger`), by operation: what
     * the service charges, learned (plans prefer it to the assumed cost table).
     */
    observedCosts: (recent = 50): Effect.Effect<Record<string, { perRequest: number; charges: number }>, WarehouseError> =>
      read(
        "Cannot read the ledger",
        `SELECT operation, median(units)::DOUBLE AS m, count(*)::INTEGER AS n FROM (
           SELECT operation, units, row_number() OVER (PARTITION BY operation ORDER BY "at" DESC) AS r FROM _ledger
         ) WHERE r <= ? GROUP BY operation`,
        [recent],
        (rows) => Object.fromEntries(rows.map((r) => [String(r.operation), { perRequest: Number(r.m), charges: Number(r.n) }]))
      ),

    /** What each slice of a run was declared and landed (`_slices`), by slice key. */
    slices: (runId: string): Effect.Effect<Array<SliceRecord>, WarehouseError> =>
      read("Cannot read _slices", `SELECT * FROM _slices WHERE run_id = ? ORDER BY slice`, [runId], (rows) => rows.map(toSliceRecord)),

    /** Fan-out keys of a run the service answered 404 for. */
    missingCount: (runId: string): Effect.Effect<number, WarehouseError> =>
      read("Cannot read _missing", `SELECT count(*) AS n FROM _missing WHERE run_id = ?`, [runId], (rows) => Number(rows[0]!.n)),

    rawPages: (runId: string): Effect.Effect<Array<RawPageRecord>, WarehouseError> =>
      read("Cannot read _raw_pages", `SELECT * FROM _raw_pages WHERE run_id = ? ORDER BY seq`, [runId], (rows) =>
        rows.map(toRawPageRecord)
      ),

    /** The key hashes each slice of a run read (`SliceKeys.ts`), for a resumed run. */
    sliceKeys: (runId: string) => withMemory(db.use("Cannot read _slice_keys", (conn) => readSliceKeys(conn, runId))),

    /**
     * Pages per slice of `pipeline`'s last complete full pull that read each slice (`_full_pulls`;
     * see `HistoryClosing.readLastFullRead`): what `plan` prices a full pull at.
     */
    lastFullRead: (pipeline: string) => db.use("Cannot read the last full pull", (conn) => readLastFullRead(conn, pipeline)),

    /** Paid answers archived with their request since `sinceIso` (`service/PaidAnswers.ts`), newest first. */
    reusableAnswers: (sinceIso: string) => withMemory(db.use("Cannot read _raw_pages", (conn) => readReusableAnswers(conn, sinceIso)))
  } as const
}

/** What the warehouse remembers of runs (part of the `Warehouse` service). */
export type RunLogApi = ReturnType<typeof makeRunLog>
