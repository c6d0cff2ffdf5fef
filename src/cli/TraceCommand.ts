/**
 * `trace [pipeline] [--run <id>]`: what one run did, slice by slice (like `dlt pipeline trace`):
 * requests, retries, pages, units, time in calls and how each slice ended, then the slowest calls.
 * Read from the bookkeeping: `_runs` (the run), `_slices` (pages, declared, distinct, landed, how
 * it ended), `_calls` (each fetched page as a call of its slice: requests, retries, units, when it
 * began, its wall time), `_ledger` (the run's charges, the truth about units) and `_missing`.
 *
 * A call's time is the wall time of a page's fetch: every attempt, retry backoff and rate-limit
 * wait included (the service is not asked how long it took). Runs recorded before `_calls` existed
 * (or a warehouse never opened to write since) have pages and completeness per slice, no calls.
 *
 * Reads only, as `status` does: a run holding the warehouse is shown from its run-state file;
 * another holder is waited for (`--lock-wait`).
 */
import { Args, Command, Options } from "@effect/cli"
import { type LiveView, readOrShowLive } from "./ReadOrLive.js"
import { Effect, Either, Option } from "effect"
import { RunLog, TableReads } from "../load/Warehouse.js"
import { type RunRecord, toRunRecord } from "../load/PageCommit.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { configOption, warehouseOption } from "./CommonOptions.js"
import { eur, jsonSafe, table } from "./Format.js"
import { liveText } from "./LiveStatus.js"
import { lockWaitOption, parseLockWait } from "./LockWait.js"

/** One slice of the run: its calls (`_calls`) and its completeness (`_slices`). */
export interface TraceSlice {
  readonly slice: string
  /** Requests its pages sent (first attempts) and retries among them; null when the run has no calls recorded. */
  readonly requests: number | null
  readonly retries: number | null
  readonly pages: number
  readonly units: number | null
  /** Wall time of its calls added up, ms; from its first call's start to its last call's end, ms. */
  readonly callMs: number | null
  readonly spanMs: number | null
  readonly declared: number | null
  readonly distinct: number | null
  readonly landed: number | null
  readonly rejected: number | null
  /** done | running | unfinished (<run status>) | missing | cap | caught-up | limit | stalled | shifted */
  readonly ended: string
  readonly endDetail: string | null
}

/** One call (a page's fetch), slowest first. */
export interface TraceCall {
  readonly slice: string
  /** The page's number within its slice, 1-based. */
  readonly page: number
  readonly operation: string | null
  readonly requestId: string | null
  readonly requests: number
  readonly retries: number
  readonly units: number
  readonly startedAt: string | null
  readonly ms: number
}

export interface Trace {
  readonly run: RunRecord
  /** Whether the run's pages were recorded as calls (`_calls`): false for runs of older toolkits. */
  readonly callsRecorded: boolean
  /** The run's charges in the ledger; `unitsOutsideCalls`: ledger units no call of a slice accounts for. */
  readonly ledger: { readonly charges: number; readonly units: number; readonly unitsOutsideCalls: number }
  readonly slices: ReadonlyArray<TraceSlice>
  readonly slowest: ReadonlyArray<TraceCall>
}

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const s = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

/** How a slice ended, in a word. */
const endedOf = (r: Record<string, unknown>, missing: ReadonlySet<string>, run: RunRecord): string => {
  if (missing.has(String(r.slice))) return "missing"
  if (r.ended_by !== null && r.ended_by !== undefined) return String(r.ended_by)
  if (r.done === true) return "done"
  return run.status === "running" ? "running" : `unfinished (${run.status})`
}

/** The run to trace: `--run`, else the last run of `pipeline`, else the last run of any; none when nothing ran. */
const findRun = (pipeline: string | undefined, runId: string | undefined) =>
  Effect.gen(function* () {
    const w = yield* TableReads
    const log = yield* RunLog
    if (runId !== undefined) {
      const rows = yield* w.query(`SELECT * FROM _runs WHERE run_id = ?`, [runId])
      if (rows.length === 0) {
        const last = (yield* log.runs(1))[0]
        return yield* Effect.fail(
          new InvalidInput({
            field: "--run",
            detail: `no run ${JSON.stringify(runId)} in ${w.path}${last ? ` (the last run is ${last.runId}, ${last.pipeline}; status lists runs)` : " (no runs yet)"}`
          })
        )
      }
      const run = toRunRecord(rows[0]!)
      if (pipeline !== undefined && run.pipeline !== pipeline) {
        return yield* Effect.fail(
          new InvalidInput({ field: "--run", detail: `run ${runId} is a run of ${run.pipeline}, not of ${pipeline}` })
        )
      }
      return Option.some(run)
    }
    const rows =
      pipeline === undefined
        ? yield* w.query(`SELECT * FROM _runs ORDER BY started_at DESC, run_id DESC LIMIT 1`)
        : yield* w.query(`SELECT * FROM _runs WHERE pipeline = ? ORDER BY started_at DESC, run_id DESC LIMIT 1`, [pipeline])
    return rows.length === 0 ? Option.none<RunRecord>() : Option.some(toRunRecord(rows[0]!))
  })

