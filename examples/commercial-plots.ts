/**
 * German plots zoned GE or GI (Gewerbe-/Industriegebiet) for under 100 EUR/m², with the quote
 * each classification rests on.
 *
 *   npx tsx examples/commercial-plots.ts [outDir]   # default data/examples
 *
 * Writes `<outDir>/commercial-plots.arrow` and `.parquet`, and prints the cheapest ten.
 * From another repository, import from "estate-etl" instead of "../src/index.js".
 */
import * as path from "node:path"
import { withSession } from "../src/index.js"
import { type ExampleOptions, printer, runIfScript, sessionOptions } from "./support.js"

/** Plot search criteria: the plots whose own text states a commercial zoning class, at most 100 EUR/m². */
export const CRITERIA = { commercial_use: "zoned_commercial", sale_price_m2_max: 100, sort: "price_m2_asc" } as const
export const ZONES = ["GE", "GI"] as const
export const MAX_EUR_M2 = 100

/** A row of the query below (`query<Row>` asserts it; the columns come from `plots_current`). */
export interface PlotHit {
  readonly id: string
  readonly title: string | null
  readonly municipality: string | null
  readonly region: string | null
  readonly zoning_class: string
  readonly sale_eur: number | null
  readonly plot_area_m2: number | null
  readonly sale_eur_per_m2: number
  readonly evidence: string | null
  readonly zoning_source: string | null
  readonly agency_listing_url: string | null
}

export const main = (options: ExampleOptions) =>
  withSession(sessionOptions(options), async (session) => {
    const print = printer(options)
    const run = await session.run("plots-germany", { params: { criteria: CRITERIA, pageSize: 100, maxPages: 10 }, sample: true })
    // zoned_commercial also covers MK and MU; keep GE and GI, strictly under the price.
    const sql = `
      SELECT id, title, municipality, region, zoning_class, sale_eur, plot_area_m2, sale_eur_per_m2,
             commercial_use_evidence AS evidence, zoning_source, agency_listing_url
      FROM plots_current
      WHERE zoning_class IN (${ZONES.map((z) => `'${z}'`).join(", ")}) AND sale_eur_per_m2 < ${MAX_EUR_M2}
      ORDER BY sale_eur_per_m2, id`
    const arrowFile = await session.writeArrow(sql, path.join(options.outDir, "commercial-plots.arrow"))
    const parquetFile = await session.writeParquet(sql, path.join(options.outDir, "commercial-plots.parquet"))
    const rows = await session.query<PlotHit>(sql)
    for (const r of rows.slice(0, 10)) {
      print(`${r.zoning_class}  ${r.sale_eur_per_m2.toFixed(2).padStart(6)} EUR/m²  ${r.municipality}: "${r.evidence}"`)
    }
    print(
      `${rows.length} plots (of ${run.summary.totals.records} zoned commercial at most ${MAX_EUR_M2} EUR/m²); ${run.summary.totals.units} units`
    )
    return { rows, arrowFile, parquetFile, summary: run.summary }
  })

runIfScript(import.meta.url, main)
