/**
 * Landing a group of pages of one run in the open transaction, with a fixed number of statements
 * whatever the group's size: per table the landing statements over the rows the group staged
 * (`Stage.ts`; in page order, so the last duplicate still wins), then one statement each for
 * checkpoints (the last position per key), ledger, rejects, raw pages and the run's counters.
 *
 * Why literals and not parameters: DuckDB prepares a parameterised statement on every call
 * (about 3 ms each, measured; about 0.5 ms for the same statement with literals), and this is the
 * hot path of every run (docs/BENCHMARKS.md). The inserts of many rows (checkpoints, ledger,
 * rejects, raw pages, slices, calls, slice keys, missing keys) carry them as one JSON literal
 * (`BookkeepingRows.ts`): DuckDB binds every value of a `VALUES` list on its own. A single value
 * goes through `sqlValue`. Both quote strings and refuse a number that is not finite.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { literal, rowsOf } from "./Database.js"
import { attemptsOf, checkpointOf, ledgerOf, rawBodyOf, type SliceProgress, sliceProgressOf, type StagedPage } from "./PageCommit.js"
import type { Checkpoint } from "../extract/Page.js"
import type { Charge } from "../extract/Source.js"
import { castedSelect, landSql } from "./PageStager.js"
import { closable, historyKeysSql } from "./HistoryClosing.js"
import type { StagedTable } from "./Stage.js"
import { WarehouseError } from "./WarehouseError.js"
import { type Cell, notFinite } from "./JsonRows.js"
import {
  CALL_COLUMNS,
  CHECKPOINT_COLUMNS,
  insertInto,
  mergeInto,
  LEDGER_COLUMNS,
  MISSING_COLUMNS,
  RAW_PAGE_COLUMNS,
  REJECT_COLUMNS,
  SLICE_COLUMNS,
  SLICE_KEY_COLUMNS
} from "./BookkeepingRows.js"

/** Rows landed by one commit, per table (input rows, duplicates included). */
export type PageSummary = Record<string, number>

/** Where a page's raw body was archived, numbered within its run. */
export interface ArchivedRaw {
  readonly seq: number
  readonly path: string
  readonly bytes: number
}

/** A SQL literal of a bookkeeping value. */
export const sqlValue = (v: string | number | boolean | null | undefined): string => {
  if (v === null || v === undefined) return "NULL"
  if (typeof v === "string") return literal(v)
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE"
  if (Number.isFinite(v)) return String(v)
  throw notFinite(v)
}

/** Key hashes (`SeenKeys.keyHash`, below 2^53) as the hex of their little-endian doubles. */
const hashesHex = (keys: ArrayLike<number>): string => {
  const hashes = keys instanceof Float64Array ? keys : Float64Array.from(keys)
  return Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength).toString("hex")
}

/** A run's counters as a group starts landing (read once per group, inside its commit lock). */
export type RunCounters = Awaited<ReturnType<typeof readRun>>

/** The run's pipeline, pages so far and rows per table. */
export const readRun = async (conn: DuckDBConnection, runId: string) => {
  const r = await rowsOf(conn, `SELECT pipeline, pages, rows_per_table FROM _runs WHERE run_id = ${literal(runId)}`)
  if (r.length === 0) throw new WarehouseError({ reason: "Sql", runId, detail: `Run ${runId} was not started (call startRun first)` })
  return {
    pipeline: String(r[0]!.pipeline),
    pages: Number(r[0]!.pages),
    rowsPerTable: JSON.parse(String(r[0]!.rows_per_table)) as Record<string, number>
  }
}

/**
 * A run's charges into `_ledger`. A charge is a (run, request id): the same id in another run is
 * another charge. Within a run a repeated id is the same charge landed again, recorded once; the
 * caller adds the units returned (what the ledger took) to the run's `units_charged`, so the two
 * always agree.
 */
export const mergeCharges = async (
  conn: DuckDBConnection,
  runId: string,
  pipeline: string,
  charges: ReadonlyArray<Charge>
): Promise<number> => {
  const ledger = [...new Map(charges.map((l) => [l.requestId, l])).values()]
  if (ledger.length === 0) return 0
  const rows = ledger.map((l) => [l.requestId, runId, pipeline, l.operation, l.units, l.at, l.remaining ?? null])
  const inserted = await rowsOf(conn, mergeInto("_ledger", LEDGER_COLUMNS, rows, ["run_id", "request_id"], { returning: "units" }))
  let units = 0
  for (const r of inserted) units += Number(r.units)
  return units
}

