/**
 * High Potential Seller Leads (platform host): homes around a point whose asking price was cut
 * repeatedly. The spec shows the two paths and `min_price_cuts` / `min_price_cut_pct` with their
 * defaults; everything else follows docs/ASSUMPTIONS.md ("Seller leads list", "Lead").
 */
import { Schema } from "effect"
import { DateString, nullable, open } from "./Open.js"
import { DateOnly, intBetween, numberBetween } from "./Rules.js"
import { SourcingProperty } from "./Sourcing.js"
import { ENVELOPE, type ResponseShape } from "../ResponseShape.js"

/**
 * Query of GET /v1/seller-leads. Assumed: `latitude`, `longitude` required; `radius_km`
 * 0.1..50 (default 2); `min_price_cuts` at least 1 (default 1); `min_price_cut_pct` 0..100
 * (default 5); `since` a date; `limit` 1..200 (default 50); `offset` at least 0.
 */
export const SellerLeadsQuery = Schema.Struct({
  latitude: numberBetween(-90, 90),
  longitude: numberBetween(-180, 180),
  radius_km: Schema.optional(numberBetween(0.1, 50)),
  min_price_cuts: Schema.optional(intBetween(1, 1000)),
  min_price_cut_pct: Schema.optional(numberBetween(0, 100)),
  since: Schema.optional(DateOnly),
  limit: Schema.optional(intBetween(1, 200)),
  offset: Schema.optional(intBetween(0, Number.MAX_SAFE_INTEGER))
})
export type SellerLeadsQuery = typeof SellerLeadsQuery.Type

/** Assumed: one dated asking price. */
export const LeadPricePoint = open({ date: DateString, price: Schema.Number })
/** Assumed: one dated status. */
export const LeadStatusPoint = open({ date: DateString, status: Schema.String })

/**
 * Assumed: a lead, `id` = `lead_<property_id>`, `property_id` = `prop_<property_id>` (the
 * Property Sourcing id of its home).
 */
export const Lead = open({
  id: Schema.String,
  property_id: nullable(Schema.String),
  home: nullable(SourcingProperty),
  price_cuts: nullable(Schema.Int),
  price_cut_pct: nullable(Schema.Number),
  first_price: nullable(Schema.Number),
  current_price: nullable(Schema.Number),
  price_history: nullable(Schema.Array(LeadPricePoint)),
  status_history: nullable(Schema.Array(LeadStatusPoint))
})
export type Lead = typeof Lead.Type

/** Assumed: the list answer `{count, returned, results, next}`; `next` a URL or null. */
export const SellerLeadsPage = open({
  count: Schema.Int,
  returned: Schema.Int,
  results: Schema.Array(Lead),
  next: nullable(Schema.String)
})
export type SellerLeadsPage = typeof SellerLeadsPage.Type

/**
 * Assumed (payload not shown): the list is `{count, next, results}` with offset pages.
 * Setting: `service.shapes.seller_leads`.
 */
export const SELLER_LEADS_SHAPE: ResponseShape = ENVELOPE
