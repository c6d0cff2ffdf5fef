/**
 * Enumerations shared by the token host, with the spec's group rules.
 * Values are exactly the spec's ("Enumerations shared by the token host").
 */
import { Schema } from "effect"

export const PROPERTY_TYPES = [
  "apartment",
  "studio",
  "duplex",
  "penthouse",
  "dachgeschosswohnung",
  "etagenwohnung",
  "erdgeschosswohnung",
  "country_house",
  "house",
  "palace",
  "townhouse",
  "villa",
  "country_estate",
  "chalet",
  "bungalow",
  "family_house",
  "reihenhaus",
  "reihenendhaus",
  "reihenmittelhaus",
  "einfamilienhaus",
  "zweifamilienhaus",
  "landwirtschaftliche_betriebe",
  "retail",
  "office",
  "industrial",
  "warehouse",
  "hotel",
  "other_commercial",
  "restaurant",
  "werkstatt",
  "plot",
  "urban_plot",
  "rural_plot",
  "room",
  "other",
  "garage",
  "parking",
  "apartment_building",
  "office_building",
  "mix_use_building"
] as const
export type PropertyType = (typeof PROPERTY_TYPES)[number]
export const PropertyType = Schema.Literal(...PROPERTY_TYPES)

/** Time Series accepts 42 types: the 40 above less `plot`, plus these three. */
export const TIME_SERIES_EXTRA_TYPES = ["building", "apartment_development", "house_development"] as const
export const TIME_SERIES_TYPES = [...PROPERTY_TYPES.filter((t) => t !== "plot"), ...TIME_SERIES_EXTRA_TYPES] as const
export type TimeSeriesType = PropertyType | (typeof TIME_SERIES_EXTRA_TYPES)[number]
export const TimeSeriesType = Schema.Literal(...(TIME_SERIES_TYPES as unknown as [TimeSeriesType, ...Array<TimeSeriesType>]))

/** Type groups: several types may be chosen only from one group. */
export const TYPE_GROUPS = {
  apartment: ["penthouse", "apartment", "dachgeschosswohnung", "erdgeschosswohnung", "duplex", "etagenwohnung", "studio"],
  house: [
    "einfamilienhaus",
    "family_house",
    "reihenmittelhaus",
    "house",
    "villa",
    "country_house",
    "zweifamilienhaus",
    "landwirtschaftliche_betriebe",
    "palace",
    "bungalow",
    "townhouse",
    "reihenhaus",
    "chalet",
    "country_estate",
    "reihenendhaus"
  ],
  room: ["room"],
  building: ["mix_use_building", "office_building", "apartment_building"],
  investment: ["other_commercial", "warehouse", "office", "retail", "hotel", "werkstatt", "industrial", "restaurant"],
  plot: ["urban_plot", "plot", "rural_plot"],
  other: ["garage", "other", "parking"]
} as const satisfies Record<string, ReadonlyArray<PropertyType>>
export type TypeGroup = keyof typeof TYPE_GROUPS

/**
 * Time Series groups: investment also holds `building`; a `development` group holds the
 * two development types. Assumed: `building` (the time-series extra type) sits in both
 * the building group and investment, as the spec says "Time Series adds building" to investment.
 */
export const TIME_SERIES_TYPE_GROUPS: Record<string, ReadonlyArray<TimeSeriesType>> = {
  apartment: TYPE_GROUPS.apartment,
  house: TYPE_GROUPS.house,
  room: TYPE_GROUPS.room,
  building: [...TYPE_GROUPS.building, "building"],
  investment: [...TYPE_GROUPS.investment, "building"],
  plot: ["urban_plot", "rural_plot"],
  other: TYPE_GROUPS.other,
  development: ["apartment_development", "house_development"]
}

/** Group names that appear on results (`type_group`). */
export const RESULT_GROUPS = ["apartment", "house", "investment", "plot", "other"] as const
export type ResultGroup = (typeof RESULT_GROUPS)[number]
export const ResultGroup = Schema.Literal(...RESULT_GROUPS)

/** The group a type belongs to (first match in TYPE_GROUPS). */
export const groupOf = (type: string): TypeGroup | undefined =>
  (Object.keys(TYPE_GROUPS) as Array<TypeGroup>).find((g) => (TYPE_GROUPS[g] as ReadonlyArray<string>).includes(type))

/**
 * Whether all types share one group of `groups`; returns the group or undefined.
 * A type listed in several groups (time-series `building`) may match any of them.
 */
export const commonGroup = (
  types: ReadonlyArray<string>,
  groups: Record<string, ReadonlyArray<string>> = TYPE_GROUPS
): string | undefined => Object.keys(groups).find((g) => types.length > 0 && types.every((t) => groups[g]!.includes(t)))

/**
 * Assumed: the result `type_group` of a type. The spec lists five result group names;
 * room maps to apartment and building to investment.
 */
