import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/market-distributions.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

const types = ["apartment", "penthouse", "studio"]
const ROUTES = ["bedrooms", "prices", "properties", "time-on-market"].map((d) => `POST /market-analytics-api/distributions/${d}`)

describe("market-distributions", () => {
  let h: Harness
  const made = () => ROUTES.reduce((s, r) => s + (h.sandbox.control.stats().requests[r] ?? 0), 0)
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 3000 } } })
  })
  afterAll(() => h.close())

  it("lands the four distributions of each location in their tables, as the world computes them", async () => {
    const w = h.sandbox.context.world
    const ids = w.locations
      .filter((l) => l.country === "ES" && l.administrative_level === "region")
      .slice(0, 2)
      .map((l) => l.location_id)
    const before = made()
    const summary = await h.run(pipeline, { params: { location_ids: ids, types, business_type: "sale" } })
    expect(summary.status).toBe("done")
    expect(summary.plan).toMatchObject({ requests: 8, exact: true })
    expect(made() - before).toBe(8)

    const now = h.sandbox.control.now()
    for (const id of ids) {
      const f = { types, business_type: "sale", custom_location_boundary: { location_ids: [id] } } as never
      const bedrooms = w.bedroomsDistribution(f, now)
      const rows = await h.query(`SELECT bedrooms, count FROM market_bedrooms_distribution WHERE location_id = ${id} ORDER BY bedrooms`)
      expect(rows.map((r) => [r.bedrooms, Number(r.count)])).toEqual(
        [...bedrooms].sort((a, b) => a.bedrooms - b.bedrooms).map((b) => [b.bedrooms, b.count])
      )
      const prices = w.pricesDistribution(f, now)
      const pr = await h.query(`SELECT min, max, count FROM market_prices_distribution WHERE location_id = ${id} ORDER BY seq`)
      expect(pr.map((r) => [r.min, r.max, Number(r.count)])).toEqual(prices.map((b) => [b.min, b.max, b.count]))
      const props = w.propertiesDistribution(f, now)
      const [q] = await h.query(`SELECT q1, q2, q3, sample_size FROM market_properties_quartiles WHERE location_id = ${id}`)
      expect([q!.q1, q!.q2, q!.q3, q!.sample_size]).toEqual([
        props.quartiles.q1,
        props.quartiles.q2,
        props.quartiles.q3,
        props.properties.length
      ])
      const [{ n }] = (await h.query(`SELECT count(*) AS n FROM market_properties_distribution WHERE location_id = ${id}`)) as Array<{
        n: number
      }>
      expect(Number(n)).toBe(new Set(props.properties.map((p) => p.property_id)).size)
      const tom = w.timeOnMarketDistribution(f, now)
      const tr = await h.query(
        `SELECT min_price, days, months FROM market_time_on_market_distribution WHERE location_id = ${id} ORDER BY seq`
      )
      expect(tr.map((r) => [r.min_price, r.days, r.months])).toEqual(tom.map((b) => [b.min_price, b.days, b.months]))
      expect(bedrooms.length + prices.length + tom.length).toBeGreaterThan(0)
    }
    const [snap] = await h.query(`SELECT DISTINCT CAST(snapshot_date AS VARCHAR) AS d, types FROM market_bedrooms_distribution`)
    expect(snap!.d).toBe(new Date().toISOString().slice(0, 10))
    expect(snap!.types).toBe("apartment,penthouse,studio")

    // the same day again: merged in place
    const counts = async () =>
      h.query(`SELECT (SELECT count(*) FROM market_prices_distribution) AS p, (SELECT count(*) FROM market_properties_distribution) AS s`)
    const first = await counts()
    await h.run(pipeline, { params: { location_ids: ids, types, business_type: "sale" } })
    expect(await counts()).toEqual(first)
  })

  it("refuses bad parameters before any request", async () => {
    const before = made()
    await expect(h.run(pipeline, { params: { location_ids: [], types, business_type: "sale" } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(pipeline, { params: { location_ids: [1], types: ["plot"], business_type: "sale" } })).rejects.toThrow(/urban_plot/)
    await expect(h.run(pipeline, { params: { location_ids: [1], types, business_type: "swap" } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(
      h.run(pipeline, { params: { location_ids: [1], types, business_type: "sale", filter: { price_range: { min: 9, max: 1 } } } })
    ).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(made()).toBe(before)
  })
})
