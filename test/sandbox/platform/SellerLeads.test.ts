/**
 * High Potential Seller Leads over real HTTP: the list with its defaults (at least 1 cut adding
 * up to at least 5 %), paging through `next`, one lead by id, and refused queries.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startTestSandbox, type SandboxHandle } from "../../support/sandbox.js"

let sb: SandboxHandle & { close: () => Promise<void> }
beforeAll(async () => {
  sb = await startTestSandbox({ seed: 3, world: { properties: 8_000 } })
})
afterAll(() => sb.close())

// Madrid: the world places Spanish properties around its cities.
const AROUND = "latitude=40.4168&longitude=-3.7038&radius_km=50"

describe("seller leads", () => {
  it("lists leads around a point with the default thresholds, as the world's truth", async () => {
    const r = await call(sb.platformUrl, `/v1/seller-leads?${AROUND}&limit=200`)
    expect(r.status).toBe(200)
    expect(r.headers.get("svc-units-charged")).toBe("1")
    const truth = sb.context.world.sellerLeads({
      latitude: 40.4168,
      longitude: -3.7038,
      radius_km: 50,
      min_price_cuts: 1,
      min_price_cut_pct: 5,
      nowMs: sb.context.clock.now()
    })
    expect(r.body.count).toBe(truth.length)
    expect(truth.length).toBeGreaterThan(0)
    expect(r.body.returned).toBe(r.body.results.length)
    for (const lead of r.body.results) {
      expect(lead.id).toMatch(/^lead_/)
      expect(lead.property_id).toMatch(/^prop_/)
      expect(lead.price_cuts).toBeGreaterThanOrEqual(1)
      expect(lead.price_cut_pct).toBeGreaterThanOrEqual(5)
      expect(Array.isArray(lead.price_history)).toBe(true)
    }
  })

  it("pages through next and returns every lead once", async () => {
    const first = await call(sb.platformUrl, `/v1/seller-leads?${AROUND}&limit=3&min_price_cut_pct=1`)
    const ids: Array<string> = first.body.results.map((l: { id: string }) => l.id)
    let next = first.body.next as string | null
    while (next) {
      expect(next).not.toMatch(/key|token/i)
      const page = await call(sb.platformUrl, next)
      ids.push(...page.body.results.map((l: { id: string }) => l.id))
      next = page.body.next
    }
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(first.body.count)
    expect(ids.length).toBeGreaterThan(3)
  })

  it("reads one lead by its lead_ id; unknown ids answer 404", async () => {
    const list = await call(sb.platformUrl, `/v1/seller-leads?${AROUND}&limit=1&min_price_cut_pct=1`)
    expect(list.body.results).toHaveLength(1)
    const lead = list.body.results[0]
    const one = await call(sb.platformUrl, `/v1/seller-leads/${lead.id}`)
    expect(one.status).toBe(200)
    expect(one.body).toEqual(lead)
    const missing = await call(sb.platformUrl, "/v1/seller-leads/lead_0")
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe("not_found")
  })

  it.each([
    ["no point", "radius_km=2"],
    ["latitude out of range", "latitude=91&longitude=0"],
    ["radius above 50", "latitude=40&longitude=-3&radius_km=51"],
    ["min_price_cuts 0", "latitude=40&longitude=-3&min_price_cuts=0"],
    ["a bad since", "latitude=40&longitude=-3&since=yesterday"],
    ["limit 201", "latitude=40&longitude=-3&limit=201"],
    ["an unknown parameter", "latitude=40&longitude=-3&colour=red"]
  ])("refuses %s with 400 invalid_request", async (_, q) => {
    const r = await call(sb.platformUrl, `/v1/seller-leads?${q}`)
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("invalid_request")
  })
})
