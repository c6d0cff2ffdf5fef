/**
 * Plans: what a run will do before it does it. Requests and pages come from the pipeline's cost
 * model (free counts where the service gives them, the parameters otherwise); units from the
 * cost per request. Nothing paid is called.
 *
 * Learned costs: the cost per request is, in this order, the settings' `budget.costs` entry for
 * the operation, else what the service charged for it lately (the median of the ledger's recent
 * charges: `Warehouse.observedCosts`), else the assumed table (`DEFAULT_UNIT_COSTS`, Assumed).
 * A plan says which it used, and warns when what was charged differs from what it assumed.
 */
import { Effect } from "effect"
import { DEFAULT_UNIT_COSTS } from "../config/UnitCosts.js"
import type { Pipeline } from "./Pipeline.js"
import type { SliceRecord } from "../load/PageCommit.js"
import { eurOf } from "../service/CostGuard.js"
import { Planning } from "../extract/Sources.js"

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
  /** Where `unitsPerRequest` comes from. */
  readonly costSource: CostChoice["source"]
  /** The cost per request the settings or the defaults assume. */
  readonly assumedPerRequest: number
  /** What the service charged lately, when the ledger has charges of the operation. */
  readonly observed?: ObservedCost | undefined
  /** Set when the observed cost differs from the assumed one. */
  readonly costWarning?: string | undefined
  /** Units of a full pull (no incremental stop); equal to `units` for a pipeline that reads everything. */
  readonly fullUnits: number
  /** The pipeline whose full re-pull this change-driven refresh stands in for. */
  readonly standsInFor?: string | undefined
}

/** The median units of an operation's recent charges (`Warehouse.observedCosts`). */
export interface ObservedCost {
  readonly perRequest: number
  /** How many charges the median is over. */
  readonly charges: number
}

export interface CostChoice {
  readonly perRequest: number
  readonly source: "settings" | "observed" | "assumed" | "unmetered"
  readonly assumed: number
  readonly observed?: ObservedCost | undefined
}

/** The cost per request a plan uses (see the module's comment for the order). */
export const chooseCost = (
  pipeline: Pipeline,
  costs: Readonly<Record<string, number>>,
  observed: Readonly<Record<string, ObservedCost>> = {}
): CostChoice => {
  if (pipeline.host === "token") return { perRequest: 0, source: "unmetered", assumed: 0 }
  const op = pipeline.cost.operation
  const seen = observed[op]
  const set = costs[op]
  if (set !== undefined) return { perRequest: set, source: "settings", assumed: set, observed: seen }
  const assumed = DEFAULT_UNIT_COSTS[op] ?? 0
  return seen
    ? { perRequest: seen.perRequest, source: "observed", assumed, observed: seen }
    : { perRequest: assumed, source: "assumed", assumed }
}

const warningOf = (op: string, c: CostChoice): string | undefined =>
  c.observed && c.observed.perRequest !== c.assumed
    ? `${op}: the service charged ${c.observed.perRequest} units a call lately (median of ${c.observed.charges}), ${
        c.source === "settings" ? "budget.costs says" : "assumed"
      } ${c.assumed}; the plan uses ${c.perRequest}`
    : undefined

/**
 * Units per request of an operation: the settings' cost table over the defaults
 * (`DEFAULT_UNIT_COSTS`), 0 on the token host (not metered).
 */
export const unitCost = (host: string, operation: string, costs: Readonly<Record<string, number>>): number =>
  host === "token" ? 0 : (costs[operation] ?? DEFAULT_UNIT_COSTS[operation] ?? 0)

