/**
 * The operations whose response shape the settings may set (`service.shapes`): every list (and
 * not-shown record) operation. Their default shapes are declared with their schemas and gathered
 * in `service/Shapes.ts`, whose table is typed by this list, so the two cannot drift apart. Here,
 * below the service, so the settings schema names them without importing the service.
 */
export const SHAPED_OPERATIONS = [
  "ai_search_premises",
  "plot_search",
  "sourcing_search",
  "sourcing_describe",
  "sourcing_next",
  "seller_leads",
  "properties_search",
  "alerts_feed",
  "alerts_search",
  "legacy_feeds",
  "alerts_api_feeds",
  "market_time_series",
  "market_distribution_bedrooms",
  "market_distribution_prices",
  "market_distribution_time_on_market",
  "market_distribution_properties",
  "market_analysis"
] as const

export type ShapedOperation = (typeof SHAPED_OPERATIONS)[number]
