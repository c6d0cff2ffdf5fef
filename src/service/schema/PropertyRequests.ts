/**
 * Request bodies and queries of the token host's Properties operations.
 */
import { Schema } from "effect"
import { Operation, PROPERTY_TYPES, TYPE_GROUPS } from "./Enums.js"
import { intBetween, items, oneOf, typesOfOneGroup } from "./Rules.js"
import { ENVELOPE, type ResponseShape } from "../ResponseShape.js"

const MAX_INT = 2147483647

/** POST /api/v1/properties/match-by-listings: `listing_ids` required, at most 100, each at least 1. */
export const MatchByListingsRequest = Schema.Struct({
  listing_ids: items(intBetween(1, MAX_INT), 0, 100)
})
export type MatchByListingsRequest = typeof MatchByListingsRequest.Type

/**
 * Query of GET /api/v1/properties/search/{property_id}: `offset` at most 50000 (spec).
 * Assumed: `limit` is 1..500 (docs/ASSUMPTIONS.md: default 50, at most 500).
 */
export const PropertyByIdQuery = Schema.Struct({
  limit: Schema.optional(intBetween(1, 500)),
  offset: Schema.optional(intBetween(0, 50000))
})
export type PropertyByIdQuery = typeof PropertyByIdQuery.Type

const propertySearchFields = {
  location_ids: Schema.optional(items(intBetween(1, MAX_INT), 1)),
  types: Schema.optional(typesOfOneGroup(oneOf(PROPERTY_TYPES), TYPE_GROUPS, 1)),
  operation: Schema.optional(oneOf(Operation.values)),
  min_price: Schema.optional(intBetween(0, MAX_INT)),
  max_price: Schema.optional(intBetween(1, MAX_INT)),
  limit: Schema.optional(intBetween(1, 500))
}

const priceOrder = (b: { readonly min_price?: number | undefined; readonly max_price?: number | undefined }): Schema.FilterOutput =>
  b.min_price === undefined ||
  b.max_price === undefined ||
  b.min_price <= b.max_price || {
    path: ["max_price"],
    message: `must not be below min_price (got min_price ${b.min_price}, max_price ${b.max_price})`
  }

/**
 * Assumed (docs/ASSUMPTIONS.md): POST /api/v1/properties/search body
 * `{location_ids?, types?, operation?, min_price?, max_price?, limit?, offset?}`; `next` carries
 * `?limit=&offset=` and is followed by POSTing the same body to it. `offset` at most 50000.
 */
export const PropertySearchV1Request = Schema.Struct({
  ...propertySearchFields,
  offset: Schema.optional(intBetween(0, 50000))
}).pipe(Schema.filter((b) => priceOrder(b)))
export type PropertySearchV1Request = typeof PropertySearchV1Request.Type

/**
 * Assumed (docs/ASSUMPTIONS.md): POST /api/v2/properties/search takes the v1 body without
 * `offset`; `next` carries `?cursor=<opaque>`.
 */
export const PropertySearchV2Request = Schema.Struct(propertySearchFields).pipe(Schema.filter((b) => priceOrder(b)))
export type PropertySearchV2Request = typeof PropertySearchV2Request.Type

/**
 * Assumed (properties search v1/v2 payloads not shown): `{count, next, results}`, the next page
 * being the `next` URL. Setting: `service.shapes.properties_search`.
 */
export const PROPERTIES_SEARCH_SHAPE: ResponseShape = ENVELOPE
