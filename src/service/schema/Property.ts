/**
 * The property record of the token host (get-property-by-id, property searches) with all its
 * parts, its envelope, and match-by-listings. Open records (see Open.ts): identity fields are
 * required, every other field may be absent or null.
 */
import { Schema } from "effect"
import { Condition, EnergyRating, PropertyType, RentPeriod, RentStatus, ResultGroup, SaleStatus } from "./Enums.js"
import { Bool, DateString, Int, IntId, nullable, Num, open, Str } from "./Open.js"
import { ContactsInfo, Coordinates, Envelope, Features, Location } from "./Shared.js"

/** `sale_time_on_market` / `rent_time_on_market`. */
export const TimeOnMarket = open({
  date_start: nullable(DateString),
  date_end: nullable(DateString),
  days_on_market: nullable(Int),
  /** Already on the market when tracking began. */
  has_untracked_period: nullable(Bool)
})

export const SalePriceChange = open({
  date_start: nullable(DateString),
  date_end: nullable(DateString),
  sale_price_old: nullable(Num),
  sale_price_new: nullable(Num)
})
export const RentPriceChange = open({
  date_start: nullable(DateString),
  date_end: nullable(DateString),
  rent_price_old: nullable(Num),
  rent_price_new: nullable(Num)
})
export const SaleStatusChange = open({
  date_start: nullable(DateString),
  date_end: nullable(DateString),
  sale_status_old: nullable(SaleStatus.schema),
  sale_status_new: nullable(SaleStatus.schema)
})
export const RentStatusChange = open({
  date_start: nullable(DateString),
  date_end: nullable(DateString),
  rent_status_old: nullable(RentStatus.schema),
  rent_status_new: nullable(RentStatus.schema)
})
/** Deprecated `history` item. */
export const HistoryEntry = open({
  sale_price: nullable(Num),
  sale_currency: nullable(Str),
  rent_price: nullable(Num),
  rent_currency: nullable(Str),
  changed_at: nullable(DateString)
})

/** `sale_price_last_change` / `rent_price_last_change`. */
export const PriceLastChange = open({
  change_date: nullable(DateString),
  old_value: nullable(Int),
  new_value: nullable(Int)
})

/** An agency or company advertising a listing. */
export const Company = open({
  name: nullable(Str),
  casafari_connect_on: nullable(Bool)
})

/** One listing (advert) of a property. */
export const Listing = open({
  listing_id: IntId,
  total_area: nullable(Int),
  plot_area: nullable(Int),
  terrace_area: nullable(Int),
  bedrooms: nullable(Int),
  bathrooms: nullable(Int),
  rooms: nullable(Int),
  sale_status: nullable(SaleStatus.schema),
  sale_currency: nullable(Str),
  sale_price: nullable(Num),
  sale_price_base: nullable(Num),
  rent_status: nullable(RentStatus.schema),
  rent_currency: nullable(Str),
  rent_price: nullable(Num),
  rent_price_base: nullable(Num),
  /** France and overseas territories only. */
  agency_legal_id: nullable(Str),
  agency: nullable(Str),
  /** Active listings only. */
  listing_url: nullable(Str),
  /** Inactive listings only. */
  listing_old_url: nullable(Str),
  description: nullable(Str),
  /** Id on the source site. */
  listing_uid: nullable(Str),
  construction_year: nullable(Int),
  source_name: nullable(Str),
  contacts_info: nullable(ContactsInfo),
  /** Deprecated: use `energy_rating`. */
  energy_certificate: nullable(Str),
  energy_rating: nullable(EnergyRating.schema),
  heating_type: nullable(Str),
  /** Germany only, metres. */
  ceiling_label: nullable(Schema.Union(Num, Str)),
  /** Germany only, percent. */
  commission: nullable(Num),
  /** Germany only, m². */
  min_rent_area: nullable(Num),
  companies: nullable(Schema.Array(Company)),
  created_at: nullable(DateString),
  floor_number: nullable(Int),
  is_private: nullable(Bool),
  casafari_connect: nullable(Bool),
  thumbnails: nullable(Schema.Array(Str)),
  pictures: nullable(Schema.Array(Str)),
  ref_numbers: nullable(Schema.Array(Str)),
  is_private_property: nullable(Bool),
  is_auction_property: nullable(Bool),
  is_bank_property: nullable(Bool)
})
export type Listing = typeof Listing.Type