export const planPipeline = <P>(
  pipeline: Pipeline<P>,
  params: P,
  costs: Readonly<Record<string, number>>,
  observed: Readonly<Record<string, ObservedCost>> = {}
) =>
  Effect.gen(function* () {
    const estimate = yield* pipeline.cost.estimate(params).pipe(Effect.provideService(Planning, { pipeline: pipeline.name }))
    const slices = yield* pipeline.source.slices(params)
    const choice = chooseCost(pipeline as Pipeline, costs, observed)
    const perRequest = choice.perRequest
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
      note: estimate.note,
      costSource: choice.source,
      assumedPerRequest: choice.assumed,
      observed: choice.observed,
      costWarning: warningOf(pipeline.cost.operation, choice),
      fullUnits: (estimate.fullRequests ?? estimate.requests) * perRequest,
      standsInFor: pipeline.standsInFor
    }
    return plan
  })

/**
 * The pages a resumed run's slices were told (`_slices`): a finished slice its own pages, one
 * under way its count over the records a page it has read so far (full pages, while it goes on).
 * Slices with no count stay untold.
 */
export const toldPages = (slices: ReadonlyArray<SliceRecord>): ReadonlyMap<string, number> =>
  new Map(
    slices.flatMap((s) =>
      s.done
        ? [[s.slice, s.pages] as const]
        : s.declared !== null && s.pages > 0 && s.received > 0
          ? [[s.slice, Math.max(s.pages, Math.ceil(s.declared / Math.ceil(s.received / s.pages)))] as const]
          : []
    )
  )

/**
 * What a resume of `runId` has left, from its slices (`_slices`) and `plan`'s mean a slice: the
 * slices told their counts, those pages less the ones read; the others at the plan's mean less
 * what they read (at least one page each); slices not started at the mean. In whole pages.
 */
export const resumePlan = (plan: Plan, runId: string, slices: ReadonlyArray<SliceRecord>): Plan => {
  const told = toldPages(slices)
  const mean = plan.slices > 0 ? plan.pages / plan.slices : plan.pages
  let left = Math.max(0, plan.slices - slices.length) * mean
  for (const s of slices) {
    if (s.done) continue
    const pages = told.get(s.slice)
    left += pages !== undefined ? Math.max(0, pages - s.pages) : Math.max(1, Math.ceil(mean) - s.pages)
  }
  const pages = Math.ceil(left)
  const read = slices.reduce((n, s) => n + s.pages, 0)
  const units = pages * plan.unitsPerRequest
  return {
    ...plan,
    requests: pages,
    pages,
    units,
    eur: eurOf(units),
    exact: false,
    note: `resumes its unfinished run ${runId} with that run's parameters: ${read} page(s) read, about ${pages} left (a fresh read: ${plan.units} units${plan.note ? `; ${plan.note}` : ""})`
  }
}

/**
 * Refines a plan from first pages: a page that carries its slice's record count (`total`) fixes
 * that slice's page count at `ceil(total / page size)`, where the page size is what the first page
 * held when more records follow. Slices not seen (yet) keep the plan's pages per slice;
 * `told` holds what a resumed run's slices said before (`toldPages`).
 */
export const makePlanRefiner = (plan: Plan, told: ReadonlyMap<string, number> = new Map()) => {
  const bound = plan.slices > 0 ? plan.pages / plan.slices : plan.pages
  const unitsPerPage = plan.pages > 0 ? plan.units / plan.pages : 0
  const known = new Map<string, number>(told)
  const first = (slice: string, total: number | undefined, records: number): boolean => {
    if (total === undefined || known.has(slice)) return false
    // what the count says, whatever the plan assumed (a plan without a count may be too low)
    known.set(slice, total <= records ? 1 : Math.ceil(total / Math.max(1, records)))
    return true
  }
  const expected = () => {
    if (plan.exact) return { pages: plan.pages, units: plan.units, exact: true }
    let pages = 0
    for (const p of known.values()) pages += p
    // slices not told yet at the plan's mean a slice, in whole pages
    pages = Math.ceil(pages + Math.max(0, plan.slices - known.size) * bound)
    return { pages, units: pages * unitsPerPage, exact: known.size >= plan.slices }
  }
  return { first, expected }
}
