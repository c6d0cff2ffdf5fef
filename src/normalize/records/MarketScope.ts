/**
 * The market scope every Area Insights pipeline shares (time series, distributions, analysis):
 * one group of property types, one business type and the extra filters, with the stable keys and
 * scope columns their rows carry.
 */
import { Either, Schema } from "effect"
import { fnv1aHex } from "../../shared/Fnv.js"
import { MarketFilterRequest } from "../../service/schema/Distributions.js"
import { intBetween, items } from "../../service/schema/Rules.js"
import { marketFilterFields } from "../../service/schema/TimeSeries.js"
import { validateRequest } from "../../service/schema/Validation.js"
import type { TokenBody } from "../../service/TokenRequests.js"
import type { PageContext } from "../PageContext.js"

const { types, business_type, custom_location_boundary: _boundary, ...filterFields } = marketFilterFields

/** The market filter less types, business type and area: price, area, rooms ranges and flags. */
export const MarketFilterExtras = Schema.Struct(filterFields)
export type MarketFilterExtras = typeof MarketFilterExtras.Type

/** The scope every market pipeline shares: one group of types, one business type, extra filters. */
export const marketScopeFields = {
  /** Property types of one time-series group (request rule), at least one. */
  types,
  business_type,
  /** The other market filter members (`price_range`, `bedrooms_range`, `private`...). Default none. */
  filter: Schema.optionalWith(MarketFilterExtras, { default: () => ({}) })
}

/**
 * Assumed: Area Insights prices (analysis averages and medians, price buckets, sampled prices) are
 * EUR; the spec shows no currency on these answers. Their tables carry it in a `currency` column.
 */
export const MARKET_CURRENCY = "EUR"

/** FNV-1a, hex: short stable keys of lists and filters. */
export const fingerprint = (value: unknown): string => fnv1aHex(JSON.stringify(value))

/** Row key of a types list: sorted, comma-joined (order does not change the answer). */
export const typesKey = (ts: ReadonlyArray<string>) => [...ts].sort().join(",")
/** Row key of the extra filters: "" when none, else a fingerprint of the filter. */
export const filterKey = (f: object) => (Object.keys(f).length === 0 ? "" : fingerprint(f))

/** Location ids (one request each) and the market scope; every body checked before any call. */
const LocationScopeBase = Schema.Struct({
  /** Location ids, at least one; each is its own request. */
  location_ids: items(intBetween(1, 2147483647), 1),
  ...marketScopeFields
})
export type LocationScope = typeof LocationScopeBase.Type

/** The body of a distribution or analysis request for one location. */
export const marketBody = (p: Omit<LocationScope, "location_ids">, locationId: number): TokenBody<"marketFilter"> => ({
  ...p.filter,
  types: p.types,
  business_type: p.business_type,
  custom_location_boundary: { location_ids: [locationId] }
})

export const LocationScope = LocationScopeBase.pipe(
  Schema.filter((p) => {
    const v = validateRequest(MarketFilterRequest, marketBody(p, p.location_ids[0]!))
    return Either.isRight(v) || v.left.message.split("\n").join("; ")
  })
)

/** What every row of a location's answer carries (built by the pipeline). */
export const Scope = Schema.Struct({
  location_id: Schema.Number,
  types: Schema.String,
  business_type: Schema.String,
  filter_key: Schema.String
})
export type Scope = typeof Scope.Type
export const scopeOf = (p: LocationScope, locationId: number): Scope => ({
  location_id: locationId,
  types: typesKey(p.types),
  business_type: p.business_type,
  filter_key: filterKey(p.filter)
})

/** Scope columns and the snapshot date, first in every table. */
export const scopeColumns = <R extends { readonly scope: Scope }>() => ({
  location_id: ["BIGINT", (r: R) => r.scope.location_id] as const,
  types: ["VARCHAR", (r: R) => r.scope.types] as const,
  business_type: ["VARCHAR", (r: R) => r.scope.business_type] as const,
  filter_key: ["VARCHAR", (r: R) => r.scope.filter_key] as const,
  snapshot_date: ["DATE", (_r: R, c: PageContext) => c.extractedAt] as const
})
export const SCOPE_KEY = ["location_id", "types", "business_type", "filter_key", "snapshot_date"] as const
