/**
 * Monthly average asking price per m² (sale, apartments) over the last year for ten Spanish
 * cities: their location ids from the token host's location tree, then one Area Insights time
 * series per city.
 *
 *   npx tsx examples/price-per-m2-trend.ts [outDir]   # default data/examples
 *
 * Writes `<outDir>/price-per-m2.arrow` (one row per city and month: location_id, city, month,
 * eur_per_m2) and `<outDir>/price-per-m2.svg`, a line chart (Observable Plot, drawn in Node by
 * `plotSvg`) to open in a browser.
 * From another repository, import from "estate-etl" instead of "../src/index.js".
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { plotSvg, withSession } from "../src/index.js"
import { type ExampleOptions, printer, runIfScript, sessionOptions } from "./support.js"

export const CITIES = [
  "Alicante",
  "Barcelona",
  "Bilbao",
  "Granada",
  "Madrid",
  "Málaga",
  "Palma",
  "Sevilla",
  "Valencia",
  "Zaragoza"
] as const
/** The series: a year of months up to the end of May 2026 (the sandbox's "now" is 2026-06-01). */
export const SERIES = {
  data_points: ["avg_price_psqm"],
  date_interval: "month",
  date_range: { min: "2025-06-02", max: "2026-05-31" },
  types: ["apartment"],
  business_type: "sale"
} as const

export const main = (options: ExampleOptions) =>
  withSession(sessionOptions(options), async (session) => {
    const print = printer(options)
    await session.run("references", { params: { location_countries: ["ES"] } })
    const cities = await session.query<{ location_id: number; name: string }>(`
      SELECT location_id, name FROM reference_locations
      WHERE country = 'ES' AND administrative_level = 'municipality' AND name IN (${CITIES.map((c) => `'${c}'`).join(", ")})
      ORDER BY name`)
    const series = await session.run("market-time-series", {
      params: { ...SERIES, location_ids: cities.map((c) => c.location_id) }
    })
    const sql = `
      SELECT t.location_id, c.name AS city, strftime(t.date_start, '%Y-%m') AS month, t.date_start, round(t.value, 2) AS eur_per_m2
      FROM market_time_series t JOIN reference_locations c ON c.location_id = t.location_id
      WHERE t.data_point = 'avg_price_psqm' AND t.date_interval = 'month'
      ORDER BY city, t.date_start`
    const arrowFile = await session.writeArrow(sql, path.join(options.outDir, "price-per-m2.arrow"))
    const rows = await session.query<{ location_id: number; city: string; month: string; date_start: Date; eur_per_m2: number }>(sql)
    const byCity = new Map<string, Array<{ x: string; y: number }>>()
    for (const r of rows) byCity.set(r.city, [...(byCity.get(r.city) ?? []), { x: r.month, y: r.eur_per_m2 }])
    const points = rows.map((r) => ({ city: r.city, month: new Date(`${r.month}-01T00:00:00Z`), eur: r.eur_per_m2 }))
    const chartFile = path.join(options.outDir, "price-per-m2.svg")
    const svg = await plotSvg(
      (Plot) => ({
        width: 960,
        height: 540,
        marginTop: 70,
        marginRight: 90,
        style: { background: "white" },
        x: { type: "utc", label: null },
        y: { label: "EUR per m²", grid: true },
        marks: [
          Plot.text(["Average asking price per m², apartments for sale"], {
            frameAnchor: "top-left",
            dy: -56,
            fontSize: 16,
            fontWeight: "bold"
          }),
          Plot.lineY(points, { x: "month", y: "eur", stroke: "city", strokeWidth: 2 }),
          Plot.text(points, Plot.selectLast({ x: "month", y: "eur", z: "city", text: "city", fill: "city", textAnchor: "start", dx: 5 }))
        ]
      }),
      { standalone: true }
    )
    fs.writeFileSync(chartFile, svg + "\n")
    for (const [city, points] of byCity) {
      const first = points[0]
      const last = points[points.length - 1]
      print(`${city.padEnd(10)} ${first?.x} ${first?.y} -> ${last?.x} ${last?.y} EUR/m²`)
    }
    print(`${rows.length} points for ${byCity.size} cities; wrote ${arrowFile.path} and ${chartFile}`)
    return { rows, cities, arrowFile, chartFile, summary: series.summary }
  })

runIfScript(import.meta.url, main)
