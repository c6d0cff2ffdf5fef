import { describe, expect, it } from "vitest"
import propertiesById from "../../pipelines/properties-by-id.js"
import propertiesMatch from "../../pipelines/properties-match.js"
import propertiesSearch from "../../pipelines/properties-search.js"
import { useHarness } from "../support/pipelines.js"

describe("properties pipelines", () => {
  const h = useHarness({ sandbox: { world: { properties: 3000 } } })

  it("properties-by-id lands each property with its listings and histories as the world has them", async () => {
    const world = h.sandbox.context.world
    const ids = [0, 7, 99, 1234].map((i) => world.propertyIdOf(i))
    const summary = await h.run(propertiesById, { params: { ids } })
    expect(summary.status).toBe("done")
    expect(summary.plan.requests).toBe(ids.length)
    // one request per id, plus the login of this run's fresh token session
    expect(summary.totals.requests).toBe(ids.length + 1)
    const rows = await h.query(`SELECT property_id, type, sale_price, listings_count FROM properties ORDER BY property_id`)
    expect(rows.map((r) => r.property_id)).toEqual([...ids].sort((a, b) => a - b))
    for (const id of ids) {
      const truth = world.propertyById(id, h.sandbox.context.clock.now())!
      const row = rows.find((r) => r.property_id === id)!
      expect(row.type).toBe(truth.type)
      expect(row.sale_price).toBe(truth.sale_price ?? null)
      const [listings] = await h.query(`SELECT count(*) AS n FROM property_listings WHERE property_id = ${id}`)
      expect(listings!.n).toBe(truth.listings.length)
      const [prices] = await h.query(`SELECT count(*) AS n FROM property_price_history WHERE property_id = ${id}`)
      expect(prices!.n).toBe(truth.sale_price_history.length + truth.rent_price_history.length)
    }
  })

  it("properties-match maps listing ids to properties in batches of at most 100", async () => {
    const world = h.sandbox.context.world
    const listingIds = Array.from({ length: 230 }, (_, i) => world.listingIdsOf(i * 3)[0]!)
    const summary = await h.run(propertiesMatch, { params: { listingIds } })
    expect(summary.status).toBe("done")
    expect(summary.totals.requests).toBe(3 + 1) // 3 batches + login
    const rows = await h.query(`SELECT listing_id, property_id FROM listing_matches ORDER BY listing_id`)
    expect(rows).toHaveLength(230)
    const truth = new Map(world.matchListings(listingIds).flatMap((m) => m.listing_ids.map((l) => [l, m.property_id] as const)))
    for (const r of rows.slice(0, 20)) expect(r.property_id).toBe(truth.get(r.listing_id as number))
  })

  it("properties-search v1 and v2 follow next and land every match once", async () => {
    const world = h.sandbox.context.world
    const filter = { operation: "sale" as const, types: ["apartment", "penthouse"] as Array<string> }
    const truth = world.tokenSearch(filter, h.sandbox.context.clock.now())
    for (const version of [1, 2] as const) {
      const summary = await h.run(propertiesSearch, { params: { ...filter, version, pageSize: 50 }, fullRefresh: true })
      expect(summary.status).toBe("done")
      expect(summary.totals.records).toBe(truth.length)
      expect(summary.totals.pages).toBe(Math.ceil(truth.length / 50))
    }
    const [n] = await h.query(
      `SELECT count(*) AS n, count(DISTINCT property_id) AS d FROM properties WHERE type IN ('apartment', 'penthouse') AND operations::VARCHAR LIKE '%sale%'`
    )
    expect(n!.d).toBe(truth.length)
  })

  it("refuses bad parameters before any request", async () => {
    const before = h.sandbox.control.stats().requests
    const total = (m: Record<string, number> | Map<string, number>) =>
      [...(m instanceof Map ? m.values() : Object.values(m))].reduce((s, v) => s + v, 0)
    await expect(h.run(propertiesMatch, { params: { listingIds: [1], batchSize: 101 } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "properties-match.batchSize"
    })
    await expect(h.run(propertiesSearch, { params: { types: ["castle"] } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(total(h.sandbox.control.stats().requests)).toBe(total(before))
  })
})
