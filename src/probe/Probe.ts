/**
 * `probe`: first contact with a service. For each pipeline of the settings, the first request its
 * first slice would send (exactly that request: its answer is archived, so the first nightly
 * reuses it at 0 units instead of buying it again), and one more call when the answer carries a
 * next link (so the follow-on operation is seen too). Every exchange is recorded (status, the
 * answer's headers, its body) for `Verdicts.ts` to compare with what the toolkit assumes.
 *
 * Paid calls stay within the probe's unit cap (`CostGuard`): a pipeline whose first call would
 * cross it is not probed. Answers bought are committed like pages (ledger, raw archive with their
 * request) under the pseudo-pipeline `probe`, never as a run of the pipeline itself (its
 * checkpoints and incremental positions are untouched).
 */
import { Cause, Effect, Exit } from "effect"
import type { Fetched } from "../extract/Source.js"
import { Warehouse } from "../load/Warehouse.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { newRunId } from "../pipeline/RunId.js"
import { paidAnswersOf } from "../pipeline/run/Reuse.js"
import { type Exchange, Exchanges } from "../service/Exchanges.js"
import { PaidAnswers } from "../service/PaidAnswers.js"
import { messageOf } from "../shared/ErrorClass.js"

/** Slices of an unmetered pipeline the probe reads the first page of (a fan-out's slices may differ). */
const FREE_SLICES = 3

/** The pseudo-pipeline the probe's purchases are recorded under. */
export const PROBE_PIPELINE = "probe"

/** What probing one pipeline gave. */
export interface PipelineProbe {
  readonly pipeline: string
  readonly host: "platform" | "token"
  /** Every HTTP exchange it made, in order (a reused answer makes none). */
  readonly exchanges: ReadonlyArray<Exchange>
  /** The pages it got (records as the client read them). */
  readonly pages: ReadonlyArray<Fetched<unknown>>
  /** Why it stopped short, one line (a refused credential, a shape, the unit cap). */
  readonly error?: string | undefined
  /** The error's tag (`UnexpectedShape`, `AuthenticationFailed`, `BudgetExhausted`, ...). */
  readonly errorTag?: string | undefined
  /** Its answers came from the archive (bought within `budget.reuseWithin`): no headers seen again. */
  readonly reused: boolean
  /** Units the service charged. */
  readonly units: number
  /** The body of an answer that stopped the probe on its shape, and its operation. */
  readonly stop?: { readonly operation: string; readonly raw: string } | undefined
}

interface ShapeStop {
  readonly raw?: string
  readonly request?: Fetched<unknown>["request"]
  readonly unitsCharged?: number
  readonly requestId?: string
  readonly operation?: string
}

/** The first page of `pipeline`'s first slice, and one more when it carries a next link. */
export const probePipeline = <P>(pipeline: Pipeline<P>, params: P) =>
  Effect.gen(function* () {
    const exchanges: Array<Exchange> = []
    const pages: Array<Fetched<unknown>> = []
    const walk = Effect.gen(function* () {
      const slices = yield* pipeline.source.slices(params)
      // the first slice of a paid pipeline; a few of a free one (its slices may read other operations)
      for (const slice of slices.slice(0, pipeline.host === "platform" ? 1 : FREE_SLICES)) {
        const first = yield* slice.pager.fetch(slice.pager.start(undefined))
        pages.push(first.fetched)
        if (!first.done && typeof first.fetched.next === "string") pages.push((yield* slice.pager.fetch(first.next)).fetched)
      }
    })
    const exit = yield* Effect.exit(walk.pipe(Effect.provideService(Exchanges, { record: (e) => void exchanges.push(e) })))
    const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    const units =
      pages.reduce((s, p) => s + p.units, 0) +
      (typeof (failure as ShapeStop | undefined)?.unitsCharged === "number" ? (failure as ShapeStop).unitsCharged! : 0)
    const result: PipelineProbe = {
      pipeline: pipeline.name,
      host: pipeline.host,
      exchanges,
      pages,
      reused: pages.length > 0 && pages.every((p) => p.request?.reused === true),
      units,
      ...(failure !== undefined ? { error: messageOf(failure), errorTag: (failure as { _tag?: string })._tag } : {}),
      ...((failure as ShapeStop | undefined)?.raw !== undefined && (failure as ShapeStop).operation !== undefined
        ? { stop: { operation: (failure as ShapeStop).operation!, raw: (failure as ShapeStop).raw! } }
        : {})
    }
    return { result, failure }
  })

/**
 * Probes `targets` in order with the run's reuse of paid answers, then commits what was bought:
 * each page's charge in the ledger and its body in the raw archive with its request, as a run of
 * the pseudo-pipeline `probe` (a body that stopped on its shape too, with its charge).
 */
export const probeAll = (
  targets: ReadonlyArray<{ readonly pipeline: Pipeline; readonly params: unknown }>,
  options: { readonly fresh: boolean; readonly reuseWithinMs: number }
) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const runId = newRunId(PROBE_PIPELINE)
    yield* warehouse.startRun({ runId, pipeline: PROBE_PIPELINE, params: { pipelines: targets.map((t) => t.pipeline.name) } })
    const results: Array<PipelineProbe> = []
    const commits = []
    for (const t of targets) {
      const answers = yield* paidAnswersOf({ warehouse, host: t.pipeline.host, ...options })
      const { result, failure } = yield* probePipeline(t.pipeline, t.params).pipe(Effect.provideService(PaidAnswers, answers))
      results.push(result)
      for (const page of result.pages) {
        if (page.request?.reused) continue
        commits.push({
          runId,
          pipeline: PROBE_PIPELINE,
          rows: new Map(),
          ledger: page.charges,
          rejects: [],
          requests: 1,
          retries: 0,
          ...(page.raw && t.pipeline.host === "platform"
            ? {
                raw: {
                  pageKey: `${t.pipeline.name}:${page.operation ?? ""}`,
                  body: page.raw,
                  ...(page.request ? { request: page.request } : {})
                }
              }
            : {})
        })
      }
      const stop = failure as ShapeStop | undefined
      if (stop?.raw !== undefined && stop.request !== undefined && !stop.request.reused) {
        const charged = stop.unitsCharged ?? 0
        commits.push({
          runId,
          pipeline: PROBE_PIPELINE,
          rows: new Map(),
          ledger:
            charged > 0
              ? [
                  {
                    requestId: stop.requestId ?? `unknown-${runId}-${t.pipeline.name}`,
                    operation: stop.operation ?? "unknown",
                    units: charged,
                    at: new Date().toISOString()
                  }
                ]
              : [],
          rejects: [],
          requests: 1,
          retries: 0,
          raw: { pageKey: `${t.pipeline.name}:unexpected-shape`, body: stop.raw, request: stop.request }
        })
      }
    }
    if (commits.length > 0) yield* warehouse.commitPages(commits)
    yield* warehouse.finishRun(runId, "done")
    return { runId, results }
  })