export const resultGroupOf = (type: string): ResultGroup => {
  const g = groupOf(type)
  switch (g) {
    case "room":
      return "apartment"
    case "building":
      return "investment"
    case undefined:
      return "other"
    default:
      return g
  }
}

/** German-named types, which exist for Germany only. */
export const GERMAN_ONLY_TYPES = [
  "dachgeschosswohnung",
  "etagenwohnung",
  "erdgeschosswohnung",
  "family_house",
  "reihenhaus",
  "reihenendhaus",
  "reihenmittelhaus",
  "einfamilienhaus",
  "zweifamilienhaus",
  "landwirtschaftliche_betriebe",
  "restaurant",
  "werkstatt"
] as const
/** Plot types, which exist for these countries only. */
export const PLOT_TYPE_COUNTRIES = ["IT", "DE", "PT", "ES", "FR"] as const

/** Types whose comparables request needs `total_area` unless a cadastral reference is given. */
export const TOTAL_AREA_REQUIRED_TYPES = [
  "hotel",
  "industrial",
  "office",
  "other_commercial",
  "restaurant",
  "retail",
  "warehouse",
  "werkstatt"
] as const
/** Types whose comparables request needs `plot_area` unless a cadastral reference is given. */
export const PLOT_AREA_REQUIRED_TYPES = ["rural_plot", "urban_plot"] as const

const lit = <const A extends readonly [string, ...Array<string>]>(values: A) => ({ values, schema: Schema.Literal(...values) })

export const Condition = lit(["used", "ruin", "very-good", "new", "other"])
export const FloorType = lit(["no_floor", "ground", "middle", "top"])
export const Orientation = lit(["exterior", "interior"])
export const View = lit(["water", "landscape", "city", "golf", "park"])
export const Direction = lit(["north", "south", "east", "west"])
export const Characteristic = lit([
  "balcony",
  "elevator",
  "no_elevator",
  "garage",
  "garden",
  "parking",
  "storage",
  "swimming_pool",
  "terrace",
  "rental_license",
  "furniture",
  "rented_out",
  "life_annuity"
])
export const Operation = lit(["sale", "rent"])
export const SaleStatus = lit(["active", "reserved", "hold", "sold", "none"])
export const RentStatus = lit(["active", "reserved", "hold", "rented", "none"])
export const RentPeriod = lit(["day", "week", "fortnight", "month", "year", "none"])
export const EnergyRating = lit(["Unknown", "A+", "A", "B", "C", "D", "E", "F", "G", "H"])
export const AlertType = lit(["sale_price", "sale_status", "rent_price", "rent_status", "new"])
export const AlertSubtype = lit(["new", "price_up", "price_down", "reserved", "delisted", "sold"])

/** Time-series enumerations. */
export const DataPoint = lit(["avg_price", "avg_price_psqm", "available_on_market", "new", "sold_or_rented", "price_up", "price_down"])
export const DateInterval = lit(["week", "month", "quarter", "year"])

/** Plot search enumerations. */
export const PlotType = lit(["building_plot", "rural_plot"])
export const PlotOperation = lit(["sale", "rent", "either"])
export const PlotSort = lit(["commercial_use", "newest", "price_asc", "area_desc", "price_m2_asc"])
export const CommercialUseLevel = lit([
  "zoned_commercial",
  "zoned_mixed_or_special",
  "commercial_use_stated",
  "building_land_use_not_stated",
  "residential_only_stated",
  "zoned_leisure_special",
  "not_building_land_stated",
  "not_stated"
])
/** The default plot filter: the first three levels. */
export const DEFAULT_COMMERCIAL_USE = CommercialUseLevel.values.slice(0, 3)

/** Alert feed read ordering. */
export const AlertOrderBy = lit([
  "alert_date",
  "-alert_date",
  "alert_id",
  "-alert_id",
  "created_at",
  "-created_at",
  "updated_at",
  "-updated_at"
])
/** Smart link languages and components. */
export const SmartLinkLanguage = lit(["en", "fr", "it", "pt", "es", "de"])
export const SmartLinkComponent = lit([
  "price",
  "days_on_market",
  "price_change",
  "sources",
  "history",
  "location_intelligence",
  "comparables",
  "valuation",
  "market_analytics"
])

/** Premises search page size cap (spec: `limit` at most 200). */
export const PREMISES_MAX_LIMIT = 200
/** Assumed (docs/ASSUMPTIONS.md): the 16 countries. Seller leads cover the first six of the spec's list. */
export const COUNTRIES = ["ES", "PT", "FR", "IT", "DE", "GR", "AD", "GB", "NL", "BE", "AT", "CH", "IE", "PL", "HR", "CY"] as const
export const SELLER_LEAD_COUNTRIES = ["ES", "FR", "IT", "DE", "GR", "AD"] as const
