/**
 * The token host's property record as rows: `properties` (a history table: a new version when
 * the property changes, `properties_current` the latest) plus its child tables
 * `property_listings`, `property_price_history` and `property_status_history` (merged), linked by
 * `property_id`. Used by every pipeline that lands properties (by id, searches).
 */
import type { Listing, Property } from "../../service/schema/Property.js"
import { Property as PropertySchema, Listing as ListingSchema } from "../../service/schema/Property.js"
import type { PageContext } from "../PageContext.js"
import { flatTable } from "../Flatten.js"
import type { Row, Rows } from "../Table.js"
import { countryCode } from "../Countries.js"
import {
  BASE_CURRENCY,
  COMPANIES,
  CONTACTS,
  FEATURES,
  LOCATIONS,
  MONEY,
  PRICE_HISTORY_ITEMS,
  PRICE_LAST_CHANGE,
  STRINGS,
  TIME_ON_MARKET
} from "./NestedTypes.js"

type Ctx = PageContext
/** The service's name of the country: the top (last) node of `locations_structure` (`Spain`). */
const countryRawOf = (p: Property) => {
  const s = p.locations_structure
  const top = s && s.length > 0 ? s[s.length - 1] : undefined
  return top?.name ?? null
}

export const propertiesTable = <const N extends string = "properties">(name: N = "properties" as N) =>
  flatTable.of<Property, Ctx>()(
    name,
    {
      property_id: "BIGINT",
      primary_listing_id: "BIGINT",
      type: "VARCHAR",
      type_group: "VARCHAR",
      operations: STRINGS,
      property_url: "VARCHAR",
      changed_at: "DATE",
      country: ["VARCHAR", (p) => countryCode(countryRawOf(p))],
      country_raw: ["VARCHAR", countryRawOf],
      location_id: ["BIGINT", (p) => p.location?.location_id],
      location_name: ["VARCHAR", (p) => p.location?.name],
      locations_structure: LOCATIONS,
      latitude: ["DOUBLE", (p) => p.coordinates?.latitude],
      longitude: ["DOUBLE", (p) => p.coordinates?.longitude],
      address: "VARCHAR",
      zip_code: "VARCHAR",
      distance: "DOUBLE",
      total_area: "BIGINT",
      living_area: "BIGINT",
      plot_area: "BIGINT",
      terrace_area: "BIGINT",
      bathrooms: "INTEGER",
      bedrooms: "INTEGER",
      rooms: "INTEGER",
      construction_year: "INTEGER",
      number_of_parkings: "INTEGER",
      floor_number: "INTEGER",
      description: "VARCHAR",
      condition: "VARCHAR",
      features: FEATURES,
      is_private_property: "BOOLEAN",
      is_auction_property: "BOOLEAN",
      is_bank_property: "BOOLEAN",
      sale_status: "VARCHAR",
      sale_currency: "VARCHAR",
      sale_price: MONEY,
      sale_price_base: MONEY,
      sale_price_per_sqm: MONEY,
      sale_price_per_sqm_base: MONEY,
      rent_status: "VARCHAR",
      rent_currency: "VARCHAR",
      rent_price: MONEY,
      rent_price_base: MONEY,
      rent_price_per_sqm: MONEY,
      rent_price_per_sqm_base: MONEY,
      base_currency: ["VARCHAR", () => BASE_CURRENCY],
      rent_period: "VARCHAR",
      sale_days_on_market: ["INTEGER", (p) => p.sale_time_on_market?.days_on_market],
      rent_days_on_market: ["INTEGER", (p) => p.rent_time_on_market?.days_on_market],
      sale_time_on_market: TIME_ON_MARKET,
      rent_time_on_market: TIME_ON_MARKET,
      sale_price_last_change: PRICE_LAST_CHANGE,
      rent_price_last_change: PRICE_LAST_CHANGE,
      listings_count: ["INTEGER", (p) => p.listings?.length ?? 0],
      thumbnails: STRINGS,
      history: PRICE_HISTORY_ITEMS,
      extracted_at: ["TIMESTAMPTZ", (_p, c) => c.extractedAt]
    },
    {
      primaryKey: ["property_id"],
      // every version of a property (price and status over time); `properties_current` is the latest
      disposition: "history",
      // they tick every day (days on market) or depend on the query (distance): no new version
      volatile: ["distance", "sale_days_on_market", "rent_days_on_market", "sale_time_on_market", "rent_time_on_market"],
      partitionBy: ["country"],
      // listings and histories go to child tables, not to `extra`
      extraOf: [
        ...Object.keys(PropertySchema.fields),
        "listings",
        "sale_price_history",
        "rent_price_history",
        "sale_status_history",
        "rent_status_history"
      ]
    }
  )

