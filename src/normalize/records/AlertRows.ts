/**
 * The token host's alert record as rows: `alerts` (one row per alert, every field of the
 * record, merged by `alert_id`, partitioned by country) and `alert_feed_links` (which legacy
 * feed delivered which alert; an alert can match several feeds). Used by `alerts` (feed reads)
 * and `alerts-search`.
 */
import type { PageContext } from "../PageContext.js"
import { Alert } from "../../service/schema/Alert.js"
import { flatTable } from "../Flatten.js"
import type { Rows } from "../Table.js"
import { countryCode } from "../Countries.js"
import { BASE_CURRENCY, CONTACTS, FEATURES, LOCATION, LOCATIONS, MONEY, STRINGS } from "./NestedTypes.js"

type Ctx = PageContext

/** The service's name of an alert's country: the top (last) node of its `locations_structure`. */
const countryRawOf = (a: Alert) => {
  const s = a.locations_structure
  return s && s.length > 0 ? s[s.length - 1]!.name : null
}

export const alertsTable = flatTable.of<Alert, Ctx>()(
  "alerts",
  {
    alert_id: "BIGINT",
    listing_id: "BIGINT",
    ref: "VARCHAR",
    alert_type: "VARCHAR",
    alert_subtype: "VARCHAR",
    old_value: "VARCHAR",
    new_value: "VARCHAR",
    alert_date: "DATE",
    alert_date_and_time: "VARCHAR",
    property_url: "VARCHAR",
    listing_url: "VARCHAR",
    listing_old_url: "VARCHAR",
    listing_uid: "VARCHAR",
    property_id: "BIGINT",
    title: "VARCHAR",
    type: "VARCHAR",
    type_group: "VARCHAR",
    country: ["VARCHAR", (a) => countryCode(countryRawOf(a))],
    country_raw: ["VARCHAR", countryRawOf],
    location_id: ["BIGINT", (a) => a.location?.location_id],
    location_name: ["VARCHAR", (a) => a.location?.name],
    location: LOCATION,
    locations_structure: LOCATIONS,
    address: "VARCHAR",
    zip_code: "VARCHAR",
    cadastral_reference: "VARCHAR",
    latitude: ["DOUBLE", (a) => a.coordinates?.latitude],
    longitude: ["DOUBLE", (a) => a.coordinates?.longitude],
    condition: "VARCHAR",
    contacts_info: CONTACTS,
    total_area: "BIGINT",
    living_area: "BIGINT",
    plot_area: "BIGINT",
    terrace_area: "BIGINT",
    bedrooms: "INTEGER",
    rooms: "INTEGER",
    bathrooms: "INTEGER",
    construction_year: "INTEGER",
    features: FEATURES,
    operations: STRINGS,
    is_bank_property: "BOOLEAN",
    is_auction_property: "BOOLEAN",
    is_new_development_property: "BOOLEAN",
    is_private_property: "BOOLEAN",
    sale_status: "VARCHAR",
    sale_currency: "VARCHAR",
    sale_price_base: MONEY,
    sale_price: MONEY,
    sale_price_per_sqm: MONEY,
    sale_price_per_sqm_base: MONEY,
    rent_status: "VARCHAR",
    rent_currency: "VARCHAR",
    rent_price_base: MONEY,
    rent_price: MONEY,
    rent_price_per_sqm: MONEY,
    rent_price_per_sqm_base: MONEY,
    base_currency: ["VARCHAR", () => BASE_CURRENCY],
    rent_period: "VARCHAR",
    agency_legal_id: "VARCHAR",
    agency: "VARCHAR",
    agent: "VARCHAR",
    source_name: "VARCHAR",
    description: "VARCHAR",
    thumbnails: STRINGS,
    pictures: STRINGS,
    created_at: "TIMESTAMPTZ",
    created_at_with_photos: "TIMESTAMPTZ",
    updated_at: "TIMESTAMPTZ",
    energy_certificate: "VARCHAR",
    energy_rating: "VARCHAR",
    heating_type: "VARCHAR",
    available_from: "DATE",
    available_to: "DATE",
    extracted_at: ["TIMESTAMPTZ", (_a, c) => c.extractedAt]
  },
  {
    primaryKey: ["alert_id"],
    disposition: "merge",
    partitionBy: ["country"],
    extraOf: [...Object.keys(Alert.fields), "coordinates"]
  }
)

export const alertFeedLinksTable = flatTable.of<{ feed_id: number; alert_id: number | bigint }>()(
  "alert_feed_links",
  {
    feed_id: "BIGINT",
    alert_id: "BIGINT"
  },
  { primaryKey: ["feed_id", "alert_id"], disposition: "merge" }
)

/** The slice key of a legacy feed's reads: `feed=<id>`. */
export const feedSliceKey = (feedId: number) => `feed=${feedId}`
const feedOfSlice = (slice: string): number | undefined => {
  const m = /^feed=(\d+)$/.exec(slice)
  return m ? Number(m[1]) : undefined
}

/** Rows of one alert; a link row too when the page came from a feed's slice (`feed=<id>`). */
export const alertRows = (alert: Alert, ctx: Ctx): Rows => {
  const feedId = feedOfSlice(ctx.slice)
  return {
    alerts: [alertsTable.row(alert, ctx)],
    ...(feedId !== undefined
      ? { alert_feed_links: [alertFeedLinksTable.row({ feed_id: feedId, alert_id: alert.alert_id }, undefined)] }
      : {})
  }
}
