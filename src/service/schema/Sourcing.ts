/**
 * Property Sourcing (platform host): structured search, plain-language describe, cursor pages,
 * property detail and resolve. The spec shows none of the payloads; every shape here follows
 * docs/ASSUMPTIONS.md ("Property Sourcing ...", "SourcingProperty", "Property detail",
 * "Describe body", "Resolve").
 */
import { Schema } from "effect"
import { Condition, COUNTRIES, EnergyRating, Operation, PROPERTY_TYPES, PropertyType, TYPE_GROUPS, ResultGroup } from "./Enums.js"
import { DateTimeString, Int, nullable, Num, open, Str } from "./Open.js"
import { exactlyOne, intBetween, items, NonNegative, oneOf, show, typesOfOneGroup } from "./Rules.js"
import { Features } from "./Shared.js"
import { ENVELOPE, type ResponseShape } from "../ResponseShape.js"

/** Assumed: a country of the 16 (docs/ASSUMPTIONS.md), ISO alpha-2 upper case. */
export const SourcingCountry = oneOf(COUNTRIES)

const LocationIds = items(intBetween(1, 2147483647), 1)
const Limit = intBetween(1, 200)

/** Assumed: POST /v1/property-sourcing/searches body. */
export const SourcingSearchRequest = Schema.Struct({
  country: SourcingCountry,
  location_ids: Schema.optional(LocationIds),
  operation: oneOf(Operation.values),
  types: Schema.optional(typesOfOneGroup(oneOf(PROPERTY_TYPES), TYPE_GROUPS, 1)),
  price_min: Schema.optional(NonNegative),
  price_max: Schema.optional(NonNegative),
  area_min: Schema.optional(NonNegative),
  area_max: Schema.optional(NonNegative),
  bedrooms_min: Schema.optional(intBetween(0, 15000)),
  /** Default 50. */
  limit: Schema.optional(Limit)
}).pipe(
  Schema.filter((b) => [
    b.price_min === undefined ||
      b.price_max === undefined ||
      b.price_min <= b.price_max || { path: ["price_max"], message: `must not be below price_min (got ${b.price_max} < ${b.price_min})` },
    b.area_min === undefined ||
      b.area_max === undefined ||
      b.area_min <= b.area_max || { path: ["area_max"], message: `must not be below area_min (got ${b.area_max} < ${b.area_min})` }
  ])
)
export type SourcingSearchRequest = typeof SourcingSearchRequest.Type

const Phrase = Str.pipe(Schema.filter((s) => s.trim().length > 0 || "must not be an empty phrase"))

/**
 * Assumed: POST /v1/property-sourcing/searches/describe body. Exactly one of `tags` (1..20
 * phrases) or `description` (split by the server at commas, semicolons and " and ").
 */
export const DescribeRequest = Schema.Struct({
  tags: Schema.optional(items(Phrase, 1, 20)),
  description: Schema.optional(Phrase),
  country: SourcingCountry,
  location_ids: Schema.optional(LocationIds),
  limit: Schema.optional(Limit)
}).pipe(Schema.filter((b) => exactlyOne(b, ["tags", "description"], [])))
export type DescribeRequest = typeof DescribeRequest.Type

/** Assumed: POST /v1/property-sourcing/properties/resolve body: exactly one of `url`, `reference`, `listing_id`. */
export const ResolveRequest = Schema.Struct({
  url: Schema.optional(Str.pipe(Schema.filter((s) => /^https?:\/\/\S+$/.test(s) || `must be an http(s) link (got ${show(s)})`))),
  reference: Schema.optional(Phrase),
  listing_id: Schema.optional(intBetween(1, Number.MAX_SAFE_INTEGER))
}).pipe(Schema.filter((b) => exactlyOne(b, ["url", "reference", "listing_id"], [])))
export type ResolveRequest = typeof ResolveRequest.Type

/** Assumed: a search result, `id` = `prop_<property_id>`. */
export const sourcingPropertyFields = {
  id: Str,
  property_id: Int,
  country: nullable(Str),
  location_id: nullable(Int),
  location_name: nullable(Str),
  type: nullable(PropertyType),
  type_group: nullable(ResultGroup),
  operation: nullable(Operation.schema),
  /** Current asking price in EUR (monthly for rent). */
  price_eur: nullable(Num),
  area_m2: nullable(Num),
  bedrooms: nullable(Int),
  latitude: nullable(Num),
  longitude: nullable(Num),
  listings_count: nullable(Int),
  agencies: nullable(Schema.Array(Str)),
  updated_at: nullable(DateTimeString)
}
export const SourcingProperty = open(sourcingPropertyFields)
export type SourcingProperty = typeof SourcingProperty.Type

/** Assumed: GET /v1/property-sourcing/properties/{prop_id}: the result fields plus these. */
export const SourcingPropertyDetail = open({
  ...sourcingPropertyFields,
  bathrooms: nullable(Int),
  plot_area_m2: nullable(Num),
  living_area_m2: nullable(Num),
  construction_year: nullable(Int),
  energy_rating: nullable(EnergyRating.schema),
  condition: nullable(Condition.schema),
  /** `features` without the deprecated singular members. */
  features: nullable(Features),
  address: nullable(Str),
  description: nullable(Str),
  /** Current status of the property's operation. */
  status: nullable(Str)
})
export type SourcingPropertyDetail = typeof SourcingPropertyDetail.Type

/** Assumed: the search answer, also each cursor page; `next` is a stateless cursor URL or null. */
export const sourcingSearchFields = {
  search_id: Str,
  count: Int,
  returned: Int,
  results: Schema.Array(SourcingProperty),
  next: nullable(Str)
}
export const SourcingSearchResponse = open(sourcingSearchFields)
export type SourcingSearchResponse = typeof SourcingSearchResponse.Type

/** Assumed: the describe answer: the search answer plus `tags`, the phrases used. */
export const DescribeResponse = open({ ...sourcingSearchFields, tags: Schema.Array(Str) })
export type DescribeResponse = typeof DescribeResponse.Type

/** Assumed: the resolve answer; nothing matched is a 404 `not_found` problem. */
export const ResolveResponse = open({
  matched_by: nullable(Str),
  property: SourcingPropertyDetail
})
export type ResolveResponse = typeof ResolveResponse.Type

/**
 * Assumed (payloads not shown): a search, describe or next page is `{count, next, results}`, the
 * next page being the `next` URL to follow. Settings: `service.shapes.sourcing_search`,
 * `.sourcing_describe`, `.sourcing_next`.
 */
export const SOURCING_PAGE_SHAPE: ResponseShape = ENVELOPE
