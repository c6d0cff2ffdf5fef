import * as path from "node:path"
import { describe, expect, it } from "vitest"
import sellerLeads from "../../pipelines/seller-leads.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness, type Harness } from "../support/pipelines.js"

const requestCount = (h: Harness) => Object.values(h.sandbox.control.stats().requests).reduce((a, b) => a + b, 0)

describe("seller-leads", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  const points = [
    { name: "Madrid", latitude: 40.42, longitude: -3.7 },
    { name: "Paris", latitude: 48.86, longitude: 2.35 },
    { latitude: 48.8, longitude: 2.13, radius_km: 4 }
  ]

  it("lands every lead around each point with its histories, as the sandbox's ground truth says", async () => {
    const world = h.sandbox.context.world
    const criteria = { min_price_cuts: 2, min_price_cut_pct: 3 }
    const truth = points.map((p) =>
      world.sellerLeads({ latitude: p.latitude, longitude: p.longitude, radius_km: p.radius_km ?? 5, ...criteria })
    )
    const all = new Map(truth.flat().map((l) => [l.id, l]))
    expect(all.size).toBe(truth.reduce((s, t) => s + t.length, 0)) // the circles do not overlap
    const pageSize = 10
    const pages = truth.reduce((s, t) => s + Math.max(1, Math.ceil(t.length / pageSize)), 0)
    const before = unitsSpent(h)

    const summary = await h.run(sellerLeads, { params: { points, radius_km: 5, ...criteria, pageSize, concurrency: 2 } })
    expect(summary.status).toBe("done")
    const [{ n, ids }] = (await h.query(`SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids FROM seller_leads`)) as Array<{
      n: number
      ids: number
    }>
    expect([n, ids]).toEqual([all.size, all.size])
    const byPoint = await h.query(
      `SELECT point_name, count(*)::INTEGER AS n FROM seller_leads GROUP BY point_name ORDER BY point_name NULLS LAST`
    )
    expect(byPoint).toEqual([
      { point_name: "Madrid", n: truth[0]!.length },
      { point_name: "Paris", n: truth[1]!.length },
      { point_name: null, n: truth[2]!.length }
    ])
    const [history] = await h.query(
      `SELECT (SELECT count(*) FROM seller_lead_price_history)::INTEGER AS prices, (SELECT count(*) FROM seller_lead_status_history)::INTEGER AS statuses`
    )
    expect(history).toEqual({
      prices: [...all.values()].reduce((s, l) => s + l.price_history.length, 0),
      statuses: [...all.values()].reduce((s, l) => s + l.status_history.length, 0)
    })

    const sample = truth[1]![truth[1]!.length - 1]!
    const [row] = await h.query(`SELECT * FROM seller_leads WHERE id = '${sample.id}'`)
    expect(row!.property_id).toBe(sample.property_id)
    expect(row!.price_cuts).toBe(sample.price_cuts)
    expect(row!.price_cut_pct).toBe(sample.price_cut_pct)
    expect(row!.current_price).toBe(sample.current_price)
    expect(row!.price_eur).toBe(sample.home.price_eur)
    expect(row!.country).toBe("FR")
    expect(row!.point_key).toBe("48.86,2.35,5")
    const priceRows = await h.query(
      `SELECT strftime(date, '%Y-%m-%d') AS date, price FROM seller_lead_price_history WHERE lead_id = '${sample.id}' ORDER BY seq`
    )
    expect(priceRows).toEqual(sample.price_history.map((p) => ({ date: p.date, price: p.price })))

    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger).toEqual({ calls: pages, units: pages })
    expect(unitsSpent(h) - before).toBe(pages)
    // never read in full: one page a point until its count says more; the count then says the pages
    expect(summary.plan).toMatchObject({ requests: points.length, exact: false })
    expect(summary.expected.pages).toBe(pages)
  })

  it("counts cuts since a date when asked", async () => {
    const world = h.sandbox.context.world
    const warehouse = path.join(h.dir, "since.duckdb")
    const point = points[1]!
    const truth = world.sellerLeads({
      latitude: point.latitude,
      longitude: point.longitude,
      radius_km: 10,
      min_price_cuts: 1,
      min_price_cut_pct: 1,
      since: "2026-03-01"
    })
    expect(truth.length).toBeGreaterThan(0)
    const summary = await h.run(sellerLeads, {
      params: { points: [point], radius_km: 10, min_price_cuts: 1, min_price_cut_pct: 1, since: "2026-03-01" },
      warehouse
    })
    expect(summary.status).toBe("done")
    const rows = await h.query(`SELECT id FROM seller_leads ORDER BY id`, warehouse)
    expect(rows.map((r) => r.id)).toEqual(truth.map((l) => l.id).sort())
  })

  it("refuses bad parameters before any request", async () => {
    const before = requestCount(h)
    const bad = [
      { points: [] },
      { points: [{ latitude: 95, longitude: 0 }] },
      { points: [{ latitude: 40, longitude: -3, radius_km: 60 }] },
      { points: [points[0]], since: "2026-13-01" },
      { points: [points[0]], min_price_cuts: 0 },
      { points: [points[0], { ...points[0], name: "again" }] }
    ]
    for (const params of bad) await expect(h.run(sellerLeads, { params })).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(requestCount(h)).toBe(before)
  })
})