/** The trace of `run` from the bookkeeping; `slowest` calls at most. */
export const readTrace = (run: RunRecord, slowest: number) =>
  Effect.gen(function* () {
    const w = yield* TableReads
    const id = run.runId
    // a warehouse last opened to write by an older toolkit has no `_calls` (read-only cannot add it)
    const hasCalls =
      Number(
        (yield* w.query(
          `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = '_calls'`
        ))[0]?.n ?? 0
      ) > 0
    const calls = hasCalls
      ? `SELECT slice, count(*) AS calls, sum(requests) AS requests, sum(retries) AS retries, sum(units) AS units, sum(ms) AS call_ms,
           max(epoch_ms(started_at) + ms) - min(epoch_ms(started_at)) AS span_ms FROM _calls WHERE run_id = ? GROUP BY slice`
      : `SELECT NULL::VARCHAR AS slice, NULL::BIGINT AS calls, NULL::BIGINT AS requests, NULL::BIGINT AS retries, NULL::DOUBLE AS units,
           NULL::DOUBLE AS call_ms, NULL::DOUBLE AS span_ms WHERE ? IS NULL`
    const rows = yield* w.query(
      `SELECT coalesce(s.slice, c.slice) AS slice, c.calls, c.requests, c.retries, c.units, c.call_ms, c.span_ms, s.declared,
         s.distinct_keys, s.landed, s.rejected, s.pages, s.ended_by, s.end_detail, s.done
       FROM (SELECT * FROM _slices WHERE run_id = ?) s FULL OUTER JOIN (${calls}) c ON s.slice = c.slice
       ORDER BY coalesce(s.slice, c.slice)`,
      [id, id]
    )
    const missing = new Set((yield* w.query(`SELECT "key" FROM _missing WHERE run_id = ?`, [id])).map((r) => String(r.key)))
    const ledger = (yield* w.query(`SELECT count(*) AS charges, coalesce(sum(units), 0) AS units FROM _ledger WHERE run_id = ?`, [id]))[0]!
    const callsRecorded = rows.some((r) => r.calls !== null && r.calls !== undefined)
    const slices: Array<TraceSlice> = rows.map((r) => ({
      slice: String(r.slice),
      requests: n(r.requests),
      retries: n(r.retries),
      pages: n(r.pages) ?? n(r.calls) ?? 0,
      units: n(r.units),
      callMs: n(r.call_ms),
      spanMs: n(r.span_ms),
      declared: n(r.declared),
      distinct: n(r.distinct_keys),
      landed: n(r.landed),
      rejected: n(r.rejected),
      ended: endedOf(r, missing, run),
      endDetail: s(r.end_detail)
    }))
    const slow = hasCalls
      ? (yield* w.query(
          `SELECT slice, slice_seq, operation, request_id, requests, retries, units, strftime(started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at, ms
           FROM _calls WHERE run_id = ? AND ms IS NOT NULL ORDER BY ms DESC, seq LIMIT ?`,
          [id, slowest]
        )).map((r): TraceCall => ({
          slice: String(r.slice),
          page: Number(r.slice_seq) + 1,
          operation: s(r.operation),
          requestId: s(r.request_id),
          requests: Number(r.requests),
          retries: Number(r.retries),
          units: Number(r.units),
          startedAt: s(r.started_at),
          ms: Number(r.ms)
        }))
      : []
    const ledgerUnits = Number(ledger.units)
    const callUnits = slices.reduce((t, x) => t + (x.units ?? 0), 0)
    return {
      run,
      callsRecorded,
      ledger: {
        charges: Number(ledger.charges),
        units: ledgerUnits,
        unitsOutsideCalls: callsRecorded ? ledgerUnits - callUnits : ledgerUnits
      },
      slices,
      slowest: slow
    } satisfies Trace
  })

const secs = (ms: number | null) => (ms === null ? "" : (ms / 1000).toFixed(2))

const durationOf = (run: RunRecord) =>
  run.finishedAt === null ? "not finished" : `${secs(Date.parse(run.finishedAt) - Date.parse(run.startedAt))} s`

