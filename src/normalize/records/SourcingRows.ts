/**
 * Property Sourcing records as rows, shared by the sourcing pipelines: a search result
 * (`SourcingProperty`) as a `sourcing_properties`-shaped row with its agencies as a child table,
 * and a property detail (`SourcingPropertyDetail`) as a `sourcing_property_details`-shaped row.
 * Column sets are declared once here; each pipeline picks its table names.
 *
 * Hot path: `sourcing-search` maps every search result through `searchRows`, so it is one pass
 * over compiled columns plus a plain loop over agencies (no spreads, no closures per record).
 */
import type { PageContext } from "../PageContext.js"
import { SourcingProperty, SourcingPropertyDetail } from "../../service/schema/Sourcing.js"
import { type ColumnDef, flatTable, type FlatTable } from "../Flatten.js"
import type { Row, Rows } from "../Table.js"
import { countryCode } from "../Countries.js"
import { FEATURES, MONEY, STRINGS } from "./NestedTypes.js"

type Ctx = PageContext

/** Columns of a search result; `agencies` goes to the child table (its size stays here). */
export const sourcingPropertyColumns = {
  id: "VARCHAR",
  property_id: "BIGINT",
  // the service already sends ISO codes; upper-cased so every table agrees
  country: ["VARCHAR", (p) => countryCode(p.country)],
  location_id: "BIGINT",
  location_name: "VARCHAR",
  type: "VARCHAR",
  type_group: "VARCHAR",
  operation: "VARCHAR",
  price_eur: MONEY,
  /** The currency of `price_eur`: EUR, as its name says. */
  currency: ["VARCHAR", () => "EUR"],
  area_m2: "DOUBLE",
  bedrooms: "INTEGER",
  latitude: "DOUBLE",
  longitude: "DOUBLE",
  listings_count: "INTEGER",
  agencies_count: ["INTEGER", (p) => p.agencies?.length ?? 0],
  updated_at: "TIMESTAMPTZ",
  extracted_at: ["TIMESTAMPTZ", (_p: SourcingProperty, c: Ctx) => c.extractedAt]
} as const satisfies Record<string, ColumnDef<SourcingProperty, Ctx>>

/** Columns of a property detail: the result columns plus the detail fields. */
export const sourcingDetailColumns = {
  ...sourcingPropertyColumns,
  agencies: STRINGS,
  bathrooms: "INTEGER",
  plot_area_m2: "DOUBLE",
  living_area_m2: "DOUBLE",
  construction_year: "INTEGER",
  energy_rating: "VARCHAR",
  condition: "VARCHAR",
  floor: ["VARCHAR", (d) => d.features?.floor],
  orientation: ["VARCHAR", (d) => d.features?.orientation],
  features: FEATURES,
  address: "VARCHAR",
  description: "VARCHAR",
  status: "VARCHAR"
} as const satisfies Record<string, ColumnDef<SourcingPropertyDetail, Ctx>>

const propertyKnown = Object.keys(SourcingProperty.fields)
const detailKnown = Object.keys(SourcingPropertyDetail.fields)

/**
 * A table of search results: every version by `id` (a history table; `<name>_current` the latest),
 * partitioned by country, unknown fields in `extra`.
 */
export const sourcingPropertiesTable = <const N extends string = "sourcing_properties">(name: N = "sourcing_properties" as N) =>
  flatTable.of<SourcingProperty, Ctx>()(name, sourcingPropertyColumns, {
    primaryKey: ["id"],
    disposition: "history",
    partitionBy: ["country"],
    extraOf: propertyKnown
  })

/** The agencies advertising a result, one row each, linked by `id` (the `prop_` id). */
export const sourcingAgenciesTable = <const N extends string = "sourcing_property_agencies">(name: N = "sourcing_property_agencies" as N) =>
  flatTable.of<Row, unknown>()(
    name,
    { id: "VARCHAR", seq: "INTEGER", agency: "VARCHAR" },
    {
      primaryKey: ["id", "seq"],
      disposition: "merge"
    }
  )

/** A table of property details, merged by `id`, partitioned by country, unknown fields in `extra`. */
export const sourcingDetailsTable = <const N extends string = "sourcing_property_details">(name: N = "sourcing_property_details" as N) =>
  flatTable.of<SourcingPropertyDetail, Ctx>()(name, sourcingDetailColumns, {
    primaryKey: ["id"],
    disposition: "merge",
    partitionBy: ["country"],
    extraOf: detailKnown
  })

/**
 * Rows of one search result: its main row and one agency row per agency. The agency rows are
 * built as literals (the child table has three plain columns), skipping the column loop.
 */
export const searchRows = (main: FlatTable<SourcingProperty, Ctx>, agencies: FlatTable<Row, unknown>) => {
  const mainName = main.spec.name
  const childName = agencies.spec.name
  return (p: SourcingProperty, ctx: Ctx): Rows => {
    const list = p.agencies
    const children: Array<Row> = []
    if (list) for (let i = 0; i < list.length; i++) children.push({ id: p.id, seq: i, agency: list[i]! })
    return { [mainName]: [main.row(p, ctx)], [childName]: children }
  }
}

/**
 * `columns` read through `of` (e.g. a resolution's `property`), so a record that carries a
 * property or a detail gets the same columns; `id` and `extracted_at` are left out (the caller
 * names its own key and time).
 */
export const columnsVia = <R, S>(
  columns: Record<string, ColumnDef<S, Ctx>>,
  of: (record: R) => S | null | undefined
): Record<string, ColumnDef<R, Ctx>> => {
  const out: Record<string, ColumnDef<R, Ctx>> = {}
  for (const [col, def] of Object.entries(columns)) {
    if (col === "id" || col === "extracted_at") continue
    const [type, read] = typeof def === "string" ? [def, undefined] : [def[0], def[1]]
    out[col] = [
      type,
      (r: R, c: Ctx) => {
        const d = of(r)
        if (d === null || d === undefined) return null
        return read ? read(d, c) : (d as Record<string, unknown>)[col]
      }
    ]
  }
  return out
}
