/**
 * The operations' names, as types: a pipeline's `cost.operation` and the operation a client's
 * answer carries are one of these, so a misspelt name is a compile error. The platform's are the
 * keys of its cost table (`UnitCosts.ts`); the token host's are the names its client gives its
 * answers (plus the names under which a pipeline reading several of them is listed). Here, below
 * the service, beside the cost table and the shaped operations they extend.
 */
import type { PlatformOperation } from "./UnitCosts.js"

export type { PlatformOperation }

export const TOKEN_OPERATIONS = [
  "properties_search",
  "property_by_id",
  "match_by_listings",
  "comparables_v2",
  "market_time_series",
  "market_distribution_bedrooms",
  "market_distribution_prices",
  "market_distribution_time_on_market",
  "market_distribution_properties",
  "market_analysis",
  "alerts_feed",
  "alerts_search",
  "legacy_feeds",
  "alerts_api_feeds",
  "references",
  // what a pipeline reading several of the above is listed under (`list`, `cost.operation`)
  "market_distributions",
  "alert_feeds"
] as const

/** An operation of the token host (not metered). */
export type TokenOperation = (typeof TOKEN_OPERATIONS)[number]

/** Any operation a pipeline may name. */
export type Operation = PlatformOperation | TokenOperation
