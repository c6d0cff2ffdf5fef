/**
 * Plans: what a run will do before it does it. Requests and pages come from the pipeline's cost
 * model (free counts where the service gives them, the parameters otherwise); units from the
 * cost table. Nothing paid is called.
 */
import { Effect } from "effect"
import { DEFAULT_UNIT_COSTS } from "../service/ServiceSettings.js"
import type { Pipeline } from "./Pipeline.js"
import { eurOf } from "../service/CostGuard.js"

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
      eur: eurOf(units),
      exact: estimate.exact,
      note: estimate.note
    }
    return plan
  })

/**
 * Refines a plan from first pages: a page that carries its slice's record count (`total`) fixes
 * that slice's page count at `ceil(total / page size)`, where the page size is what the first page
 * held when more records follow. Slices not seen (yet) keep the plan's bound per slice.
 */
export const makePlanRefiner = (plan: Plan) => {
  const bound = plan.slices > 0 ? plan.pages / plan.slices : plan.pages
  const unitsPerPage = plan.pages > 0 ? plan.units / plan.pages : 0
  const known = new Map<string, number>()
  const first = (slice: string, total: number | undefined, records: number): boolean => {
    if (total === undefined || known.has(slice)) return false
    const pages = total <= records ? 1 : Math.ceil(total / Math.max(1, records))
    known.set(slice, Math.min(bound, pages))
    return true
  }
  const expected = () => {
    if (plan.exact) return { pages: plan.pages, units: plan.units, exact: true }
    let pages = 0
    for (const p of known.values()) pages += p
    pages += Math.max(0, plan.slices - known.size) * bound
    return { pages, units: pages * unitsPerPage, exact: known.size >= plan.slices }
  }
  return { first, expected }
}
