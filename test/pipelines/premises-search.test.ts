import * as path from "node:path"
import { describe, expect, it } from "vitest"
import premisesSearch from "../../pipelines/premises-search.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness, type Harness } from "../support/pipelines.js"

const requestCount = (h: Harness) => Object.values(h.sandbox.control.stats().requests).reduce((a, b) => a + b, 0)

describe("premises-search", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  it("lands every match with its whole result object, 40 units a call, as the sandbox's ground truth says", async () => {
    const world = h.sandbox.context.world
    const body = { province: "Granada", operation: "sale" as const, limit: 20 }
    const truth = world.searchPremises(body)
    const calls = Math.ceil(truth.length / 20)
    expect(calls).toBeGreaterThan(1)
    const before = unitsSpent(h)
    const summary = await h.run(premisesSearch, { params: { body } })
    expect(summary.status).toBe("done")
    // no free count and no read before: one page planned until the first page's count says the rest
    expect(summary.plan).toMatchObject({ requests: 1, unitsPerRequest: 40, units: 40, exact: false })
    expect(summary.expected).toMatchObject({ pages: calls, units: 40 * calls })

    const rows = await h.query(`SELECT * FROM premises ORDER BY id`)
    expect(rows.map((r) => r.id)).toEqual(truth.map((t) => t.id).sort())
    const sample = truth[truth.length - 1]!
    const row = rows.find((r) => r.id === sample.id)!
    expect(row.title).toBe(sample.title)
    expect(row.municipality).toBe(sample.municipality)
    expect(row.price_eur).toBe(sample.price_eur)
    expect(JSON.parse(String(row.raw))).toEqual(sample)

    expect(unitsSpent(h) - before).toBe(40 * calls)
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger).toEqual({ calls, units: 40 * calls })
    expect(summary.totals.units).toBe(40 * calls)

    // planned again, the last full read says how many pages a full pull takes
    const again = await h.run(premisesSearch, { params: { body }, warehouse: path.join(h.dir, "again.duckdb") })
    expect(again.plan.requests).toBe(1)
  })

  it("stops before the call that would cross maxUnits (80 units: two calls), paused with exit code 3, then resumes", async () => {
    const world = h.sandbox.context.world
    const warehouse = path.join(h.dir, "capped.duckdb")
    const body = { province: "Madrid", limit: 20 }
    const truth = world.searchPremises(body)
    expect(truth.length).toBeGreaterThan(100)
    const params = { body, maxPages: 5 }

    // the plan (5 calls, 200 units) is over the cap: refused before any request unless told to run until the cap
    const requestsBefore = requestCount(h)
    await expect(h.run(premisesSearch, { params, warehouse, maxUnits: 80, sample: true })).rejects.toThrow(/80/)
    expect(requestCount(h)).toBe(requestsBefore)

    const before = unitsSpent(h)
    const capped = await h.run(premisesSearch, { params, warehouse, maxUnits: 80, untilCap: true, sample: true })
    expect(capped.status).toBe("paused")
    expect(capped.exitCode).toBe(3)
    expect(capped.totals.units).toBe(80)
    expect(unitsSpent(h) - before).toBe(80)
    expect(requestCount(h) - requestsBefore).toBe(2)
    const [{ n }] = (await h.query(`SELECT count(*)::INTEGER AS n FROM premises`, warehouse)) as Array<{ n: number }>
    expect(n).toBe(40)

    // a sample of five pages: the cap it reaches is reported, not a shortfall
    const resumed = await h.run(premisesSearch, { params, warehouse, maxUnits: 1000, sample: true })
    expect(resumed.resumed).toBe(true)
    expect(resumed.status).toBe("done")
    expect(resumed.completeness.caps.join("\n")).toMatch(/maxPages 5 \(a sample\)/)
    expect(resumed.totals.units).toBe(120)
    const ids = await h.query(`SELECT id FROM premises ORDER BY id`, warehouse)
    expect(ids.map((r) => r.id)).toEqual(
      truth
        .slice(0, 100)
        .map((t) => t.id)
        .sort()
    )
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`, warehouse)
    expect(ledger).toEqual({ calls: 5, units: 200 })
    expect(unitsSpent(h) - before).toBe(200)

    // the same five pages without saying "sample": incomplete (exit 6), the cap named; the five
    // answers bought above are reused at 0 units
    const again = await h.run(premisesSearch, { params, warehouse, maxUnits: 1000 })
    expect(again.status).toBe("incomplete")
    expect(again.exitCode).toBe(6)
    expect(again.error).toMatch(/maxPages 5.*--sample/)
    expect(again.totals.units).toBe(0)
    expect(unitsSpent(h) - before).toBe(200)
  })

  it("refuses a page size above 200 and a body offset before any request", async () => {
    const before = requestCount(h)
    await expect(h.run(premisesSearch, { params: { body: { limit: 201 } } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "premises-search.body.limit"
    })
    await expect(h.run(premisesSearch, { params: { body: { offset: 20 } } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "premises-search.body.offset"
    })
    await expect(h.run(premisesSearch, { params: { maxPages: 0 } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "premises-search.maxPages"
    })
    expect(requestCount(h)).toBe(before)
  })
})
