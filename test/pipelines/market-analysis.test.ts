import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/market-analysis.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

const ROUTE = "POST /market-analytics-api/analysis"
const types = ["house", "villa", "chalet"]

describe("market-analysis", () => {
  let h: Harness
  const made = () => h.sandbox.control.stats().requests[ROUTE] ?? 0
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 3000 } } })
  })
  afterAll(() => h.close())

  it("lands one analysis row per location, as the world computes it; a rerun the same day does not duplicate", async () => {
    const w = h.sandbox.context.world
    const ids = w.locations
      .filter((l) => l.country === "PT" && l.administrative_level === "municipality")
      .slice(0, 3)
      .map((l) => l.location_id)
    const before = made()
    const summary = await h.run(pipeline, {
      params: { location_ids: ids, types, business_type: "sale", filter: { bedrooms_range: { min: 1 } } }
    })
    expect(summary.status).toBe("done")
    expect(summary.plan).toMatchObject({ requests: 3, exact: true })
    expect(made() - before).toBe(3)
    for (const id of ids) {
      const a = w.analysis(
        { types, business_type: "sale", custom_location_boundary: { location_ids: [id] }, bedrooms_range: { min: 1 } } as never,
        h.sandbox.control.now()
      )
      const [row] = await h.query(`SELECT * FROM market_analysis WHERE location_id = ${id}`)
      expect(row).toMatchObject({
        avg_price: a.avg_price,
        median_price: a.median_price,
        avg_days_on_market: a.avg_days_on_market,
        price_trend_pct: a.price_trend_pct,
        business_type: "sale",
        types: "chalet,house,villa"
      })
      expect(Number(row!.available_on_market)).toBe(a.available_on_market)
      expect(String(row!.filter_key)).toMatch(/^[0-9a-f]{8}$/)
    }
    await h.run(pipeline, { params: { location_ids: ids, types, business_type: "sale", filter: { bedrooms_range: { min: 1 } } } })
    const [{ n }] = (await h.query(`SELECT count(*) AS n FROM market_analysis`)) as Array<{ n: number }>
    expect(Number(n)).toBe(3)
  })

  it("refuses bad parameters before any request", async () => {
    const before = made()
    await expect(h.run(pipeline, { params: { location_ids: [0], types, business_type: "sale" } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(pipeline, { params: { location_ids: [1], types: ["house", "studio"], business_type: "sale" } })).rejects.toThrow(
      /one group/
    )
    await expect(h.run(pipeline, { params: { location_ids: [1], types, business_type: "sale", extra: 1 } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    expect(made()).toBe(before)
  })
})
