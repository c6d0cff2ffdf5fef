/**
 * Step 1 of a run: resume or start. An unfinished run is resumed with its own parameters (other
 * requested ones are refused with the difference, unless `resume`/`restart` says which); a plan
 * over the unit cap is refused before anything is sent; the run record is written.
 */
import { Effect, Option, Schema } from "effect"
import { Warehouse } from "../../load/Warehouse.js"
import { journalIo, openWriter } from "../../load/PageJournal.js"
import { makeNormalizer } from "../../normalize/Normalizer.js"
import { encodeParams, paramError } from "../Params.js"
import { makePlanRefiner, planPipeline, toldPages } from "../Planner.js"
import { Progress } from "../Progress.js"
import { InvalidInput } from "../RunError.js"
import { newRunId } from "../RunId.js"
import { canonicalJson } from "../../shared/ExactJson.js"
import type { RunRequest } from "../Runner.js"
import type { RunContext } from "./RunContext.js"
import { landingPolicyOf } from "../LandingPolicy.js"

/**
 * The run of `pipeline` a next run resumes, if any: its last, unless done or failed (a run that
 * failed on a non-resumable error, the request or a reject ratio, does not stick). An incomplete
 * run resumes only where a slice stopped short of its end (a stalled slice); one whose slices all
 * ended has nothing a resume could add.
 */
export const unfinishedRunOf = (pipeline: string) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const last = yield* warehouse.lastRun(pipeline)
    const open =
      Option.isSome(last) && last.value.status === "incomplete"
        ? (yield* warehouse.checkpoints(pipeline)).some((c) => !c.done && c.runId === last.value.runId)
        : true
    return Option.filter(last, (r) => r.status !== "done" && r.status !== "failed" && open)
  })

/** The top-level parameters that differ, as `name: saved -> requested` (values cut short). */
export const paramsDiff = (saved: unknown, requested: unknown): Array<string> => {
  const a = (saved ?? {}) as Record<string, unknown>
  const b = (requested ?? {}) as Record<string, unknown>
  const show = (v: unknown) => (v === undefined ? "(unset)" : JSON.stringify(v).slice(0, 60))
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .sort()
    .filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]))
    .map((k) => `${k}: ${show(a[k])} -> ${show(b[k])}`)
}

export const startRun = <P>(request: RunRequest<P>) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const progress = yield* Progress
    const pipeline = request.pipeline
    yield* warehouse.ensureTables(pipeline.tables)

    const unfinished = yield* unfinishedRunOf(pipeline.name)
    const restart = request.fullRefresh || request.resume === "restart"
    if (!restart && request.resume !== "resume" && Option.isSome(unfinished)) {
      const diff = paramsDiff(unfinished.value.params, encodeParams(pipeline, request.params))
      if (diff.length > 0) {
        return yield* new InvalidInput({
          field: `${pipeline.name}.params`,
          detail:
            `the unfinished run ${unfinished.value.runId} (${unfinished.value.status}) has other parameters (${diff.join("; ")}); ` +
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

    const plan = yield* planPipeline(pipeline, params, request.costs, yield* warehouse.observedCosts())
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
    // what earlier runs' slices read is no use to this one (a resumed run keeps its own)
    yield* warehouse.forgetKeys(pipeline.name, resumed ? runId : undefined)
    yield* warehouse.startRun({
      runId,
      pipeline: pipeline.name,
      params: encodeParams(pipeline, params),
      unitsPlanned: plan.units,
      unitsFull: plan.fullUnits
    })
    const context: RunContext<P> = {
      request,
      pipeline,
      runId,
      params,
      plan,
      resumed,
      warehouse,
      progress,
      journal,
      writer: journal ? yield* openWriter(journal, pipeline.name, runId) : undefined,
      archive: pipeline.archiveRaw ?? pipeline.host === "platform",
      normalize: makeNormalizer(pipeline.records),
      extractedAt: new Date().toISOString(),
      started: Date.now(),
      // a resumed run's slices told their counts in the process before: its expectation starts from them
      refine: makePlanRefiner(plan, resumed ? toldPages(yield* warehouse.slices(runId)) : undefined),
      landing: landingPolicyOf(request.landing)
    }
    return { context, pagesBefore: resumed ? Option.getOrThrow(unfinished).pages : 0 }
  })
