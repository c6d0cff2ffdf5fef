/**
 * Column types of the nested parts the spec shows (service/schema/Shared.ts, Property.ts), shared
 * by every record mapping that lands them, and the money type. Members the spec does not show
 * are not columns of these structs: a record's unknown top-level fields stay in its `extra` JSON.
 */
import type { ColumnType } from "../Table.js"

/** Money: exact to the cent, beside a currency column (docs/TYPES.md). */
export const MONEY = "DECIMAL(18,2)" satisfies ColumnType

/** A location node (`location`, items of `locations_structure`). */
export const LOCATION = "STRUCT(location_id BIGINT, name VARCHAR, administrative_level VARCHAR, zip_codes VARCHAR[])" satisfies ColumnType
export const LOCATIONS = `${LOCATION}[]` satisfies ColumnType

/** `features`: the 7 members the spec lists. */
export const FEATURES =
  "STRUCT(floor VARCHAR, orientation VARCHAR, view VARCHAR, views VARCHAR[], direction VARCHAR, directions VARCHAR[], characteristics VARCHAR[])" satisfies ColumnType

export const STRINGS = "VARCHAR[]" satisfies ColumnType
export const IDS = "BIGINT[]" satisfies ColumnType

/** `contacts_info`. */
export const CONTACTS = "STRUCT(name VARCHAR, email VARCHAR, phone VARCHAR)" satisfies ColumnType

/** `sale_time_on_market` / `rent_time_on_market`. */
export const TIME_ON_MARKET =
  "STRUCT(date_start DATE, date_end DATE, days_on_market INTEGER, has_untracked_period BOOLEAN)" satisfies ColumnType

/** `sale_price_last_change` / `rent_price_last_change` (the spec types the values as integers). */
export const PRICE_LAST_CHANGE = `STRUCT(change_date DATE, old_value ${MONEY}, new_value ${MONEY})` satisfies ColumnType

/** The deprecated `history` items of a property. */
export const PRICE_HISTORY_ITEMS =
  `STRUCT(sale_price ${MONEY}, sale_currency VARCHAR, rent_price ${MONEY}, rent_currency VARCHAR, changed_at DATE)[]` satisfies ColumnType

/** `companies` of a listing. */
export const COMPANIES = "STRUCT(name VARCHAR, casafari_connect_on BOOLEAN)[]" satisfies ColumnType

/** A point of a polygon. */
export const POINTS = "STRUCT(latitude DOUBLE, longitude DOUBLE)[]" satisfies ColumnType

/** Assumed: `*_base` prices are EUR (the spec says so of `sale_price_base`); their currency column. */
export const BASE_CURRENCY = "EUR"
