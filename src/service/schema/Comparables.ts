/**
 * Comparables responses (v1 and v2 share the item), comparables v1 request and the valuation
 * prices response. The v2 request with all its rules is in ComparablesRequest.ts.
 */
import { Schema } from "effect"
import { Condition, Operation, PROPERTY_TYPES, PropertyType, RentStatus, SaleStatus, ResultGroup } from "./Enums.js"
import { Int, IntId, nullable, Num, open, Str } from "./Open.js"
import { intBetween, LatLon, numberBetween, oneOf } from "./Rules.js"
import { AreasAndRooms, Coordinates, Features, Location } from "./Shared.js"

/**
 * One comparable property. The spec shows these members of 60; the others are kept as extras.
 */
export const ComparableResult = open({
  property_id: IntId,
  property_url: nullable(Str),
  primary_listing_id: nullable(IntId),
  type: nullable(PropertyType),
  type_group: nullable(ResultGroup),
  coordinates: nullable(Coordinates),
  location: nullable(Location),
  locations_structure: nullable(Schema.Array(Location)),
  address: nullable(Str),
  zip_code: nullable(Str),
  /** Kilometres from the circle's centre; absent for polygon searches. */
  distance: nullable(Num),
  construction_year: nullable(Int),
  ...AreasAndRooms,
  floor_number: nullable(Int),
  condition: nullable(Condition.schema),
  features: nullable(Features),
  operations: nullable(Schema.Array(Str)),
  sale_status: nullable(SaleStatus.schema),
  sale_currency: nullable(Str),
  sale_price: nullable(Num),
  sale_price_base: nullable(Num),
  sale_price_per_sqm: nullable(Num),
  sale_price_per_sqm_base: nullable(Num),
  rent_status: nullable(RentStatus.schema),
  rent_currency: nullable(Str),
  rent_price: nullable(Num),
  rent_price_base: nullable(Num)
})
export type ComparableResult = typeof ComparableResult.Type

/** `{results: [comparable]}` (v2; Assumed: v1 answers the same). */
export const ComparablesEnvelope = open({
  results: Schema.Array(ComparableResult)
})
export type ComparablesEnvelope = typeof ComparablesEnvelope.Type

/**
 * Assumed (docs/ASSUMPTIONS.md): POST /api/v1/comparables/search body
 * `{coordinates {latitude, longitude}, distance (km), business_type, property_type, comparables_count}`.
 * Bounds borrowed from v2: distance 0.05..50 km, comparables_count 1..50.
 */
export const ComparablesV1Request = Schema.Struct({
  coordinates: LatLon,
  distance: Schema.optional(numberBetween(0.05, 50)),
  business_type: oneOf(Operation.values),
  property_type: oneOf(PROPERTY_TYPES),
  comparables_count: intBetween(1, 50)
})
export type ComparablesV1Request = typeof ComparablesV1Request.Type

/** Assumed: price figures of one operation in the valuation answer. */
export const PriceEstimate = open({
  min: nullable(Num),
  avg: nullable(Num),
  max: nullable(Num),
  per_sqm: nullable(Num)
})

/**
 * Assumed (docs/ASSUMPTIONS.md): POST /api/v1/valuation/comparables-prices takes the comparables
 * v2 body and answers `{currency: "EUR", sale: {min, avg, max, per_sqm} | null, rent: {...} | null,
 * comparables_used}`.
 */
export const ValuationPrices = open({
  currency: nullable(Str),
  sale: nullable(PriceEstimate),
  rent: nullable(PriceEstimate),
  comparables_used: nullable(Int)
})
export type ValuationPrices = typeof ValuationPrices.Type
