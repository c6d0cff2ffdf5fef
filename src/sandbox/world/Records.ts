/**
 * Record types the world serves. Field names are exactly the spec's (token host records) or
 * docs/ASSUMPTIONS.md's (platform records). Dates are `YYYY-MM-DD`, date-times ISO-8601 UTC
 * (`YYYY-MM-DDTHH:mm:ssZ`).
 */

/** A node of the location tree (references `locations` shape; `location` / `locations_structure` items too). */
export interface LocationNode {
  readonly location_id: number
  readonly name: string
  /** Assumed: `country`, `region`, `municipality` or `district` (leaves are districts). */
  readonly administrative_level: "country" | "region" | "municipality" | "district"
  readonly zip_codes: ReadonlyArray<string>
  /** null for a country. */
  readonly parent_id: number | null
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string
}

export interface Coordinates {
  readonly latitude: number
  readonly longitude: number
}

/** `features` of the property record (7 members). */
export interface Features {
  readonly floor: string | null
  readonly orientation: string | null
  /** Deprecated: the first of `views` or null. */
  readonly view: string | null
  readonly views: ReadonlyArray<string>
  /** Deprecated: the first of `directions` or null. */
  readonly direction: string | null
  readonly directions: ReadonlyArray<string>
  readonly characteristics: ReadonlyArray<string>
}

export interface TimeOnMarket {
  readonly date_start: string
  /** Assumed: the date of the sandbox's now while the listing is still on the market. */
  readonly date_end: string
  readonly days_on_market: number
  readonly has_untracked_period: boolean
}

/**
 * Assumed: one item per price change; `date_start` is the change date (the alert date),
 * `date_end` the next change's date, or the now date while the price holds.
 */
export interface SalePriceHistoryItem {
  readonly date_start: string
  readonly date_end: string
  readonly sale_price_old: number
  readonly sale_price_new: number
}
export interface RentPriceHistoryItem {
  readonly date_start: string
  readonly date_end: string
  readonly rent_price_old: number
  readonly rent_price_new: number
}
/** Assumed: one item per status event (new, reserved, sold/rented, delisted), dated like price history. */
export interface SaleStatusHistoryItem {
  readonly date_start: string
  readonly date_end: string
  readonly sale_status_old: string
  readonly sale_status_new: string
}
export interface RentStatusHistoryItem {
  readonly date_start: string
  readonly date_end: string
  readonly rent_status_old: string
  readonly rent_status_new: string
}
/** Deprecated `history` item: one per price set (listing and each change). */
export interface LegacyHistoryItem {
  readonly sale_price: number | null
  readonly sale_currency: string | null
  readonly rent_price: number | null
  readonly rent_currency: string | null
  readonly changed_at: string
}
export interface PriceLastChange {
  readonly change_date: string
  readonly old_value: number
  readonly new_value: number
}
export interface ContactsInfo {
  readonly name: string | null
  readonly email: string | null
  readonly phone: string | null
}

/** One listing (advert) of a property; every field the spec lists. */
export interface Listing {
  readonly listing_id: number
  readonly total_area: number
  readonly plot_area: number
  readonly terrace_area: number
  readonly bedrooms: number
  readonly bathrooms: number
  readonly rooms: number
  readonly sale_status: string
  readonly sale_currency: string | null
  readonly sale_price: number | null
  readonly sale_price_base: number | null
  readonly rent_status: string
  readonly rent_currency: string | null
  readonly rent_price: number | null
  readonly rent_price_base: number | null
  /** France only (SIREN-like), else null. */
  readonly agency_legal_id: string | null
  readonly agency: string
  /** Active listings only. */
  readonly listing_url: string | null
  /** Inactive listings only. */
  readonly listing_old_url: string | null
  readonly description: string
  readonly listing_uid: string
  readonly construction_year: number
  readonly source_name: string
  readonly contacts_info: ContactsInfo
  readonly energy_certificate: string
  readonly energy_rating: string
  readonly heating_type: string | null
  /** Germany only (metres), else null. */
  readonly ceiling_label: number | null
  /** Germany only (percent), else null. */
  readonly commission: number | null
  /** Germany only (m²), else null. */
  readonly min_rent_area: number | null
  readonly companies: ReadonlyArray<{ readonly name: string; readonly casafari_connect_on: boolean }>
  readonly created_at: string
  readonly floor_number: number
  readonly is_private: boolean
  readonly casafari_connect: boolean
  readonly thumbnails: ReadonlyArray<string>
  readonly pictures: ReadonlyArray<string>
  readonly ref_numbers: ReadonlyArray<string>
  readonly is_private_property: boolean
  readonly is_auction_property: boolean
  readonly is_bank_property: boolean
}

