/**
 * Each example script run as a function against a sandbox on ephemeral ports, its files written
 * to a temp folder and checked against the sandbox world's own answers.
 */
import { tableFromIPC } from "apache-arrow"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as plots from "../../examples/commercial-plots.js"
import * as homes from "../../examples/price-cut-homes.js"
import * as trend from "../../examples/price-per-m2-trend.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const readArrow = (file: string) => tableFromIPC(fs.readFileSync(file))
const column = (file: string, name: string) => [...readArrow(file).getChild(name)!] as Array<unknown>

describe("examples", () => {
  let sandbox: Sandbox
  let dir: string
  const lines: Array<string> = []
  const options = () => ({ outDir: dir, sandbox, print: (l: string) => void lines.push(l) })
  beforeAll(async () => {
    sandbox = await startTestSandbox({})
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-examples-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("commercial-plots: GE/GI plots under 100 EUR/m² with their evidence quotes", async () => {
    const world = sandbox.context.world
    const truth = world
      .searchPlots(plots.CRITERIA as never)
      .filter(
        (p) =>
          (plots.ZONES as ReadonlyArray<string>).includes(String(p.facts_from_text?.zoning_class)) &&
          p.sale_eur_per_m2 !== null &&
          p.sale_eur_per_m2 !== undefined &&
          p.sale_eur_per_m2 < plots.MAX_EUR_M2
      )
    expect(truth.length).toBeGreaterThan(0)
    const result = await plots.main(options())
    const file = path.join(dir, "commercial-plots.arrow")
    expect(result.arrowFile.path).toBe(file)
    expect(readArrow(file).numRows).toBe(truth.length)
    expect(column(file, "id").sort()).toEqual(truth.map((p) => p.id).sort())
    const evidence = new Map(truth.map((p) => [p.id, p.commercial_use?.evidence]))
    for (const r of result.rows) {
      expect(r.evidence).toBe(evidence.get(String(r.id)))
      expect(Number(r.sale_eur_per_m2)).toBeLessThan(100)
    }
    expect(fs.statSync(path.join(dir, "commercial-plots.parquet")).size).toBeGreaterThan(0)
    expect(result.parquetFile.rows).toBe(truth.length)
    expect(lines.at(-1)).toMatch(new RegExp(`^${truth.length} plots`))
  })

  it("price-cut-homes: homes in the city cut at least twice, leads joined to property records", async () => {
    const world = sandbox.context.world
    const c = homes.CITY
    const truth = world
      .sellerLeads({
        latitude: c.latitude,
        longitude: c.longitude,
        radius_km: c.radius_km,
        min_price_cuts: homes.MIN_PRICE_CUTS,
        min_price_cut_pct: 5
      })
      .filter((lead) => {
        const property = world.propertyById(Number(lead.property_id.replace("prop_", "")))
        return property?.locations_structure.some((l) => l.name === c.name && l.administrative_level === "municipality")
      })
    expect(truth.length).toBeGreaterThan(0)
    const result = await homes.main(options())
    const file = path.join(dir, "price-cut-homes.arrow")
    expect(readArrow(file).numRows).toBe(truth.length)
    expect(column(file, "sourcing_id").sort()).toEqual(truth.map((l) => l.property_id).sort())
    const cuts = new Map(truth.map((l) => [Number(l.property_id.replace("prop_", "")), l]))
    for (const r of result.rows) {
      const lead = cuts.get(Number(r.property_id))!
      expect(r.price_cuts).toBe(lead.price_cuts)
      expect(r.price_cuts as number).toBeGreaterThanOrEqual(2)
      expect(r.current_price).toBe(lead.current_price)
      expect(r.address).toBe(world.propertyById(Number(r.property_id))!.address)
    }
    expect(result.parquetFile?.rows).toBe(truth.length)
  })

  it("price-per-m2-trend: monthly EUR/m² for ten cities as an Arrow file and an SVG chart", async () => {
    const world = sandbox.context.world
    const cities = world.locations.filter(
      (l) => l.country === "ES" && l.administrative_level === "municipality" && (trend.CITIES as ReadonlyArray<string>).includes(l.name)
    )
    expect(cities.length).toBe(10)
    const result = await trend.main(options())
    const file = path.join(dir, "price-per-m2.arrow")
    const table = readArrow(file)
    expect(result.arrowFile.rows).toBe(table.numRows)
    const s = trend.SERIES
    let expected = 0
    for (const city of cities) {
      const points = world.timeSeries({
        types: s.types,
        business_type: s.business_type,
        custom_location_boundary: { location_ids: [city.location_id] },
        data_point: s.data_points[0],
        date_interval: s.date_interval,
        date_range: s.date_range
      })
      expected += points.length
      const mine = result.rows.filter((r) => r.location_id === city.location_id)
      expect(mine.map((r) => r.city)).toEqual(points.map(() => city.name))
      expect(mine.map((r) => r.eur_per_m2)).toEqual(points.map((p) => Math.round(p.value * 100) / 100))
      expect(mine.map((r) => String(r.month))).toEqual(points.map((p) => p.date_start.slice(0, 7)))
    }
    expect(expected).toBe(120)
    expect(table.numRows).toBe(expected)
    const svg = fs.readFileSync(path.join(dir, "price-per-m2.svg"), "utf8")
    // an Observable Plot chart: one line a city, each labelled at its last month
    expect(svg.startsWith("<svg")).toBe(true)
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"')
    const lines = /<g[^>]*aria-label="line"[^>]*>(.*?)<\/g>/s.exec(svg)?.[1] ?? ""
    expect(lines.match(/<path /g)?.length).toBe(10)
    for (const city of cities) expect(svg).toContain(`>${city.name}</text>`)
  })
})
