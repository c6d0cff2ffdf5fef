/**
 * The runner: one pipeline run from start to its run record. It resumes an unfinished run (its
 * parameters, then the pages its journal holds, then its checkpoints), checks the plan against
 * the unit cap, and runs two fibers side by side: the slices fetch pages, journal the paid ones
 * and queue them; the loader normalises what is queued and lands it, up to 32 pages a warehouse
 * transaction (rows, checkpoints, ledger, rejects, raw bodies). Then it records how the run ended.
 */
import { Effect, Either, Option, Schema } from "effect"
import { extractInto, type Page } from "../extract/Extract.js"
import { makeNormalizer } from "../normalize/Normalizer.js"
import type { JournalEntry } from "../load/PageJournal.js"
import { Warehouse } from "../load/Warehouse.js"
import { WarehouseError } from "../load/WarehouseError.js"
import { RetryBudget } from "../service/RetryBudget.js"
import { eurOf } from "../service/CostGuard.js"
import { UnexpectedShape } from "../service/ServiceError.js"
import type { PageContext, Pipeline } from "./Pipeline.js"
import { DEFAULT_PAGE_QUEUE, makePageQueue } from "./PageQueue.js"
import { makePlanRefiner, planPipeline, type Plan } from "./Planner.js"
import { Progress, type Totals } from "./Progress.js"
import { encodeParams, paramError } from "./Params.js"
import { ExitCode, exitCodeOf, messageOf, statusOf } from "../shared/ErrorClass.js"
import { InvalidInput, RunFailed, RunInterrupted } from "./RunError.js"
import { newRunId } from "./RunId.js"
import { Shutdown } from "./Shutdown.js"

export interface RunRequest<P = unknown> {
  readonly pipeline: Pipeline<P>
  /** Decoded parameters (ignored when an unfinished run is resumed: it keeps its own). */
  readonly params: P
  /** Drop the checkpoints and start over (also what `resume: "restart"` does). */
  readonly fullRefresh: boolean
  /**
   * What to do with an unfinished run whose parameters differ from the requested ones: `auto`
   * (default) refuses with the difference; `resume` goes on with the saved parameters; `restart`
   * drops its checkpoints and starts with the new ones.
   */
  readonly resume?: "auto" | "resume" | "restart" | undefined
  /** Units this run may spend. */
  readonly maxUnits: number
  /** Start even when the plan exceeds `maxUnits`, and stop (paused) at the cap. */
  readonly untilCap: boolean
  readonly shard?: { readonly index: number; readonly count: number } | undefined
  readonly maxRejectRatio: number
  /** Unit costs by operation (settings over defaults). */
  readonly costs: Readonly<Record<string, number>>
}

export interface RunSummary {
  readonly pipeline: string
  readonly runId: string
  readonly status: "done" | "paused" | "failed" | "incomplete" | "interrupted"
  readonly resumed: boolean
  readonly plan: Plan
  /**
   * The plan as the run refined it: a slice whose first page said how many records it holds
   * counts the pages that makes, the others keep the plan's bound (`exact` once every slice told).
   */
  readonly expected: { readonly pages: number; readonly units: number; readonly exact: boolean }
  readonly totals: Totals
  readonly rowsPerTable: Record<string, number>
  readonly eur: number
  readonly error?: string | undefined
  readonly exitCode: ExitCode
  /** Completeness over the run's slices: what the service declared (where it did) against what came and landed. */
  readonly completeness: Completeness
}

/** What a run's slices add up to, and the lines that name what fell short or was capped. */
export interface Completeness {
  /** Records the service declared, over the slices that declared a count. */
  readonly declared: number
  readonly received: number
  readonly landed: number
  readonly rejected: number
  /** Fan-out keys the service did not know (`_missing`). */
  readonly missing: number
  /** One line per slice whose landed plus rejected records fall short of what was declared, or that stalled or hit a service limit. */
  readonly shortfalls: ReadonlyArray<string>
  /** One line per slice cut by a cap the user set (reported, not a failure). */
  readonly caps: ReadonlyArray<string>
}

/** A journal step as an effect (its only failure is a `WarehouseError` of reason `Io`). */
const journalIo = <A>(f: () => A) =>
  Effect.try({ try: f, catch: (e) => (e instanceof WarehouseError ? e : new WarehouseError({ reason: "Io", detail: `Page journal: ${String(e)}` })) })