/** The token host's property record (get-property-by-id `results`, properties search items). */
/** Status and prices of both operations, as properties and comparables carry them. */
export interface Prices {
  readonly sale_status: string
  readonly sale_currency: string | null
  readonly sale_price: number | null
  readonly sale_price_base: number | null
  readonly sale_price_per_sqm: number | null
  readonly sale_price_per_sqm_base: number | null
  readonly rent_status: string
  readonly rent_currency: string | null
  readonly rent_price: number | null
  readonly rent_price_base: number | null
}

export interface PropertyRecord extends Prices {
  readonly property_id: number
  readonly primary_listing_id: number
  readonly type: string
  readonly type_group: string
  readonly operations: ReadonlyArray<string>
  readonly property_url: string | null
  readonly changed_at: string
  readonly location: LocationNode
  /** Assumed: ordered from the property's location up to the country. */
  readonly locations_structure: ReadonlyArray<LocationNode>
  readonly coordinates: Coordinates
  readonly address: string
  readonly zip_code: string
  /** Set by hosts for circle searches; null otherwise. */
  readonly distance: number | null
  readonly total_area: number
  readonly living_area: number
  readonly plot_area: number
  readonly terrace_area: number
  readonly bathrooms: number
  readonly bedrooms: number
  readonly rooms: number
  readonly construction_year: number
  readonly number_of_parkings: number | null
  readonly floor_number: number
  readonly description: string
  readonly condition: string
  readonly features: Features
  readonly is_private_property: boolean
  readonly is_auction_property: boolean
  readonly is_bank_property: boolean
  readonly rent_price_per_sqm: number | null
  readonly rent_price_per_sqm_base: number | null
  readonly rent_period: string
  readonly sale_time_on_market: TimeOnMarket | null
  readonly rent_time_on_market: TimeOnMarket | null
  readonly sale_price_history: ReadonlyArray<SalePriceHistoryItem>
  readonly rent_price_history: ReadonlyArray<RentPriceHistoryItem>
  readonly sale_status_history: ReadonlyArray<SaleStatusHistoryItem>
  readonly rent_status_history: ReadonlyArray<RentStatusHistoryItem>
  readonly history: ReadonlyArray<LegacyHistoryItem>
  readonly sale_price_last_change: PriceLastChange | null
  readonly rent_price_last_change: PriceLastChange | null
  readonly listings: ReadonlyArray<Listing>
}

/** The token host's alert record (every field of "Alert record"). */
export interface AlertRecord {
  readonly alert_id: number
  readonly listing_id: number
  readonly ref: string
  readonly alert_type: string
  readonly alert_subtype: string
  readonly old_value: string
  readonly new_value: string
  readonly alert_date: string
  readonly alert_date_and_time: string | null
  readonly property_url: string | null
  readonly listing_url: string | null
  readonly listing_old_url: string | null
  readonly listing_uid: string
  readonly property_id: number
  readonly title: string
  readonly type: string
  readonly type_group: string
  readonly location: LocationNode
  readonly locations_structure: ReadonlyArray<LocationNode>
  readonly address: string
  readonly zip_code: string
  readonly cadastral_reference: string | null
  readonly coordinates: Coordinates
  readonly condition: string
  readonly contacts_info: ContactsInfo
  readonly total_area: number
  readonly living_area: number
  readonly plot_area: number
  readonly terrace_area: number
  readonly bedrooms: number
  readonly rooms: number
  readonly bathrooms: number
  readonly construction_year: number
  readonly features: Features
  readonly operations: ReadonlyArray<string>
  readonly is_bank_property: boolean
  readonly is_auction_property: boolean
  readonly is_new_development_property: boolean
  readonly is_private_property: boolean
  readonly sale_status: string
  readonly sale_currency: string | null
  readonly sale_price_base: number | null
  readonly sale_price: number | null
  readonly sale_price_per_sqm: number | null
  readonly sale_price_per_sqm_base: number | null
  readonly rent_status: string
  readonly rent_currency: string | null
  readonly rent_price_base: number | null
  readonly rent_price: number | null
  readonly rent_price_per_sqm: number | null
  readonly rent_price_per_sqm_base: number | null
  readonly rent_period: string
  readonly agency_legal_id: string | null
  readonly agency: string
  readonly agent: string | null
  readonly source_name: string
  readonly description: string
  readonly thumbnails: ReadonlyArray<string>
  readonly pictures: ReadonlyArray<string>
  readonly created_at: string
  /** null until photo processing finishes (5 minutes after `created_at`, sandbox time). */
  readonly created_at_with_photos: string | null
  readonly updated_at: string
  readonly energy_certificate: string
  readonly energy_rating: string
  readonly heating_type: string | null
  readonly available_from: string | null
  readonly available_to: string | null
}

