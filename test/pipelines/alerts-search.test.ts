import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/alerts-search.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

const ROUTE = "POST /api/v1/listing-alerts/search"
const FROM = "2026-05-01T00:00:00"

describe("alerts-search", () => {
  let h: Harness
  const made = () => h.sandbox.control.stats().requests[ROUTE] ?? 0
  const truth = (offset = 0, limit = 0) =>
    h.sandbox.context.world.alerts({
      nowMs: h.sandbox.control.now(),
      createdFrom: Date.parse(`${FROM}Z`),
      subtypes: ["new", "price_down"],
      offset,
      limit
    })
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 600 } } })
  })
  afterAll(() => h.close())

  it("lands every alert the search matches, in pages, once; the plan (from a free count) matches the pages read", async () => {
    const { count } = truth()
    expect(count).toBeGreaterThan(150)
    const before = made()
    const summary = await h.run(pipeline, {
      params: { search: { alert_subtypes: ["new", "price_down"], created_at_from: FROM }, page_size: 100 }
    })
    expect(summary.status).toBe("done")
    expect(summary.plan.requests).toBe(Math.ceil(count / 100))
    expect(summary.plan.records).toBe(count)
    // the plan's count call, then the pages
    expect(made() - before).toBe(summary.plan.requests + 1)
    expect(summary.totals.pages).toBe(summary.plan.requests)
    const [{ n, ids }] = (await h.query(`SELECT count(*) AS n, count(DISTINCT alert_id) AS ids FROM alerts`)) as Array<{
      n: number
      ids: number
    }>
    expect(Number(n)).toBe(count)
    expect(Number(ids)).toBe(count)
    const sample = truth(17, 1).results[0]!
    const [row] = await h.query(`SELECT alert_subtype, listing_id, sale_price, rent_price FROM alerts WHERE alert_id = ${sample.alert_id}`)
    expect(row).toEqual({
      alert_subtype: sample.alert_subtype,
      listing_id: sample.listing_id,
      sale_price: sample.sale_price ?? null,
      rent_price: sample.rent_price ?? null
    })
  })

  it("stops at max_pages: incomplete (exit 6) naming the cap, or reported as a cap in a sample", async () => {
    const before = made()
    const params = { search: { alert_subtypes: ["price_up"] }, page_size: 10, max_pages: 2 }
    const cut = await h.run(pipeline, { params })
    expect(cut.totals.pages).toBe(2)
    expect(cut.totals.records).toBe(20)
    expect(made() - before).toBe(3)
    expect([cut.status, cut.exitCode]).toEqual(["incomplete", 6])
    expect(cut.error).toMatch(/cut by maxPages 2 before the service's end: declared \d+, received 20/)
    const sample = await h.run(pipeline, { params, sample: true })
    expect([sample.status, sample.exitCode, sample.totals.records]).toEqual(["done", 0, 20])
    expect(sample.completeness.caps[0]).toMatch(/capped by maxPages 2 \(a sample\)/)
  })

  it("refuses bad parameters before any request", async () => {
    const before = made()
    await expect(h.run(pipeline, { params: { search: { limit: 5 } } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { search: { alert_subtypes: ["gone"] } } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { search: { created_at_from: "2026-05-01" } } })).rejects.toThrow(/date-time/)
    expect(made()).toBe(before)
  })
})
