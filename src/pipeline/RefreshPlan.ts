/**
 * What reading only what changed saves, for `plan`: the units the planned pipelines expect
 * against a full re-pull of the same data. A full re-pull counts each incremental read's full
 * pull (`Plan.fullUnits`: a newest-first stop, a read since the last one) and, for a change-driven
 * refresh that stands in for another pipeline (`Pipeline.standsInFor`: `properties-changed` for
 * `sourcing-search`), that pipeline's plan with its parameters from the settings.
 */
import { Effect, Either } from "effect"
import type { Settings } from "../config/Settings.js"
import { resolveParams } from "./Params.js"
import { type ObservedCost, type Plan, planPipeline } from "./Planner.js"
import type { Registry } from "./Registry.js"

export interface RefreshSavings {
  /** Units the planned runs expect. */
  readonly units: number
  /** Units a full re-pull of the same data would take. */
  readonly full: number
  /** Planned pipelines that read less than a full pull. */
  readonly incremental: ReadonlyArray<string>
  /** Pipelines the refresh stands in for (not planned themselves), with their full plan's units. */
  readonly replaced: ReadonlyArray<{ readonly pipeline: string; readonly units: number; readonly by: string }>
  /** Whether every figure is exact (else upper bounds or expectations). */
  readonly exact: boolean
}

const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)

/**
 * The savings of `plans`, or none when every planned pipeline reads everything and none stands
 * in for another. `planOf` plans a pipeline the refresh replaces.
 */
export const refreshSavings = <E, R>(plans: ReadonlyArray<Plan>, planOf: (pipeline: string) => Effect.Effect<Plan, E, R>) =>
  Effect.gen(function* () {
    const planned = new Set(plans.map((p) => p.pipeline))
    const stands = plans.filter((p) => p.standsInFor !== undefined && !planned.has(p.standsInFor))
    const incremental = plans.filter((p) => p.fullUnits !== p.units)
    if (stands.length === 0 && incremental.length === 0) return undefined
    const replaced: Array<RefreshSavings["replaced"][number]> = []
    const others: Array<Plan> = []
    for (const p of stands) {
      if (replaced.some((r) => r.pipeline === p.standsInFor)) continue
      const other = yield* planOf(p.standsInFor!)
      others.push(other)
      replaced.push({ pipeline: other.pipeline, units: other.fullUnits, by: p.pipeline })
    }
    return {
      units: sum(plans.map((p) => p.units)),
      full: sum(plans.map((p) => p.fullUnits)) + sum(others.map((p) => p.fullUnits)),
      incremental: incremental.map((p) => p.pipeline),
      replaced,
      exact: [...plans, ...others].every((p) => p.exact)
    } satisfies RefreshSavings
  })

/** `refreshSavings` for the `plan` command: a replaced pipeline is planned with its settings' parameters. */
export const planRefresh = (
  plans: ReadonlyArray<Plan>,
  context: { readonly registry: Registry; readonly settings: Settings; readonly observed: Readonly<Record<string, ObservedCost>> }
) =>
  refreshSavings(plans, (name) =>
    Effect.gen(function* () {
      const pipeline = yield* Either.match(context.registry.get(name), { onLeft: Effect.fail, onRight: Effect.succeed })
      const params = yield* Either.match(resolveParams(pipeline, context.settings.pipelines[name]?.params ?? {}, []), {
        onLeft: Effect.fail,
        onRight: Effect.succeed
      })
      return yield* planPipeline(pipeline, params, context.settings.budget.costs, context.observed)
    })
  )

/** The plan's line: `refresh: N units instead of M for a full re-pull (...)`. */
export const refreshLine = (s: RefreshSavings): string => {
  const how = [
    ...(s.incremental.length > 0 ? [`${s.incremental.join(", ")} read only what is new`] : []),
    ...s.replaced.map((r) => `${r.by} stands in for ${r.pipeline} (${r.units} units)`)
  ]
  return (
    `refresh: ${s.units} units instead of ${s.full} for a full re-pull (${how.join("; ")}` +
    `${s.exact ? "" : "; figures are expectations and upper bounds"})`
  )
}
