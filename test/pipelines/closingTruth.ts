/**
 * The closing tests' pipelines, their parameters and their ground truth: plots-germany,
 * sourcing-search and seller-leads, the pipelines whose complete full pulls close what is gone
 * (`src/load/HistoryClosing.ts`). Shared by `closing.test.ts` (the default dialect) and
 * `test/reliability/closing-dialects.test.ts` (the paging dialects).
 */
import type { Harness } from "../support/pipelines.js"

export const DAY = 86_400_000
export const PLOTS = { criteria: { sort: "newest" }, pageSize: 50 }
export const PLACES = [{ country: "PT" }, { country: "CY" }]
/** From a price up: a property whose price is cut below it leaves the search (two in two weeks here). */
export const PRICE_MIN = 304_000
export const SOURCING = { places: PLACES, operation: "sale", price_min: PRICE_MIN, pageSize: 50, concurrency: 2 }
export const POINTS = [
  { name: "Madrid", latitude: 40.42, longitude: -3.7 },
  { name: "Paris", latitude: 48.86, longitude: 2.35 },
  { name: "Barcelona", latitude: 41.39, longitude: 2.17 }
]
export const LEAD_CRITERIA = { radius_km: 50, min_price_cuts: 1, min_price_cut_pct: 1 }
export const LEADS = { points: POINTS, ...LEAD_CRITERIA, pageSize: 5, concurrency: 2 }
export const TABLES = { "plots-germany": "plots", "sourcing-search": "sourcing_properties", "seller-leads": "seller_leads" } as const
export type Name = keyof typeof TABLES
/** The settings' `pipelines` of the three. */
export const CLOSING_PIPELINES = {
  "plots-germany": { params: PLOTS },
  "sourcing-search": { params: SOURCING },
  "seller-leads": { params: LEADS }
}

/**
 * The keys each table's pipeline lists at the sandbox's now, per the world itself (plots-germany
 * with `plotCriteria`, the settings' by default).
 */
export const closingTruth = (h: Harness, name: Name, plotCriteria: object = PLOTS.criteria): Array<string> => {
  const w = h.sandbox.context.world
  const at = h.sandbox.control.now()
  const ids =
    name === "plots-germany"
      ? w.searchPlots(plotCriteria as never, at).map((p) => p.id)
      : name === "sourcing-search"
        ? PLACES.flatMap((p) =>
            w.searchProperties({ ...p, operation: "sale", price_min: PRICE_MIN } as never, 0, 1_000_000, at).results.map((r) => r.id)
          )
        : POINTS.flatMap((p) =>
            w.sellerLeads({ latitude: p.latitude, longitude: p.longitude, ...LEAD_CRITERIA, nowMs: at }).map((l) => l.id)
          )
  // what left a query under the dialect `removeAfterFirstPage` (plots never leave the world's
  // market: this is how some leave here); a since-read's query is another query
  const removed = new Set(
    h.sandbox.control
      .removals()
      .filter((r) => !r.query.includes("since"))
      .flatMap((r) => r.ids)
  )
  return [...new Set(ids.map(String))].filter((id) => !removed.has(id)).sort()
}
