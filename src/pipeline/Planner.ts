/**
 * Plans: what a run will do before it does it. Requests and pages come from the pipeline's cost
 * model (free counts where the service gives them, the parameters otherwise); units from the
 * cost table. Nothing paid is called.
 */
import { Effect } from "effect"
import { DEFAULT_UNIT_COSTS } from "../service/ServiceSettings.js"
import type { Pipeline } from "./Pipeline.js"

export interface Plan {
  readonly pipeline: string
  readonly operation: string
  readonly slices: number
  readonly requests: number
  readonly pages: number
  readonly records?: number | undefined
  readonly unitsPerRequest: number
  readonly units: number
  readonly eur: number
  /** Exact figures (known page counts) or an upper bound. */
  readonly exact: boolean
  readonly note?: string | undefined
}

export const EUR_PER_UNIT = 0.04

/**
 * Units per request of an operation: the settings' cost table over the defaults
 * (`DEFAULT_UNIT_COSTS`), 0 on the token host (not metered).
 */
export const unitCost = (pipeline: Pipeline, costs: Readonly<Record<string, number>>): number =>
  pipeline.host === "token" ? 0 : (costs[pipeline.cost.operation] ?? DEFAULT_UNIT_COSTS[pipeline.cost.operation] ?? 0)

export const planPipeline = <P>(pipeline: Pipeline<P>, params: P, costs: Readonly<Record<string, number>>) =>
  Effect.gen(function* () {
    const estimate = yield* pipeline.cost.estimate(params)
    const slices = yield* pipeline.source.slices(params)
    const perRequest = unitCost(pipeline as Pipeline, costs)
    const units = estimate.requests * perRequest
    const plan: Plan = {
      pipeline: pipeline.name,
      operation: pipeline.cost.operation,
      slices: slices.length,
      requests: estimate.requests,
      pages: estimate.pages ?? estimate.requests,
      records: estimate.records,
      unitsPerRequest: perRequest,
      units,
      eur: Math.round(units * EUR_PER_UNIT * 100) / 100,
      exact: estimate.exact,
      note: estimate.note
    }
    return plan
  })