export const runPipeline = <P>(request: RunRequest<P>) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const budget = yield* RetryBudget
    const progress = yield* Progress
    const shutdown = yield* Effect.serviceOption(Shutdown)
    const pipeline = request.pipeline
    yield* warehouse.ensureTables(pipeline.tables)

    const last = yield* warehouse.lastRun(pipeline.name)
    // an incomplete run resumes only where a slice stopped short of its end (a stalled slice);
    // one whose slices all ended has nothing a resume could add: the next run starts afresh
    const open = Option.isSome(last) && last.value.status === "incomplete"
      ? (yield* warehouse.checkpoints(pipeline.name)).some((c) => !c.done && c.runId === last.value.runId)
      : true
    // a run that failed on a non-resumable error (the request, a reject ratio) does not stick
    const unfinished = Option.filter(last, (r) => r.status !== "done" && r.status !== "failed" && open)
    const restart = request.fullRefresh || request.resume === "restart"
    if (!restart && request.resume !== "resume" && Option.isSome(unfinished)) {
      const diff = paramsDiff(unfinished.value.params, encodeParams(pipeline, request.params))
      if (diff.length > 0) {
        return yield* new InvalidInput({
          field: `${pipeline.name}.params`,
          detail: `the unfinished run ${unfinished.value.runId} (${unfinished.value.status}) has other parameters (${diff.join("; ")}); ` +
            `--resume goes on with its saved parameters, --restart drops its checkpoints and starts with the new ones`
        })
      }
    }
    const resumed = !restart && Option.isSome(unfinished)
    if (restart) yield* warehouse.clearCheckpoints(pipeline.name)

    const params: P = resumed
      ? yield* Schema.decodeUnknown(pipeline.params)(Option.getOrThrow(unfinished).params).pipe(
        Effect.mapError((e) => paramError(pipeline.name, e))
      )
      : request.params

    const plan = yield* planPipeline(pipeline, params, request.costs)
    if (!resumed && !request.untilCap && plan.units > request.maxUnits) {
      // refused before anything is sent: bad input (exit 2), not a paused run
      return yield* new InvalidInput({
        field: "--max-units",
        detail: `${pipeline.name} plans ${plan.units} units, above the cap of ${request.maxUnits}; raise --max-units (budget.maxUnits) or pass --until-cap to stop at the cap`
      })
    }

    const runId = resumed ? Option.getOrThrow(unfinished).runId : newRunId(pipeline.name)
    // paid pages are journaled before their slice fetches on (see PageJournal.ts)
    const journal = pipeline.host === "platform" ? warehouse.journal : undefined
    if (journal && !resumed) yield* journalIo(() => journal.discard(pipeline.name))
    yield* warehouse.startRun({
      runId,
      pipeline: pipeline.name,
      params: encodeParams(pipeline, params),
      unitsPlanned: plan.units
    })
    const normalize = makeNormalizer(pipeline.records)
    const extractedAt = new Date().toISOString()
    const archive = pipeline.archiveRaw ?? pipeline.host === "platform"
    const started = Date.now()
    const before = yield* budget.stats
    let seen = { requests: before.requests, retries: before.retries }
    const rowsPerTable: Record<string, number> = {}
    let pageNo = Option.match(unfinished, { onNone: () => 0, onSome: (r) => (resumed ? r.pages : 0) })
    const totals = { pages: 0, records: 0, rows: 0, rejects: 0, units: 0, requests: 0, retries: 0, elapsedMs: 0, expectedPages: plan.pages }
    const writer = journal?.open(pipeline.name, runId)
    const refine = makePlanRefiner(plan)

    /** Lands a group of pages in one transaction, then counts and reports them. */
    const land = (entries: ReadonlyArray<JournalEntry>) =>
      Effect.gen(function* () {
        const normalized = entries.map((e) => normalize(e.records, { runId, slice: e.slice, extractedAt } satisfies PageContext))
        yield* warehouse.commitPages(entries.map((e, i) => ({
          runId,
          pipeline: pipeline.name,
          rows: normalized[i]!.rows,
          checkpoint: e.checkpoint,
          ledger: e.ledger,
          rejects: normalized[i]!.rejects,
          raw: e.raw,
          requests: e.requests,
          retries: e.retries,
          slice: {
            key: e.slice,
            declared: e.declared,
            received: e.missing ? 0 : e.records.length,
            landed: e.missing ? 0 : normalized[i]!.records - normalized[i]!.rejects.length,
            rejected: e.missing ? 0 : normalized[i]!.rejects.length,
            end: e.end,
            done: e.checkpoint.done || e.end !== undefined
          },
          missing: e.missing
        })))
        if (writer) yield* journalIo(() => writer.committed(entries[entries.length - 1]!.seq))
        for (const [i, e] of entries.entries()) {
          const n = normalized[i]!
          let rows = 0
          for (const [t, list] of n.rows) {
            rowsPerTable[t] = (rowsPerTable[t] ?? 0) + list.length
            rows += list.length
          }
          totals.pages++
          totals.records += n.records
          totals.rows += rows
          totals.rejects += n.rejects.length
          totals.units += e.units
          totals.requests += e.requests
          totals.retries += e.retries
          totals.elapsedMs = Date.now() - started
          yield* progress.emit({
            type: "page_committed", pipeline: pipeline.name, runId, slice: e.slice, seq: e.sliceSeq,
            records: n.records, rows, rejects: n.rejects.length, units: e.units, totals: { ...totals }
          })
        }
        // stop early once the sample is large enough to judge; the end of the run judges the rest
        if (totals.records >= 100) yield* checkRejects()
      })

    const checkRejects = () =>
      totals.records > 0 && totals.rejects / totals.records > request.maxRejectRatio
        ? Effect.fail(new RunFailed({
          reason: "RejectRatio", pipeline: pipeline.name, runId,
          detail: `${totals.rejects} of ${totals.records} records failed their schema (more than ${request.maxRejectRatio * 100}%); see _rejects`
        }))
        : Effect.void

    yield* progress.emit({
      type: "run_started", pipeline: pipeline.name, runId, resumed, slices: plan.slices,
      planned: { requests: plan.requests, pages: plan.pages, units: plan.units, exact: plan.exact }
    })

    const queue = yield* makePageQueue<JournalEntry>()
    let drained = false
    /** A fetched page goes to the journal and the queue at once; its slice fetches on when there is room. */
    const accept = (page: Page) =>
      Effect.gen(function* () {
        const stats = yield* budget.stats
        const requests = stats.requests - seen.requests
        const retries = stats.retries - seen.retries
        seen = { requests: stats.requests, retries: stats.retries }
        if (page.seq === 0 && refine.first(page.slice, page.fetched.total, page.fetched.records.length)) {
          totals.expectedPages = refine.expected().pages
        }
        yield* journalIo(() => {
          const seq = ++pageNo
          const entry: JournalEntry = {
            seq, slice: page.slice, sliceSeq: page.seq, records: page.fetched.records, checkpoint: page.checkpoint,
            ledger: page.fetched.charges, units: page.fetched.units, requests, retries,
            ...(archive && page.fetched.raw ? { raw: { pageKey: String(seq - 1), body: page.fetched.raw } } : {}),
            ...(page.declared !== undefined ? { declared: page.declared } : {}),
            ...(page.end ? { end: page.end } : {}),
            ...(page.missing ? { missing: page.missing } : {})
          }
          writer?.append(entry)
          queue.put(entry)
        })
        yield* queue.reserve
      })

    const outcome = yield* Effect.gen(function* () {
      // a resumed run first lands what its journal holds beyond the warehouse: paid, never refetched
      if (writer && resumed) {
        const replay = yield* journalIo(() => journal!.pending(pipeline.name, runId, pageNo))
        for (let i = 0; i < replay.length; i += DEFAULT_PAGE_QUEUE.maxGroup) yield* land(replay.slice(i, i + DEFAULT_PAGE_QUEUE.maxGroup))
        pageNo += replay.length
      }
      const positions = new Map((yield* warehouse.checkpoints(pipeline.name)).map((c) => [c.key, c] as const))
      const stop = Option.match(shutdown, {
        onNone: () => Effect.never,
        onSome: (s) => Effect.map(s.requested, (signal) => Either.left(new RunInterrupted({ signal })))
      })
      // a signal stops the fetching at once (the call in flight is lost, as the journal promises);
      // what is queued still lands
      const fetching = extractInto(
        pipeline.source,
        params,
        { mode: resumed ? "resume" : "fresh", positions, shard: request.shard },
        accept
      ).pipe(Effect.either, (f) => Effect.raceFirst(f, stop), Effect.tap(() => queue.close))
      // fetching and landing run side by side; a failed landing stops the fetching, a failed
      // fetch still lands every page queued before it
      const landing = queue.drain(land).pipe(Effect.tap(() => { drained = true }))
      const [fetched] = yield* Effect.all([fetching, landing], { concurrency: 2 })
      if (Either.isLeft(fetched)) return yield* Effect.fail(fetched.left)
      yield* checkRejects()
    }).pipe(Effect.either, Effect.ensuring(Effect.sync(() => writer?.close())))
    // once landing has drained the queue every journaled page is in the warehouse; otherwise the
    // journal keeps them for the resume
    if (writer && drained) yield* journalIo(() => writer.finish())

    const error = Either.isLeft(outcome) ? outcome.left : undefined
    // a paid page whose body had an unexpected shape: its charge in the ledger and its body in the
    // raw archive, so `reload` after a settings fix lands it at 0 units (only once every queued page
    // landed: the journal's page numbers must stay in step with `_runs.pages`)
    if (error instanceof UnexpectedShape && error.raw !== undefined && drained) {
      const charge = (error.unitsCharged ?? 0) > 0
        ? [{ requestId: error.requestId ?? `unknown-${Date.now()}`, operation: error.operation, units: error.unitsCharged!, at: new Date().toISOString() }]
        : []
      if (charge.length > 0 || archive) {
        yield* warehouse.commitPages([{
          runId, pipeline: pipeline.name, rows: new Map(), ledger: charge, rejects: [], requests: 0, retries: 0,
          ...(archive ? { raw: { pageKey: "unexpected-shape", body: error.raw } } : {})
        }])
        totals.units += error.unitsCharged ?? 0
      }
    }
    const completeness = yield* completenessOf(pipeline.name, runId)
    const status = error !== undefined ? statusOf(error) : completeness.shortfalls.length > 0 ? "incomplete" : "done"
    const message = error !== undefined
      ? messageOf(error)
      : completeness.shortfalls.length > 0
      ? `incomplete: ${completeness.shortfalls[0]}${completeness.shortfalls.length > 1 ? ` (and ${completeness.shortfalls.length - 1} more slices; see _slices)` : ""}`
      : undefined
    totals.elapsedMs = Date.now() - started
    const eur = eurOf(totals.units)
    yield* warehouse.updateRun(runId, { eur })
    yield* warehouse.finishRun(runId, status, message)
    yield* progress.emit({ type: "run_finished", pipeline: pipeline.name, runId, status, totals: { ...totals }, expected: refine.expected(), error: message })
    const summary: RunSummary = {
      pipeline: pipeline.name, runId, status, resumed, plan, expected: refine.expected(), totals: { ...totals }, rowsPerTable,
      eur,
      error: message,
      exitCode: error !== undefined ? exitCodeOf(error) : status === "incomplete" ? ExitCode.Incomplete : ExitCode.Done,
      completeness
    }
    return summary
  })

