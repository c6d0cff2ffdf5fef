import { describe, expect, it } from "vitest"
import sourcingDescribe, { searchKeyOf } from "../../pipelines/sourcing-describe.js"
import { phrasesToFilter } from "../../src/sandbox/platform/SourcingRequest.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness, type Harness } from "../support/pipelines.js"

const requestCount = (h: Harness) => Object.values(h.sandbox.control.stats().requests).reduce((a, b) => a + b, 0)

describe("sourcing-describe", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  const tags = ["apartment", "2 bedrooms", "under 300k"]

  it("lands the matches of the phrases once per search, as the sandbox's ground truth says", async () => {
    const world = h.sandbox.context.world
    // The sandbox's own reading of the phrases (its ground truth), not a copy of it.
    const filter = phrasesToFilter(tags, { country: "ES" })
    const truth = world.searchProperties(filter, 0, 1_000_000).results
    expect(truth.length).toBe(world.countProperties(filter))
    expect(truth.length).toBeGreaterThan(40)
    const pageSize = 40
    const pages = Math.ceil(truth.length / pageSize)
    const before = unitsSpent(h)

    const summary = await h.run(sourcingDescribe, { params: { tags, country: "ES", pageSize } })
    expect(summary.status).toBe("done")
    const [{ n, ids, keys }] = (await h.query(
      `SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids, count(DISTINCT search_key)::INTEGER AS keys FROM sourcing_describe_results`
    )) as Array<{ n: number; ids: number; keys: number }>
    expect([n, ids, keys]).toEqual([truth.length, truth.length, 1])
    const sample = truth[truth.length - 1]!
    const [row] = await h.query(`SELECT * FROM sourcing_describe_results WHERE id = '${sample.id}'`)
    expect(row!.search_key).toBe(searchKeyOf(tags))
    expect(row!.tags).toEqual(tags)
    expect(row!.price_eur).toBe(sample.price_eur)
    expect(row!.bedrooms).toBe(sample.bedrooms)
    expect(row!.type).toBe("apartment")
    expect(String(row!.search_id)).toMatch(/^srch_/)

    // describe is 2 units, each cursor page 1 (Assumed); the ledger equals the sandbox's charge
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger!.calls).toBe(pages)
    expect(ledger!.units).toBe(2 + (pages - 1))
    expect(ledger!.units).toBe(unitsSpent(h) - before)
    expect(summary.plan.exact).toBe(false)
    // planned at one page until the first page's count (describe prices every page at 2)
    expect(summary.plan.units).toBe(2)
    expect(summary.totals.units).toBeLessThanOrEqual(summary.expected.units)
  })

  it("merges the same phrases sent as one description into the same rows", async () => {
    const summary = await h.run(sourcingDescribe, {
      params: { description: "2 bedrooms, Apartment and under 300k", country: "ES", maxPages: 1, pageSize: 25, sample: true }
    })
    expect(summary.status).toBe("done")
    expect(summary.totals.records).toBe(25)
    const keys = await h.query(`SELECT search_key, count(*)::INTEGER AS n FROM sourcing_describe_results GROUP BY search_key`)
    expect(keys).toHaveLength(1)
    expect(keys[0]!.search_key).toBe(searchKeyOf(tags))
  })

  it("refuses bad parameters before any request", async () => {
    const before = requestCount(h)
    await expect(h.run(sourcingDescribe, { params: { tags, description: "flat", country: "ES" } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(sourcingDescribe, { params: { country: "ES" } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(
      h.run(sourcingDescribe, { params: { tags: Array.from({ length: 21 }, (_, i) => `phrase ${i}`), country: "ES" } })
    ).rejects.toMatchObject({ _tag: "InvalidInput", field: "sourcing-describe.tags" })
    await expect(h.run(sourcingDescribe, { params: { tags } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "sourcing-describe.country"
    })
    expect(requestCount(h)).toBe(before)
  })
})
