import * as path from "node:path"
import { describe, expect, it } from "vitest"
import sourcingSearch from "../../pipelines/sourcing-search.js"
import { planPipeline } from "../../src/pipeline/Planner.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness, type Harness } from "../support/pipelines.js"

const requestCount = (h: Harness) => Object.values(h.sandbox.control.stats().requests).reduce((a, b) => a + b, 0)

describe("sourcing-search", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  it("lands every match of each place once, with its agencies, as the sandbox's ground truth says", async () => {
    const world = h.sandbox.context.world
    const places = [{ country: "AD" }, { country: "ES", location_ids: [17] }, { country: "CY" }]
    const filters = places.map((p) => ({ ...p, operation: "sale" as const }))
    const truth = filters.map((f) => world.searchProperties(f, 0, 1_000_000).results)
    expect(truth.map((t) => t.length)).toEqual(filters.map((f) => world.countProperties(f)))
    const pageSize = 50
    const expectedPages = truth.reduce((s, t) => s + Math.max(1, Math.ceil(t.length / pageSize)), 0)
    const unitsBefore = unitsSpent(h)

    const summary = await h.run(sourcingSearch, { params: { places, operation: "sale", pageSize, concurrency: 2 } })
    expect(summary.status).toBe("done")

    const byCountry = await h.query(
      `SELECT country, count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids FROM sourcing_properties GROUP BY country ORDER BY country`
    )
    expect(byCountry).toEqual([
      { country: "AD", n: truth[0]!.length, ids: truth[0]!.length },
      { country: "CY", n: truth[2]!.length, ids: truth[2]!.length },
      { country: "ES", n: truth[1]!.length, ids: truth[1]!.length }
    ])
    const all = truth.flat()
    const [agencyRows] = await h.query(`SELECT count(*)::INTEGER AS n FROM sourcing_property_agencies`)
    expect(agencyRows!.n).toBe(all.reduce((s, p) => s + p.agencies.length, 0))

    const sample = truth[1]![Math.floor(truth[1]!.length / 2)]!
    const [row] = await h.query(`SELECT * FROM sourcing_properties WHERE id = '${sample.id}'`)
    expect(Number(row!.property_id)).toBe(sample.property_id)
    expect(row!.price_eur).toBe(sample.price_eur)
    expect(row!.type).toBe(sample.type)
    expect(row!.location_name).toBe(sample.location_name)
    expect(row!.latitude).toBeCloseTo(sample.latitude, 6)
    expect(row!.agencies_count).toBe(sample.agencies.length)
    expect(row!.extra).toBeNull()
    const agencies = await h.query(`SELECT agency FROM sourcing_property_agencies WHERE id = '${sample.id}' ORDER BY seq`)
    expect(agencies.map((a) => a.agency)).toEqual(sample.agencies)

    // one unit a page (search then cursor pages), the ledger equal to what the sandbox charged
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger!.calls).toBe(expectedPages)
    expect(ledger!.units).toBe(unitsSpent(h) - unitsBefore)
    expect(ledger!.units).toBe(expectedPages)
    const ops = await h.query(`SELECT operation, count(*)::INTEGER AS n FROM _ledger GROUP BY operation ORDER BY operation`)
    expect(ops).toEqual([
      { operation: "sourcing_next", n: expectedPages - places.length },
      { operation: "sourcing_search", n: places.length }
    ])
  })

  it("stops each place at maxPages, and the plan bounds the run by places x maxPages", async () => {
    const warehouse = path.join(h.dir, "capped.duckdb")
    const params = { country: "ES", operation: "rent", pageSize: 20, maxPages: 3, sample: true }
    const plan = await h.use(planPipeline(sourcingSearch, { ...params, concurrency: 4 } as never, DEFAULT_UNIT_COSTS))
    expect(plan).toMatchObject({ slices: 1, requests: 3, units: 3, exact: false })
    const summary = await h.run(sourcingSearch, { params, warehouse })
    expect(summary.status).toBe("done")
    const [{ n }] = (await h.query(`SELECT count(*)::INTEGER AS n FROM sourcing_properties`, warehouse)) as Array<{ n: number }>
    expect(n).toBe(60)
    expect(summary.totals.units).toBe(3)
    expect(summary.totals.units).toBeLessThanOrEqual(plan.units)
  })

  it("refuses bad parameters before any request", async () => {
    const before = requestCount(h)
    await expect(h.run(sourcingSearch, { params: { country: "XX" } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "sourcing-search.country"
    })
    await expect(h.run(sourcingSearch, { params: { country: "ES", price_min: 500, price_max: 100 } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(sourcingSearch, { params: { country: "ES", places: [{ country: "PT" }] } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(sourcingSearch, { params: { places: [{ country: "PT" }, { country: "PT" }] } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(sourcingSearch, { params: { country: "ES", pageSize: 201 } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "sourcing-search.pageSize"
    })
    await expect(h.run(sourcingSearch, { params: { country: "ES", types: ["apartment", "warehouse"] } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "sourcing-search.types"
    })
    expect(requestCount(h)).toBe(before)
  })
})