/**
 * The run's completeness from `_slices`: a slice falls short when the service declared more than
 * landed plus rejected and no cap the user set cut it, or when it stalled or hit a service limit.
 */
const completenessOf = (pipeline: string, runId: string) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const slices = yield* warehouse.slices(runId)
    const shortfalls: Array<string> = []
    const caps: Array<string> = []
    let declared = 0, received = 0, landed = 0, rejected = 0
    for (const s of slices) {
      declared += s.declared ?? 0
      received += s.received
      landed += s.landed
      rejected += s.rejected
      const numbers = `declared ${s.declared ?? "no count"}, received ${s.received}, landed ${s.landed}, rejected ${s.rejected}`
      const name = `${pipeline} slice ${s.slice}`
      if (s.endedBy === "cap") caps.push(`${name} capped by ${s.endDetail}: ${numbers}`)
      else if (s.endedBy === "stalled" || s.endedBy === "limit") shortfalls.push(`${name} stopped (${s.endDetail}): ${numbers}`)
      else if (s.done && s.declared !== null && s.landed + s.rejected < s.declared) shortfalls.push(`${name}: ${numbers}`)
    }
    const missing = yield* warehouse.missingCount(runId)
    return { declared, received, landed, rejected, missing, shortfalls, caps } satisfies Completeness
  })

/** The top-level parameters that differ, as `name: saved -> requested` (values cut short). */
export const paramsDiff = (saved: unknown, requested: unknown): Array<string> => {
  const a = (saved ?? {}) as Record<string, unknown>
  const b = (requested ?? {}) as Record<string, unknown>
  const canonical = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(canonical).join(",")}]`
      : typeof v === "object" && v !== null ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`
      : JSON.stringify(v) ?? "undefined"
  const show = (v: unknown) => (v === undefined ? "(unset)" : JSON.stringify(v).slice(0, 60))
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    .filter((k) => canonical(a[k]) !== canonical(b[k]))
    .map((k) => `${k}: ${show(a[k])} -> ${show(b[k])}`)
}

/** A one-line message of any error (kept here for the CLI and library). */
export { messageOf } from "../shared/ErrorClass.js"
