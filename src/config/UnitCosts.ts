/**
 * The declared unit cost per platform operation: what the settings' `budget.costs` may name
 * beyond it (`StrictSettings.ts`), what the planner assumes before a run has seen a charge, and
 * what `ServiceSettings.costs` starts from. Here, below the service, so the settings' checks
 * read it without importing the service.
 * Assumed (docs/ASSUMPTIONS.md, "Unit costs"): only premises search's 40 is from the spec.
 */
const UNIT_COSTS = {
  ai_search_premises: 40,
  plot_search: 1,
  sourcing_search: 1,
  sourcing_next: 1,
  sourcing_describe: 2,
  sourcing_property: 1,
  sourcing_resolve: 1,
  seller_leads: 1,
  seller_lead: 1
} as const

/** A metered operation of the platform host: a key of the cost table (a misspelt one does not compile). */
export type PlatformOperation = keyof typeof UNIT_COSTS

/** The cost table, looked up by any name (a settings key, an archived page's operation). */
export const DEFAULT_UNIT_COSTS: Readonly<Record<string, number>> = UNIT_COSTS
