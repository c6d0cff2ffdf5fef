/**
 * Area Insights distributions (bedrooms, prices, properties, time on market) and the market
 * analysis. The spec shows none of these payloads.
 *
 * Assumed (docs/ASSUMPTIONS.md): every body is the time-series body less `data_point`,
 * `date_interval` and `date_range` (`MarketFilterRequest`); the answers are
 *   bedrooms        [{bedrooms, count}]
 *   prices          [{min, max, count}]
 *   properties      {quartiles: {q1, q2, q3}, properties: [{property_id, price, price_per_sqm, total_area, bedrooms}]}
 *   time-on-market  [{min_price, max_price, days, months}]
 *   analysis        {avg_price, avg_price_psqm, median_price, available_on_market, avg_days_on_market, price_trend_pct}
 */
import { Schema } from "effect"
import { Int, nullable, Num, open } from "./Open.js"
import { marketFilterFields } from "./TimeSeries.js"
import { BARE_LIST, type ResponseShape } from "../ResponseShape.js"

/** Body of every distribution and of the analysis. */
export const MarketFilterRequest = Schema.Struct(marketFilterFields)
export type MarketFilterRequest = typeof MarketFilterRequest.Type

/** Assumed: POST /market-analytics-api/distributions/bedrooms item. */
export const BedroomsBucket = open({
  bedrooms: Int,
  count: Int
})
export const BedroomsDistribution = Schema.Array(BedroomsBucket)
export type BedroomsBucket = typeof BedroomsBucket.Type

/** Assumed: POST /market-analytics-api/distributions/prices item (a price range and its count). */
export const PriceBucket = open({
  min: nullable(Num),
  max: nullable(Num),
  count: Int
})
export const PricesDistribution = Schema.Array(PriceBucket)
export type PriceBucket = typeof PriceBucket.Type

/** Assumed: one property of the light sample. */
export const SampleProperty = open({
  property_id: Int,
  price: nullable(Num),
  price_per_sqm: nullable(Num),
  total_area: nullable(Num),
  bedrooms: nullable(Int)
})

/** Assumed: POST /market-analytics-api/distributions/properties answer. */
export const PropertiesDistribution = open({
  quartiles: open({
    q1: nullable(Num),
    q2: nullable(Num),
    q3: nullable(Num)
  }),
  properties: Schema.Array(SampleProperty)
})
export type PropertiesDistribution = typeof PropertiesDistribution.Type

/** Assumed: POST /market-analytics-api/distributions/time-on-market item. */
export const TimeOnMarketBucket = open({
  min_price: nullable(Num),
  max_price: nullable(Num),
  days: nullable(Num),
  months: nullable(Num)
})
export const TimeOnMarketDistribution = Schema.Array(TimeOnMarketBucket)
export type TimeOnMarketBucket = typeof TimeOnMarketBucket.Type

/** Assumed: POST /market-analytics-api/analysis answer. */
export const MarketAnalysis = open({
  avg_price: nullable(Num),
  avg_price_psqm: nullable(Num),
  median_price: nullable(Num),
  available_on_market: nullable(Int),
  avg_days_on_market: nullable(Num),
  price_trend_pct: nullable(Num)
})
export type MarketAnalysis = typeof MarketAnalysis.Type

/**
 * Assumed (payloads not shown): the bedrooms, prices and time-on-market distributions are bare
 * lists; the properties distribution and the analysis are one object each (`results: "."` names
 * the record). Settings: `service.shapes.market_distribution_<kind>`, `.market_analysis`.
 */
export const DISTRIBUTION_LIST_SHAPE: ResponseShape = BARE_LIST
export const MARKET_RECORD_SHAPE: ResponseShape = BARE_LIST