/** Comparable result (comparables v1/v2 items). */
export interface ComparableResult extends Prices {
  readonly property_id: number
  readonly property_url: string | null
  readonly primary_listing_id: number
  readonly type: string
  readonly type_group: string
  readonly coordinates: Coordinates
  readonly location: LocationNode
  readonly locations_structure: ReadonlyArray<LocationNode>
  readonly address: string
  readonly zip_code: string
  /** Kilometres from the circle's centre; null for polygon searches. */
  readonly distance: number | null
  readonly construction_year: number
  readonly total_area: number
  readonly living_area: number
  readonly plot_area: number
  readonly terrace_area: number
  readonly bedrooms: number
  readonly rooms: number
  readonly bathrooms: number
  readonly floor_number: number
  readonly condition: string
  readonly features: Features
  readonly operations: ReadonlyArray<string>
}

/** Property Sourcing search result (docs/ASSUMPTIONS.md "SourcingProperty"). */
export interface SourcingProperty {
  readonly id: string
  readonly property_id: number
  readonly country: string
  readonly location_id: number
  readonly location_name: string
  readonly type: string
  readonly type_group: string
  readonly operation: "sale" | "rent"
  /** Current asking price in EUR (monthly for rent). */
  readonly price_eur: number
  readonly area_m2: number
  readonly bedrooms: number
  readonly latitude: number
  readonly longitude: number
  readonly listings_count: number
  readonly agencies: ReadonlyArray<string>
  /** Date-time of the property's latest event up to now. */
  readonly updated_at: string
}

/** Property Sourcing detail (docs/ASSUMPTIONS.md "Property detail"). */
export interface SourcingDetail extends SourcingProperty {
  readonly bathrooms: number
  readonly plot_area_m2: number
  readonly living_area_m2: number
  readonly construction_year: number
  readonly energy_rating: string
  readonly condition: string
  readonly features: {
    readonly floor: string | null
    readonly orientation: string | null
    readonly views: ReadonlyArray<string>
    readonly directions: ReadonlyArray<string>
    readonly characteristics: ReadonlyArray<string>
  }
  readonly address: string
  readonly description: string
  /** The current status of the property's operation (sale_status or rent_status). */
  readonly status: string
}

/** High Potential Seller Lead (docs/ASSUMPTIONS.md "Lead"). */
export interface Lead {
  readonly id: string
  readonly property_id: string
  readonly home: SourcingProperty
  readonly price_cuts: number
  readonly price_cut_pct: number
  readonly first_price: number
  readonly current_price: number
  readonly price_history: ReadonlyArray<{ readonly date: string; readonly price: number }>
  readonly status_history: ReadonlyArray<{ readonly date: string; readonly status: string }>
}

/** References. */
export interface Agency {
  readonly agency_id: number
  readonly name: string
  readonly country: string
}
export interface Agent {
  readonly agent_id: number
  readonly name: string
  readonly agency_id: number
}
export interface FeatureGroup {
  readonly group: string
  readonly names: ReadonlyArray<string>
}
export interface TypeReference {
  readonly name: string
  readonly group: string
  readonly countries: ReadonlyArray<string>
}