type ListingCtx = { readonly propertyId: number | bigint }
export const listingsTable = <const N extends string = "property_listings">(name: N = "property_listings" as N) =>
  flatTable.of<Listing, ListingCtx>()(
    name,
    {
      listing_id: "BIGINT",
      property_id: ["BIGINT!", (_l, c) => c.propertyId],
      agency: "VARCHAR",
      agency_legal_id: "VARCHAR",
      source_name: "VARCHAR",
      listing_url: "VARCHAR",
      listing_old_url: "VARCHAR",
      listing_uid: "VARCHAR",
      sale_status: "VARCHAR",
      sale_currency: "VARCHAR",
      sale_price: MONEY,
      sale_price_base: MONEY,
      rent_status: "VARCHAR",
      rent_currency: "VARCHAR",
      rent_price: MONEY,
      rent_price_base: MONEY,
      base_currency: ["VARCHAR", () => BASE_CURRENCY],
      total_area: "BIGINT",
      plot_area: "BIGINT",
      terrace_area: "BIGINT",
      bedrooms: "INTEGER",
      bathrooms: "INTEGER",
      rooms: "INTEGER",
      construction_year: "INTEGER",
      floor_number: "INTEGER",
      energy_rating: "VARCHAR",
      energy_certificate: "VARCHAR",
      heating_type: "VARCHAR",
      ceiling_label: "VARCHAR",
      commission: "DOUBLE",
      min_rent_area: "DOUBLE",
      created_at: "DATE",
      is_private: "BOOLEAN",
      casafari_connect: "BOOLEAN",
      is_private_property: "BOOLEAN",
      is_auction_property: "BOOLEAN",
      is_bank_property: "BOOLEAN",
      description: "VARCHAR",
      contacts_info: CONTACTS,
      companies: COMPANIES,
      ref_numbers: STRINGS,
      thumbnails: STRINGS,
      pictures: STRINGS
    },
    { primaryKey: ["listing_id"], disposition: "merge", extraOf: Object.keys(ListingSchema.fields) }
  )

const priceHistory = flatTable.of<Row, unknown>()(
  "property_price_history",
  {
    property_id: "BIGINT",
    operation: "VARCHAR",
    seq: "INTEGER",
    date_start: "DATE",
    date_end: "DATE",
    price_old: MONEY,
    price_new: MONEY,
    /** The property's currency of the operation (`sale_currency` / `rent_currency`). */
    currency: "VARCHAR"
  },
  { primaryKey: ["property_id", "operation", "seq"], disposition: "merge" }
)

const statusHistory = flatTable.of<Row, unknown>()(
  "property_status_history",
  {
    property_id: "BIGINT",
    operation: "VARCHAR",
    seq: "INTEGER",
    date_start: "DATE",
    date_end: "DATE",
    status_old: "VARCHAR",
    status_new: "VARCHAR"
  },
  { primaryKey: ["property_id", "operation", "seq"], disposition: "merge" }
)

/** Builds the rows of a property and its children under the given table names. */
export const propertyRows = (prefix = "") => {
  const props = propertiesTable(`${prefix}properties`)
  const listings = listingsTable(`${prefix}property_listings`)
  const prices = { ...priceHistory, spec: { ...priceHistory.spec, name: `${prefix}property_price_history` } }
  const statuses = { ...statusHistory, spec: { ...statusHistory.spec, name: `${prefix}property_status_history` } }
  const tables = [props.spec, listings.spec, prices.spec, statuses.spec]
  const toRows = (p: Property, ctx: Ctx): Rows => {
    const id = p.property_id
    const lctx = { propertyId: id }
    const priceRows: Array<Row> = []
    const statusRows: Array<Row> = []
    for (const [seq, h] of (p.sale_price_history ?? []).entries()) {
      if (h.date_start)
        priceRows.push(
          prices.row(
            {
              property_id: id,
              seq,
              operation: "sale",
              date_start: h.date_start,
              date_end: h.date_end ?? null,
              price_old: h.sale_price_old ?? null,
              price_new: h.sale_price_new ?? null,
              currency: p.sale_currency ?? null
            },
            ctx
          )
        )
    }
    for (const [seq, h] of (p.rent_price_history ?? []).entries()) {
      if (h.date_start)
        priceRows.push(
          prices.row(
            {
              property_id: id,
              seq,
              operation: "rent",
              date_start: h.date_start,
              date_end: h.date_end ?? null,
              price_old: h.rent_price_old ?? null,
              price_new: h.rent_price_new ?? null,
              currency: p.rent_currency ?? null
            },
            ctx
          )
        )
    }
    for (const [seq, h] of (p.sale_status_history ?? []).entries()) {
      if (h.date_start)
        statusRows.push(
          statuses.row(
            {
              property_id: id,
              seq,
              operation: "sale",
              date_start: h.date_start,
              date_end: h.date_end ?? null,
              status_old: h.sale_status_old ?? null,
              status_new: h.sale_status_new ?? null
            },
            ctx
          )
        )
    }
    for (const [seq, h] of (p.rent_status_history ?? []).entries()) {
      if (h.date_start)
        statusRows.push(
          statuses.row(
            {
              property_id: id,
              seq,
              operation: "rent",
              date_start: h.date_start,
              date_end: h.date_end ?? null,
              status_old: h.rent_status_old ?? null,
              status_new: h.rent_status_new ?? null
            },
            ctx
          )
        )
    }
    return {
      [props.spec.name]: [props.row(p, ctx)],
      [listings.spec.name]: (p.listings ?? []).map((l) => listings.row(l, lctx)),
      [prices.spec.name]: priceRows,
      [statuses.spec.name]: statusRows
    }
  }
  return { tables, toRows, mainTable: props.spec.name }
}
