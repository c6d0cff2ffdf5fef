/**
 * The runner: one pipeline run from start to its run record, in four steps (`run/`): start
 * (resume an unfinished run with its parameters, or start one; refuse a plan over the unit cap),
 * fetch (a resumed run first lands its journal's pages; then the slices fetch, journal the paid
 * pages and queue them), land (side by side with fetching: up to 32 queued pages a warehouse
 * transaction) and finish (completeness, the run record, the summary).
 */
import { Effect, Either } from "effect"
import { RetryBudget } from "../service/RetryBudget.js"
import type { ExitCode } from "../shared/ErrorClass.js"
import type { Pipeline } from "./Pipeline.js"
import type { Plan } from "./Planner.js"
import type { LandingGroups } from "./LandingPolicy.js"
import type { Totals } from "./Progress.js"
import { fetchAndLand } from "./run/Fetch.js"
import { finishRun } from "./run/Finish.js"
import { makeRunState, type RunContext } from "./run/RunContext.js"
import { startRun } from "./run/Start.js"
import { paidAnswersOf } from "./run/Reuse.js"
import { PaidAnswers } from "../service/PaidAnswers.js"
import { DEFAULT_PAGING_POLICY, PagingPolicy } from "../extract/PagingPolicy.js"

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
  /** Landing groups (`duckdb.groupPages`, `duckdb.groupWaitMs`) over `DEFAULT_LANDING_POLICY`: the run's `LandingPolicy`. */
  readonly landing?: LandingGroups | undefined
  /** Unit costs by operation (settings over defaults). */
  readonly costs: Readonly<Record<string, number>>
  /**
   * The user asked for a sample in so many words (`--sample`, `sample: true`): a slice a cap
   * (`maxPages`) cut short is reported as a cap; otherwise it is a shortfall (exit 6).
   */
  readonly sample?: boolean | undefined
  /** Buy every paid answer again, reusing nothing archived (`--fresh`). */
  readonly fresh?: boolean | undefined
  /** How long a paid answer stays reusable, ms (`budget.reuseWithin`; 0: never reuse). */
  readonly reuseWithinMs?: number | undefined
  /** Paid pages a slice may read again to repair a list that shifted (`budget.paidRereads`). */
  readonly paidRereads?: number | undefined
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
  /**
   * A complete full pull: every slice read to the service's end, nothing incremental, no cap
   * (`run/Finish.ts` `isFullPull`). Without a shard it closed what it no longer sees.
   */
  readonly fullPull?: boolean | undefined
  /** History rows this run closed per table: records its complete full pull no longer saw (`load/HistoryClosing.ts`). */
  readonly closed?: Readonly<Record<string, number>> | undefined
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
  /** One line per slice cut by a cap the user set in a sample run, or by the unit cap (reported). */
  readonly caps: ReadonlyArray<string>
  /**
   * One line per slice an incremental read ended on data landed before (`caught-up`: reported,
   * not a failure; the records it did not read again are in the warehouse from earlier runs).
   */
  readonly caughtUp: ReadonlyArray<string>
}

/**
 * One pipeline run, as four steps over a shared `RunState` (a `Ref`): start (resume or start,
 * `run/Start.ts`), fetch and land side by side (`run/Fetch.ts`, `run/Land.ts`), finish
 * (`run/Finish.ts`).
 */
export const runPipeline = <P>(request: RunRequest<P>) =>
  Effect.gen(function* () {
    const { context, pagesBefore } = yield* startRun(request)
    yield* Effect.annotateCurrentSpan({ "run.id": context.runId, "run.resumed": context.resumed, "plan.units": context.plan.units })
    const state = yield* makeRunState({
      pageNo: pagesBefore,
      totals: {
        pages: 0,
        records: 0,
        rows: 0,
        rejects: 0,
        units: 0,
        requests: 0,
        retries: 0,
        throttled: 0,
        elapsedMs: 0,
        expectedPages: context.plan.pages
      }
    })
    yield* context.progress.emit({
      type: "run_started",
      pipeline: context.pipeline.name,
      runId: context.runId,
      resumed: context.resumed,
      slices: context.plan.slices,
      planned: { requests: context.plan.requests, pages: context.plan.pages, units: context.plan.units, exact: context.plan.exact }
    })
    const answers = yield* paidAnswersOf({
      warehouse: context.warehouse,
      host: context.pipeline.host,
      fresh: request.fresh,
      reuseWithinMs: request.reuseWithinMs
    })
    const outcome = yield* Effect.either(
      fetchAndLand(context as RunContext, state).pipe(
        Effect.provideService(PaidAnswers, answers),
        Effect.provideService(PagingPolicy, { paidRereads: request.paidRereads ?? DEFAULT_PAGING_POLICY.paidRereads })
      )
    )
    const summary = yield* finishRun(context as RunContext, state, Either.isLeft(outcome) ? outcome.left : undefined)
    yield* Effect.annotateCurrentSpan({
      "run.status": summary.status,
      "run.exit_code": summary.exitCode,
      "run.pages": summary.totals.pages,
      "run.rows": summary.totals.rows,
      "run.units": summary.totals.units,
      "run.eur": summary.eur,
      "run.requests": summary.totals.requests,
      "run.retries": summary.totals.retries
    })
    return summary
  }).pipe(Effect.scoped, Effect.withSpan("Runner.run", { attributes: { pipeline: request.pipeline.name } }))

export { paramsDiff } from "./run/Start.js"

/** A one-line message of any error (kept here for the CLI and library). */
export { messageOf } from "../shared/ErrorClass.js"