/** The trace as text: a line on the run, a table of slices, the slowest calls, notes. */
export const traceText = (t: Trace): string => {
  const r = t.run
  const out = [
    `run ${r.runId} of ${r.pipeline}: ${r.status}, started ${r.startedAt}, ${durationOf(r)}; ${r.pages} pages, ${r.requests} requests (${r.retries} retries), ${r.unitsCharged} units (${eur(r.unitsCharged)})${r.error ? `; error: ${r.error}` : ""}`,
    "",
    t.slices.length === 0
      ? "(no slice landed a page in this run)"
      : table(
          t.slices.map((x) => ({
            slice: x.slice,
            requests: x.requests,
            retries: x.retries,
            pages: x.pages,
            units: x.units,
            "call s": secs(x.callMs),
            declared: x.declared,
            distinct: x.distinct,
            landed: x.landed,
            ended: x.ended
          }))
        )
  ]
  if (t.slowest.length > 0) {
    out.push(
      "",
      `slowest calls (a page's fetch, wall time: attempts, retry and rate-limit waits included):`,
      table(
        t.slowest.map((c) => ({
          ms: Math.round(c.ms),
          slice: c.slice,
          page: c.page,
          operation: c.operation ?? "",
          "request id": c.requestId ?? "",
          retries: c.retries,
          units: c.units,
          started: c.startedAt ?? ""
        }))
      )
    )
  }
  const notes: Array<string> = []
  if (!t.callsRecorded && r.pages > 0)
    notes.push(
      "this run's pages were not recorded as calls (_calls: a run of an older toolkit): requests, retries, units and time per slice are unknown"
    )
  if (t.callsRecorded && Math.abs(t.ledger.unitsOutsideCalls) > 1e-9)
    notes.push(
      `${t.ledger.unitsOutsideCalls} of the ledger's ${t.ledger.units} units are in no slice's calls (a paid page of an unexpected shape, kept apart)`
    )
  for (const x of t.slices) if (x.endDetail && x.ended !== "done") notes.push(`${x.slice}: ${x.ended}: ${x.endDetail}`)
  if (notes.length > 0) out.push("", ...notes.map((l) => `note: ${l}`))
  return out.join("\n") + "\n"
}

const printLive = (view: LiveView, asJson: boolean) =>
  Effect.sync(() =>
    process.stdout.write(
      asJson
        ? JSON.stringify({ running: true, run: view.state }, null, 2) + "\n"
        : `${liveText(view.state)}(a run holds the warehouse; trace reads it once the run ends: estate-etl status --watch follows it)\n`
    )
  )

const printTrace = (
  o: { readonly pipeline: string | undefined; readonly run: string | undefined; readonly json: boolean; readonly slowest: number },
  known: (name: string) => Effect.Effect<void, InvalidInput>
) =>
  Effect.gen(function* () {
    const w = yield* TableReads
    const found = yield* findRun(o.pipeline, o.run)
    if (Option.isNone(found)) {
      // a name that never ran here: a typo gets its did-you-mean, a known pipeline a plain line
      if (o.pipeline !== undefined) yield* known(o.pipeline)
      const what = o.pipeline === undefined ? "no runs" : `no runs of ${o.pipeline}`
      return process.stdout.write(o.json ? JSON.stringify({ run: null }) + "\n" : `${what} in ${w.path} yet\n`)
    }
    const trace = yield* readTrace(found.value, o.slowest)
    process.stdout.write(o.json ? JSON.stringify(trace, (_k, v) => jsonSafe(v), 2) + "\n" : traceText(trace))
  })

export const traceCommand = Command.make(
  "trace",
  {
    config: configOption,
    warehouse: warehouseOption,
    pipeline: Args.text({ name: "pipeline" }).pipe(Args.optional),
    run: Options.text("run").pipe(Options.optional, Options.withDescription("Run id to trace (default: the last run)")),
    slowest: Options.integer("slowest").pipe(
      Options.withDefault(5),
      Options.withDescription("How many of the slowest calls to list (default 5)")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("Print JSON instead of tables")),
    lockWait: lockWaitOption
  },
  (o) =>
    Effect.gen(function* () {
      const { settings, catalogue } = yield* loadCliSettingsAndCatalogue(o.config)
      const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
      const waitMs = yield* parseLockWait(o.lockWait)
      if (o.slowest < 0) return yield* Effect.fail(new InvalidInput({ field: "--slowest", detail: `must be 0 or more, got ${o.slowest}` }))
      const registry = makeRegistry(catalogue.all, settings)
      const known = (name: string) => Either.match(registry.get(name), { onLeft: Effect.fail, onRight: () => Effect.void })
      const args = { pipeline: Option.getOrUndefined(o.pipeline), run: Option.getOrUndefined(o.run), json: o.json, slowest: o.slowest }
      return yield* readOrShowLive(path, waitMs, printTrace(args, known), (view) => printLive(view, o.json))
    })
).pipe(
  Command.withDescription(
    "What a run did, slice by slice: requests, retries, pages, units, time in calls, how each slice ended, and the slowest calls (a call's time: a page's fetch, attempts and waits included); the last run of the pipeline (or of any), or --run <id>; reads only. Examples: estate-etl trace plots-germany; estate-etl trace --json"
  )
)