/**
 * Lands `pages` (all of run `runId`, whose counters are `run`; their rows staged in `tables`) in
 * the caller's transaction; `raws[i]` is where the body of `pages[i]` was archived, if it was.
 * Returns each page's rows per table.
 */
export const landGroup = async (
  conn: DuckDBConnection,
  runId: string,
  run: RunCounters,
  pages: ReadonlyArray<StagedPage>,
  tables: ReadonlyMap<string, StagedTable>,
  raws: ReadonlyArray<ArchivedRaw | undefined>,
  at: string
): Promise<Array<PageSummary>> => {
  const rowsPerTable = run.rowsPerTable // updated in place: the next group of the same run in this commit goes on from it
  const pipeline = pages[0]!.pipeline
  // versions of history tables begin at the run's extraction time (the commit time without one)
  const validFrom = pages[0]!.extractedAt ?? at
  // what each page adds to its slice's record (the history keys, `_slices` and `_slice_keys` read it)
  const progress = new Map(pages.map((p) => [p, sliceProgressOf(p)] as const))

  for (const [table, staged] of tables) {
    const { spec } = staged
    if (staged.rows > 0) {
      for (const sql of landSql(spec, { runId, pipeline, extractedAt: at, validFrom }, staged)) await conn.run(sql)
      // the keys each slice brought, for closing what a full pull no longer sees (HistoryClosing.ts)
      if (closable(spec)) {
        const sql = historyKeysSql(
          spec,
          castedSelect(spec, staged.name),
          runId,
          pages.map((p) => ({ slice: progress.get(p)?.key, rows: p.counts[table] ?? 0 }))
        )
        if (sql !== undefined) await conn.run(sql)
      }
    }
    if (spec.disposition === "replace") {
      // not `ON CONFLICT DO NOTHING`: 10 against 4 ms of CPU a row on a freshly opened file (TableDdl.ts)
      await conn.run(
        `INSERT INTO _replace_pending SELECT ${sqlValue(pipeline)}, ${sqlValue(table)}
         WHERE NOT EXISTS (SELECT 1 FROM _replace_pending WHERE pipeline = ${sqlValue(pipeline)} AND table_name = ${sqlValue(table)})`
      )
    }
    rowsPerTable[table] = (rowsPerTable[table] ?? 0) + staged.rows
  }

  const checkpoints = new Map<string, Checkpoint>()
  for (const c of pages) {
    const cp = checkpointOf(c)
    if (cp) checkpoints.set(cp.key, cp)
  }
  if (checkpoints.size > 0) {
    const rows = [...checkpoints.values()].map((cp) => [pipeline, runId, cp.key, JSON.stringify(cp.value ?? null), cp.done, at])
    await conn.run(mergeInto("_checkpoints", CHECKPOINT_COLUMNS, rows, ["pipeline", "key"], { update: "all" }))
  }

  const units = await mergeCharges(conn, runId, pipeline, pages.flatMap(ledgerOf))

  const rejects = pages.flatMap((c) => c.rejects)
  if (rejects.length > 0) {
    await conn.run(
      insertInto(
        "_rejects",
        REJECT_COLUMNS,
        rejects.map((r) => [runId, pipeline, r.table, r.reason, r.raw, at])
      )
    )
  }

  const archived = pages.flatMap((c, i) => {
    const body = rawBodyOf(c)
    return raws[i] && body ? [{ raw: raws[i]!, pageKey: body.pageKey, request: body.request }] : []
  })
  if (archived.length > 0) {
    const rows = archived.map(({ raw, pageKey, request }) => [
      runId,
      pipeline,
      raw.seq,
      pageKey,
      raw.path,
      raw.bytes,
      at,
      request?.operation,
      request?.key,
      request?.boughtAt,
      request?.units
    ])
    await conn.run(mergeInto("_raw_pages", RAW_PAGE_COLUMNS, rows, ["run_id", "seq"], { update: "all" }))
  }

  type SliceTotals = Omit<SliceProgress, "key" | "fresh" | "freshKeys"> & { distinct: number; pages: number }
  const slices = new Map<string, SliceTotals>()
  for (const c of pages) {
    const slice = progress.get(c)
    if (!slice) continue
    const s = slices.get(slice.key) ?? {
      declared: undefined,
      received: 0,
      landed: 0,
      rejected: 0,
      distinct: 0,
      pages: 0,
      end: undefined,
      done: false
    }
    slices.set(slice.key, {
      declared: slice.declared ?? s.declared,
      received: s.received + slice.received,
      landed: s.landed + slice.landed,
      rejected: s.rejected + slice.rejected,
      // pages landed before distinct keys were counted (a journal of an older toolkit) count their records
      distinct: s.distinct + (slice.fresh ?? slice.received),
      pages: s.pages + 1,
      end: slice.end ?? s.end,
      done: slice.done
    })
  }
  if (slices.size > 0) {
    const rows = [...slices].map(([key, s]) => [
      runId,
      pipeline,
      key,
      s.declared,
      s.received,
      s.landed,
      s.rejected,
      s.pages,
      s.end?.kind,
      s.end?.detail,
      s.done,
      at,
      s.distinct
    ])
    await conn.run(
      mergeInto("_slices", SLICE_COLUMNS, rows, ["run_id", "slice"], {
        update: {
          declared: "coalesce(_s.declared, _slices.declared)",
          received: "_slices.received + _s.received",
          landed: "_slices.landed + _s.landed",
          rejected: "_slices.rejected + _s.rejected",
          pages: "_slices.pages + _s.pages",
          distinct_keys: "coalesce(_slices.distinct_keys, 0) + _s.distinct_keys",
          ended_by: "coalesce(_s.ended_by, _slices.ended_by)",
          end_detail: "coalesce(_s.end_detail, _slices.end_detail)",
          done: "_s.done",
          updated_at: "_s.updated_at"
        }
      })
    )
  }

  // each fetched page as a call of its slice (a page landed again from the journal keeps its first row)
  const calls = pages.flatMap((c) => (c.entry ? [c.entry] : []))
  if (calls.length > 0) {
    const rows = calls.map(({ seq, page }): Array<Cell> => {
      const { charges, operation, request } = page.fetched
      return [
        runId,
        pipeline,
        seq,
        page.slice,
        page.seq,
        operation ?? charges[0]?.operation ?? request?.operation,
        charges[0]?.requestId,
        page.attempts.requests,
        page.attempts.retries,
        charges.reduce((u, l) => u + l.units, 0),
        page.timing?.startedAt,
        page.timing?.ms
      ]
    })
    await conn.run(mergeInto("_calls", CALL_COLUMNS, rows, ["run_id", "seq"]))
  }

  // the keys each page brought its slice (a group lands once: its rows are appended once)
  const keyed = pages.flatMap((c) => {
    const slice = progress.get(c)
    return slice?.freshKeys && slice.freshKeys.length > 0 ? [{ slice: slice.key, keys: slice.freshKeys }] : []
  })
  if (keyed.length > 0) {
    await conn.run(
      insertInto(
        "_slice_keys",
        SLICE_KEY_COLUMNS,
        keyed.map((k) => [runId, k.slice, hashesHex(k.keys)])
      )
    )
  }

  // a key answered 404 twice in a group is one row, the last answer's (as the replace it was)
  const missing = [...new Map(calls.flatMap(({ page }) => (page.missing ? [[page.missing.key, page.missing] as const] : []))).values()]
  if (missing.length > 0) {
    const rows = missing.map((m) => [runId, pipeline, m.key, m.status, m.requestId, m.detail, at])
    await conn.run(mergeInto("_missing", MISSING_COLUMNS, rows, ["run_id", "key"], { update: "all" }))
  }

  const sum = (f: (c: StagedPage) => number) => pages.reduce((s, c) => s + f(c), 0)
  await conn.run(
    `UPDATE _runs SET pages = pages + ${sqlValue(pages.length)}, requests = requests + ${sqlValue(sum((c) => attemptsOf(c).requests))},
       retries = retries + ${sqlValue(sum((c) => attemptsOf(c).retries))}, units_charged = units_charged + ${sqlValue(units)},
       rows_per_table = ${sqlValue(JSON.stringify(rowsPerTable))} WHERE run_id = ${sqlValue(runId)}`
  )
  return pages.map((p) => ({ ...p.counts }))
}
