/**
 * Homes in one city whose asking price was cut at least twice: the platform's seller leads
 * around the city centre, joined to the token host's property records, kept when the property
 * lies in the city (its location tree names the municipality).
 *
 *   npx tsx examples/price-cut-homes.ts [outDir]   # default data/examples
 *
 * Writes `<outDir>/price-cut-homes.arrow` and `.parquet` (one row per home) and prints them.
 * From another repository, import from "estate-etl" instead of "../src/index.js".
 */
import * as path from "node:path"
import { withSession } from "../src/index.js"
import { type ExampleOptions, printer, runIfScript, sessionOptions } from "./support.js"

/** The city: its name as the location tree spells it and its centre. */
export const CITY = { name: "Madrid", latitude: 40.42, longitude: -3.7, radius_km: 5 } as const
export const MIN_PRICE_CUTS = 2

/** `prop_123` -> 123 (a seller lead names its home by its Property Sourcing id). */
const numericId = (sourcingId: string) => Number(sourcingId.replace(/^prop_/, ""))

/** A row of the query below (`query<Row>` asserts it). */
export interface Home {
  readonly sourcing_id: string
  readonly property_id: number
  readonly address: string | null
  readonly zip_code: string | null
  readonly district: string | null
  readonly type: string | null
  readonly bedrooms: number | null
  readonly total_area: number | null
  readonly price_cuts: number
  readonly price_cut_pct: number | null
  readonly first_price: number | null
  readonly current_price: number | null
  readonly sale_price: number | null
  readonly sale_days_on_market: number | null
}

export const main = (options: ExampleOptions) =>
  withSession(sessionOptions(options), async (session) => {
    const print = printer(options)
    const leads = await session.run("seller-leads", {
      params: { points: [CITY], min_price_cuts: MIN_PRICE_CUTS, pageSize: 200, maxPages: 5 }
    })
    const ids = [...new Set(leads.rows().map((l) => numericId(String(l.property_id))))].sort((a, b) => a - b)
    const properties = ids.length > 0 ? await session.run("properties-by-id", { params: { ids } }) : undefined

    const sql = `
      SELECT l.property_id AS sourcing_id, p.property_id, p.address, p.zip_code, p.location_name AS district,
             p.type, p.bedrooms, p.total_area, l.price_cuts, l.price_cut_pct, l.first_price, l.current_price,
             p.sale_price, p.sale_days_on_market
      FROM seller_leads_current l
      JOIN properties_current p ON p.property_id = CAST(replace(l.property_id, 'prop_', '') AS BIGINT)
      WHERE l.price_cuts >= ${MIN_PRICE_CUTS}
        AND list_contains(json_extract_string(p.locations_structure, '$[*].name'), '${CITY.name}')
      ORDER BY l.price_cut_pct DESC, p.property_id`
    const found = ids.length > 0
    const rows = found ? await session.query<Home>(sql) : []
    const arrowFile = found ? await session.writeArrow(sql, path.join(options.outDir, "price-cut-homes.arrow")) : undefined
    const parquetFile = found ? await session.writeParquet(sql, path.join(options.outDir, "price-cut-homes.parquet")) : undefined
    for (const r of rows) {
      print(`${r.property_id}  ${r.price_cuts} cuts, -${r.price_cut_pct}%  ${r.first_price} -> ${r.current_price} EUR  ${r.address}`)
    }
    const units = leads.summary.totals.units + (properties?.summary.totals.units ?? 0)
    print(
      `${rows.length} homes in ${CITY.name} cut at least ${MIN_PRICE_CUTS} times (${leads.summary.totals.records} leads within ${CITY.radius_km} km); ${units} units`
    )
    return { rows, arrowFile, parquetFile, leads: leads.summary, properties: properties?.summary }
  })

runIfScript(import.meta.url, main)
