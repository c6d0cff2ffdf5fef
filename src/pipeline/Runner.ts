/**
 * The runner: one pipeline run from start to its run record. It resumes an unfinished run from
 * its checkpoints with the same parameters, checks the plan against the unit cap, streams pages
 * from the extract interpreter, normalises each and commits it (rows, checkpoint, ledger,
 * rejects, raw body) in one warehouse transaction, and records how the run ended.
 */
import { Effect, Either, Option, Schema } from "effect"
import { extractInto, type Page } from "../extract/Extract.js"
import { makeNormalizer } from "../normalize/Normalizer.js"
import { Warehouse } from "../load/Warehouse.js"
import { RetryBudget } from "../service/RetryBudget.js"
import { BudgetExhausted } from "../service/ServiceError.js"
import type { PageContext, Pipeline } from "./Pipeline.js"
import { makeGroupCommitter } from "./GroupCommit.js"
import { planPipeline, type Plan } from "./Planner.js"
import { Progress, type Totals } from "./Progress.js"
import { encodeParams, paramError } from "./Params.js"
import { ExitCode, exitCodeOf, RunFailed, statusOf } from "./RunError.js"

export interface RunRequest<P = unknown> {
  readonly pipeline: Pipeline<P>
  /** Decoded parameters (ignored when an unfinished run is resumed: it keeps its own). */
  readonly params: P
  readonly fullRefresh: boolean
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
  readonly status: "done" | "paused" | "failed"
  readonly resumed: boolean
  readonly plan: Plan
  readonly totals: Totals
  readonly rowsPerTable: Record<string, number>
  readonly eur: number
  readonly error?: string | undefined
  readonly exitCode: ExitCode
}

const EUR_PER_UNIT = 0.04

const newRunId = (pipeline: string) =>
  `${new Date().toISOString().replace(/[-:.TZ]/g, "").slice(0, 14)}-${pipeline}-${Math.random().toString(36).slice(2, 8)}`

export const runPipeline = <P>(request: RunRequest<P>) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const budget = yield* RetryBudget
    const progress = yield* Progress
    const pipeline = request.pipeline
    yield* warehouse.ensureTables(pipeline.tables)

    const last = yield* warehouse.lastRun(pipeline.name)
    const unfinished = Option.filter(last, (r) => r.status !== "done")
    const resumed = !request.fullRefresh && Option.isSome(unfinished)
    if (request.fullRefresh) yield* warehouse.clearCheckpoints(pipeline.name)

    const params: P = resumed
      ? yield* Schema.decodeUnknown(pipeline.params)(Option.getOrThrow(unfinished).params).pipe(
        Effect.mapError((e) => paramError(pipeline.name, e))
      )
      : request.params

    const plan = yield* planPipeline(pipeline, params, request.costs)
    if (!resumed && !request.untilCap && plan.units > request.maxUnits) {
      return yield* Effect.fail(new BudgetExhausted({
        reason: "UnitCap",
        operation: `${pipeline.name} plan`,
        limit: request.maxUnits,
        used: 0,
        wanted: plan.units
      }))
    }

    const runId = resumed ? Option.getOrThrow(unfinished).runId : newRunId(pipeline.name)
    yield* warehouse.startRun({
      runId,
      pipeline: pipeline.name,
      params: encodeParams(pipeline, params),
      unitsPlanned: plan.units
    })
    const positions = new Map((yield* warehouse.checkpoints(pipeline.name)).map((c) => [c.key, c] as const))
    const normalize = makeNormalizer(pipeline.records)
    const extractedAt = new Date().toISOString()
    const archive = pipeline.archiveRaw ?? pipeline.host === "platform"
    const started = Date.now()
    const before = yield* budget.stats
    let seen = { requests: before.requests, retries: before.retries }
    const rowsPerTable: Record<string, number> = {}
    let pageNo = Option.match(unfinished, { onNone: () => 0, onSome: (r) => (resumed ? r.pages : 0) })
    const totals = { pages: 0, records: 0, rows: 0, rejects: 0, units: 0, requests: 0, retries: 0, elapsedMs: 0, expectedPages: plan.pages }

    const committer = yield* makeGroupCommitter(warehouse.commitPages)
    const commit = (page: Page) =>
      Effect.gen(function* () {
        const ctx: PageContext = { runId, slice: page.slice, extractedAt }
        const normalized = normalize(page.fetched.records, ctx)
        const stats = yield* budget.stats
        const requests = stats.requests - seen.requests
        const retries = stats.retries - seen.retries
        seen = { requests: stats.requests, retries: stats.retries }
        const pageKey = String(pageNo++)
        yield* committer.submit({
          runId,
          pipeline: pipeline.name,
          rows: normalized.rows,
          checkpoint: page.checkpoint,
          ledger: page.fetched.charges,
          rejects: normalized.rejects,
          ...(archive && page.fetched.raw ? { raw: { pageKey, body: page.fetched.raw } } : {}),
          requests,
          retries
        })
        let rows = 0
        for (const [t, list] of normalized.rows) {
          rowsPerTable[t] = (rowsPerTable[t] ?? 0) + list.length
          rows += list.length
        }
        totals.pages++
        totals.records += normalized.records
        totals.rows += rows
        totals.rejects += normalized.rejects.length
        totals.units += page.fetched.units
        totals.requests += requests
        totals.retries += retries
        totals.elapsedMs = Date.now() - started
        yield* progress.emit({
          type: "page_committed", pipeline: pipeline.name, runId, slice: page.slice, seq: page.seq,
          records: normalized.records, rows, rejects: normalized.rejects.length, units: page.fetched.units, totals: { ...totals }
        })
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
    // commit-then-fetch per slice: a crash loses at most one paid page per slice in flight;
    // pages of concurrent slices land together (group commit); unmetered sources fetch one page
    // ahead while the previous one is committed
    const outcome = yield* extractInto(
      pipeline.source,
      params,
      { mode: resumed ? "resume" : "fresh", positions, shard: request.shard },
      commit,
      { prefetch: pipeline.host === "token" }
    ).pipe(Effect.zipRight(Effect.suspend(checkRejects)), Effect.either)

    const error = Either.isLeft(outcome) ? outcome.left : undefined
    const status = error === undefined ? "done" : statusOf(error)
    const message = error === undefined ? undefined : messageOf(error)
    totals.elapsedMs = Date.now() - started
    const eur = Math.round(totals.units * EUR_PER_UNIT * 100) / 100
    yield* warehouse.updateRun(runId, { eur })
    yield* warehouse.finishRun(runId, status, message)
    yield* progress.emit({ type: "run_finished", pipeline: pipeline.name, runId, status, totals: { ...totals }, error: message })
    const summary: RunSummary = {
      pipeline: pipeline.name, runId, status, resumed, plan, totals: { ...totals }, rowsPerTable,
      eur,
      error: message,
      exitCode: error === undefined ? ExitCode.Done : exitCodeOf(error)
    }
    return summary
  })

/** A one-line message of any error, never a stack trace. */
export const messageOf = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message).split("\n")[0]!
    : String(error)