/** The property record. Fields after `thumbnails` are not shown by the spec; they are kept as extras. */
export const Property = open({
  property_id: IntId,
  primary_listing_id: nullable(IntId),
  type: nullable(PropertyType),
  type_group: nullable(ResultGroup),
  operations: nullable(Schema.Array(Str)),
  property_url: nullable(Str),
  changed_at: nullable(DateString),
  location: nullable(Location),
  locations_structure: nullable(Schema.Array(Location)),
  coordinates: nullable(Coordinates),
  address: nullable(Str),
  zip_code: nullable(Str),
  /** Kilometres; only when the request defined `custom_location_boundary.circle`. */
  distance: nullable(Num),
  total_area: nullable(Int),
  living_area: nullable(Int),
  plot_area: nullable(Int),
  terrace_area: nullable(Int),
  bathrooms: nullable(Int),
  bedrooms: nullable(Int),
  rooms: nullable(Int),
  construction_year: nullable(Int),
  number_of_parkings: nullable(Int),
  /** Negative = underground. */
  floor_number: nullable(Int),
  description: nullable(Str),
  condition: nullable(Condition.schema),
  features: nullable(Features),
  is_private_property: nullable(Bool),
  is_auction_property: nullable(Bool),
  is_bank_property: nullable(Bool),
  sale_status: nullable(SaleStatus.schema),
  sale_currency: nullable(Str),
  sale_price: nullable(Num),
  sale_price_base: nullable(Num),
  sale_price_per_sqm: nullable(Num),
  sale_price_per_sqm_base: nullable(Num),
  rent_status: nullable(RentStatus.schema),
  rent_currency: nullable(Str),
  rent_price: nullable(Num),
  rent_price_base: nullable(Num),
  rent_price_per_sqm: nullable(Num),
  rent_price_per_sqm_base: nullable(Num),
  rent_period: nullable(RentPeriod.schema),
  sale_time_on_market: nullable(TimeOnMarket),
  rent_time_on_market: nullable(TimeOnMarket),
  sale_price_history: nullable(Schema.Array(SalePriceChange)),
  rent_price_history: nullable(Schema.Array(RentPriceChange)),
  sale_status_history: nullable(Schema.Array(SaleStatusChange)),
  rent_status_history: nullable(Schema.Array(RentStatusChange)),
  /** Deprecated. */
  history: nullable(Schema.Array(HistoryEntry)),
  sale_price_last_change: nullable(PriceLastChange),
  rent_price_last_change: nullable(PriceLastChange),
  listings: nullable(Schema.Array(Listing)),
  thumbnails: nullable(Schema.Array(Str))
})
export type Property = typeof Property.Type

/**
 * Envelope of get-property-by-id: `results` is the property. Assumed: the property searches
 * (v1, v2) answer the same envelope with a list of properties (`PropertyListEnvelope`).
 */
export const PropertyEnvelope = Envelope(Property)
export type PropertyEnvelope = typeof PropertyEnvelope.Type
export const PropertyListEnvelope = Envelope(Schema.Array(Property))
export type PropertyListEnvelope = typeof PropertyListEnvelope.Type

/** One item of the match-by-listings answer: a property and its listing ids. */
export const PropertyMatch = open({
  property_id: IntId,
  listing_ids: Schema.Array(IntId)
})
export const PropertyMatches = Schema.Array(PropertyMatch)
export type PropertyMatch = typeof PropertyMatch.Type
