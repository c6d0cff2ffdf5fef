/**
 * The response shape of every list (and not-shown record) operation, by operation name: each
 * declared in its resource's schema module, overridable in the settings (`service.shapes`).
 */
import type { ShapedOperation } from "../config/ShapedOperations.js"
import { ENVELOPE, type ResponseShape, type ShapeOverride, withOverride } from "./ResponseShape.js"
import { ALERT_ENVELOPE_SHAPE } from "./schema/Alert.js"
import { DISTRIBUTION_LIST_SHAPE, MARKET_RECORD_SHAPE } from "./schema/Distributions.js"
import { ALERTS_API_FEEDS_SHAPE, LEGACY_FEEDS_SHAPE } from "./schema/Feeds.js"
import { PLOT_SEARCH_SHAPE } from "./schema/Plots.js"
import { PREMISES_SHAPE } from "./schema/Premises.js"
import { PROPERTIES_SEARCH_SHAPE } from "./schema/PropertyRequests.js"
import { SELLER_LEADS_SHAPE } from "./schema/SellerLeads.js"
import { SOURCING_PAGE_SHAPE } from "./schema/Sourcing.js"
import { TIME_SERIES_SHAPE } from "./schema/TimeSeries.js"

/** Every operation of `SHAPED_OPERATIONS` (config/ShapedOperations.ts) with its declared shape, and no other. */
export const DEFAULT_SHAPES: Readonly<Record<string, ResponseShape>> = {
  ai_search_premises: PREMISES_SHAPE,
  plot_search: PLOT_SEARCH_SHAPE,
  sourcing_search: SOURCING_PAGE_SHAPE,
  sourcing_describe: SOURCING_PAGE_SHAPE,
  sourcing_next: SOURCING_PAGE_SHAPE,
  seller_leads: SELLER_LEADS_SHAPE,
  properties_search: PROPERTIES_SEARCH_SHAPE,
  alerts_feed: ALERT_ENVELOPE_SHAPE,
  alerts_search: ALERT_ENVELOPE_SHAPE,
  legacy_feeds: LEGACY_FEEDS_SHAPE,
  alerts_api_feeds: ALERTS_API_FEEDS_SHAPE,
  market_time_series: TIME_SERIES_SHAPE,
  market_distribution_bedrooms: DISTRIBUTION_LIST_SHAPE,
  market_distribution_prices: DISTRIBUTION_LIST_SHAPE,
  market_distribution_time_on_market: DISTRIBUTION_LIST_SHAPE,
  market_distribution_properties: MARKET_RECORD_SHAPE,
  market_analysis: MARKET_RECORD_SHAPE
} satisfies Record<ShapedOperation, ResponseShape>

/** Operations answering one record (an object at `results`: `TokenClient`'s `record`), not a list. */
export const RECORD_OPERATIONS: ReadonlySet<string> = new Set(["market_distribution_properties", "market_analysis"])

/** The shape of `operation` with the settings' override applied. */
export const shapeOf = (operation: string, overrides: Readonly<Record<string, ShapeOverride | undefined>> = {}): ResponseShape =>
  withOverride(DEFAULT_SHAPES[operation] ?? ENVELOPE, overrides[operation])
