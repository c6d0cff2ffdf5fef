/**
 * Commercial plot search (Germany), POST /v1/ai/plots/search: the `criteria` request, the
 * 200 body with its result objects, and the plot service's own error body `{error:{code,message}}`.
 */
import { Schema } from "effect"
import { CommercialUseLevel, PlotOperation, PlotSort, PlotType } from "./Enums.js"
import { AnyKeys, nullable, open } from "./Open.js"
import { intBetween, NonNegative, oneOf, show } from "./Rules.js"
import type { ResponseShape } from "../ResponseShape.js"

type CommercialUseLevel = (typeof CommercialUseLevel.values)[number]
const isLevel = (u: unknown): u is CommercialUseLevel => CommercialUseLevel.values.includes(u as never)

/** `commercial_use`: one level, a list of levels, or `all` (any value replaces the default filter). */
export const CommercialUseCriterion = Schema.declare(
  (u: unknown): u is CommercialUseLevel | "all" | ReadonlyArray<CommercialUseLevel> =>
    u === "all" || isLevel(u) || (Array.isArray(u) && u.every(isLevel)),
  {
    identifier: "CommercialUseCriterion",
    message: (issue) =>
      `must be all, a commercial-use level or a list of levels (${CommercialUseLevel.values.join(", ")}) ` + `(got ${show(issue.actual)})`
  }
)

const bounds = (lo: number | undefined, hi: number | undefined, field: string, other: string) =>
  lo === undefined || hi === undefined || lo <= hi
    ? undefined
    : { path: [field], message: `must not be below ${other} (got ${hi} < ${lo})` }

/**
 * Plot search criteria, all optional (spec). Assumed (docs/ASSUMPTIONS.md): `limit` 1..100
 * (default 20), `offset` at least 0 (default 0).
 */
export const PlotCriteria = Schema.Struct({
  regions: Schema.optional(Schema.Array(Schema.String)),
  municipalities: Schema.optional(Schema.Array(Schema.String)),
  zipcodes: Schema.optional(Schema.Array(Schema.String)),
  plot_types: Schema.optional(Schema.Array(oneOf(PlotType.values))),
  operation: Schema.optional(oneOf(PlotOperation.values)),
  plot_area_min: Schema.optional(NonNegative),
  plot_area_max: Schema.optional(NonNegative),
  sale_price_min: Schema.optional(NonNegative),
  sale_price_max: Schema.optional(NonNegative),
  sale_price_m2_max: Schema.optional(NonNegative),
  commercial_use: Schema.optional(CommercialUseCriterion),
  serviced: Schema.optional(Schema.Boolean),
  keywords: Schema.optional(Schema.Array(Schema.String)),
  limit: Schema.optional(intBetween(1, 100)),
  offset: Schema.optional(intBetween(0, Number.MAX_SAFE_INTEGER)),
  sort: Schema.optional(oneOf(PlotSort.values))
}).pipe(
  Schema.filter((c) =>
    [
      bounds(c.plot_area_min, c.plot_area_max, "plot_area_max", "plot_area_min"),
      bounds(c.sale_price_min, c.sale_price_max, "sale_price_max", "sale_price_min")
    ].filter((i) => i !== undefined)
  )
)
export type PlotCriteria = typeof PlotCriteria.Type

/** The request body: one key, `criteria`. */
export const PlotSearchRequest = Schema.Struct({ criteria: PlotCriteria })
export type PlotSearchRequest = typeof PlotSearchRequest.Type

/** `commercial_use` of a result: the level, what it means and the quote it rests on. */
export const CommercialUse = open({
  level: CommercialUseLevel.schema,
  meaning: nullable(Schema.String),
  evidence: nullable(Schema.String),
  facts_read: nullable(Schema.Boolean),
  /** For a stated class (a Flächennutzungsplan is not binding). */
  zoning_source: nullable(Schema.String)
})

/** Facts read from the text; only `zoning_class` and `serviced` are named by the spec. */
export const FactsFromText = open({
  zoning_class: nullable(Schema.String),
  serviced: nullable(Schema.Boolean)
})

export const AgencyLink = open({
  name: nullable(Schema.String),
  listing_url: nullable(Schema.String)
})

/** One plot (one result however many agencies advertise it). Coordinates are approximate. */
export const PlotResult = open({
  id: Schema.String,
  title: nullable(Schema.String),
  plot_type: nullable(PlotType.schema),
  country: nullable(Schema.String),
  region: nullable(Schema.String),
  municipality: nullable(Schema.String),
  zipcode: nullable(Schema.String),
  location_precision: nullable(Schema.String),
  coordinates: nullable(open({ lat: Schema.Number, lon: Schema.Number, precision: nullable(Schema.String) })),
  for_sale: nullable(Schema.Boolean),
  for_rent: nullable(Schema.Boolean),
  sale_eur: nullable(Schema.Number),
  rent_eur_month: nullable(Schema.Number),
  plot_area_m2: nullable(Schema.Number),
  sale_eur_per_m2: nullable(Schema.Number),
  commercial_use: nullable(CommercialUse),
  facts_from_text: nullable(FactsFromText),
  excerpt: nullable(Schema.String),
  agency: nullable(AgencyLink),
  /** Other agencies advertising the plot (`also_listed_by` in the description). */
  agency_links: nullable(Schema.Array(AgencyLink))
})
export type PlotResult = typeof PlotResult.Type

/** The 200 body. */
export const PlotSearchResponse = open({
  scope: nullable(Schema.String),
  /** Lower-case country code. */
  country: nullable(Schema.String),
  count: Schema.Int,
  returned: Schema.Int,
  offset: Schema.Int,
  /** The criteria applied. */
  criteria: nullable(AnyKeys),
  note: nullable(Schema.String),
  results: Schema.Array(PlotResult)
})
export type PlotSearchResponse = typeof PlotSearchResponse.Type

/** Plot search error body for 400, 401, 403 and 429 (`rate_limited`, `quota_reached` on 429). */
export const PlotError = open({
  error: open({ code: Schema.String, message: Schema.String })
})
export type PlotError = typeof PlotError.Type

/**
 * Spec (plot search 200 body): `count`, `returned`, `offset`, `results`. It shows no next link;
 * one is followed should an answer carry it (the pagers follow the service's own paging).
 */
export const PLOT_SEARCH_SHAPE: ResponseShape = { results: "results", count: "count", next: "next", returned: "returned" }
