/**
 * The alert record of the token host (legacy feed reads, alerts search, webhook deliveries'
 * `data`), its envelope, and the alert read requests.
 */
import { Schema } from "effect"
import {
  AlertOrderBy,
  AlertSubtype,
  AlertType,
  Condition,
  EnergyRating,
  PropertyType,
  RentPeriod,
  RentStatus,
  ResultGroup,
  SaleStatus
} from "./Enums.js"
import { Bool, DateString, DateTimeString, Int, IntId, nullable, Num, open, Str } from "./Open.js"
import { DateOnly, DateTime, intBetween, items, oneOf, SpecDateTime } from "./Rules.js"
import { AreasAndRooms, ContactsInfo, Coordinates, Envelope, Features, Location } from "./Shared.js"
import { ENVELOPE, type ResponseShape } from "../ResponseShape.js"

/** One alert: an event (new, price up/down, reserved, delisted, sold) on one listing. */
export const Alert = open({
  alert_id: IntId,
  listing_id: nullable(IntId),
  ref: nullable(Str),
  alert_type: nullable(AlertType.schema),
  alert_subtype: nullable(AlertSubtype.schema),
  old_value: nullable(Str),
  new_value: nullable(Str),
  alert_date: nullable(DateString),
  alert_date_and_time: nullable(Str),
  property_url: nullable(Str),
  listing_url: nullable(Str),
  listing_old_url: nullable(Str),
  listing_uid: nullable(Str),
  property_id: nullable(IntId),
  title: nullable(Str),
  type: nullable(PropertyType),
  type_group: nullable(ResultGroup),
  location: nullable(Location),
  locations_structure: nullable(Schema.Array(Location)),
  address: nullable(Str),
  zip_code: nullable(Str),
  cadastral_reference: nullable(Str),
  coordinates: nullable(Coordinates),
  condition: nullable(Condition.schema),
  contacts_info: nullable(ContactsInfo),
  ...AreasAndRooms,
  construction_year: nullable(Int),
  features: nullable(Features),
  operations: nullable(Schema.Array(Str)),
  is_bank_property: nullable(Bool),
  is_auction_property: nullable(Bool),
  is_new_development_property: nullable(Bool),
  is_private_property: nullable(Bool),
  sale_status: nullable(SaleStatus.schema),
  sale_currency: nullable(Str),
  sale_price_base: nullable(Num),
  sale_price: nullable(Num),
  sale_price_per_sqm: nullable(Num),
  sale_price_per_sqm_base: nullable(Num),
  rent_status: nullable(RentStatus.schema),
  rent_currency: nullable(Str),
  rent_price_base: nullable(Num),
  rent_price: nullable(Num),
  rent_price_per_sqm: nullable(Num),
  rent_price_per_sqm_base: nullable(Num),
  rent_period: nullable(RentPeriod.schema),
  agency_legal_id: nullable(Str),
  agency: nullable(Str),
  agent: nullable(Str),
  source_name: nullable(Str),
  description: nullable(Str),
  thumbnails: nullable(Schema.Array(Str)),
  pictures: nullable(Schema.Array(Str)),
  /** Date-time, UTC. */
  created_at: nullable(DateTimeString),
  /** Date-time, UTC; null until photo processing finishes. */
  created_at_with_photos: nullable(DateTimeString),
  updated_at: nullable(DateTimeString),
  /** Deprecated: use `energy_rating`. */
  energy_certificate: nullable(Str),
  energy_rating: nullable(EnergyRating.schema),
  heating_type: nullable(Str),
  available_from: nullable(DateString),
  available_to: nullable(DateString)
})
export type Alert = typeof Alert.Type

/** `{count, next, previous, results: [alert]}`. */
export const AlertEnvelope = Envelope(Schema.Array(Alert))
export type AlertEnvelope = typeof AlertEnvelope.Type

/**
 * Query of GET /api/v1/listing-alerts/feeds/{id}. The server ignores invalid date values; the
 * client refuses them so a typo does not silently widen a sync. Assumed: `limit` 1..500.
 */
export const FeedAlertsQuery = Schema.Struct({
  limit: Schema.optional(intBetween(1, 500)),
  offset: Schema.optional(intBetween(0, 50000)),
  order_by: Schema.optional(oneOf(AlertOrderBy.values)),
  alert_date_from: Schema.optional(DateOnly),
  alert_date_to: Schema.optional(DateOnly),
  created_at_from: Schema.optional(SpecDateTime),
  created_at_to: Schema.optional(SpecDateTime),
  created_at_with_photos_from: Schema.optional(SpecDateTime),
  created_at_with_photos_to: Schema.optional(SpecDateTime),
  /** Deprecated: use `alert_subtypes` in the feed filter. */
  alert_subtype: Schema.optional(oneOf(AlertSubtype.values))
})
export type FeedAlertsQuery = typeof FeedAlertsQuery.Type

/**
 * Assumed (docs/ASSUMPTIONS.md): POST /api/v1/listing-alerts/search body
 * `{location_ids?, alert_subtypes?, alert_date_from?, alert_date_to?, created_at_from?,
 * created_at_to?, limit?, offset?}` -> alert envelope.
 */
const alertSearchFields = <D extends Schema.Schema<string, string, never>>(dateTime: D) => ({
  location_ids: Schema.optional(items(intBetween(1, 2147483647), 1)),
  alert_subtypes: Schema.optional(items(oneOf(AlertSubtype.values), 1)),
  alert_date_from: Schema.optional(DateOnly),
  alert_date_to: Schema.optional(DateOnly),
  created_at_from: Schema.optional(dateTime),
  created_at_to: Schema.optional(dateTime),
  limit: Schema.optional(intBetween(1, 500)),
  offset: Schema.optional(intBetween(0, 50000))
})
/** What the client sends: date-times exactly as the spec writes them. */
export const AlertSearchRequest = Schema.Struct(alertSearchFields(SpecDateTime))
export type AlertSearchRequest = typeof AlertSearchRequest.Type
/** The same filters as a user writes them (date-times with a `Z` or a fraction accepted, sent in the spec's form). */
export const AlertSearchFilter = Schema.Struct(alertSearchFields(DateTime)).omit("limit", "offset")
export type AlertSearchFilter = typeof AlertSearchFilter.Type

/** Spec (alert envelope): `count`, `next`, `previous`, `results`. */
export const ALERT_ENVELOPE_SHAPE: ResponseShape = { ...ENVELOPE, returned: null }
