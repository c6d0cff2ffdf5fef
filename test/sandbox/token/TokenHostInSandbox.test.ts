/**
 * The token host as the sandbox server mounts it (its own port, middleware around it): login,
 * Area Insights distributions and analysis against the world's ground truth, and drift.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SANDBOX_USER } from "../../../src/sandbox/Credentials.js"
import type { MarketFilter } from "../../../src/sandbox/world/World.js"
import { type SandboxHandle, call, startTestSandbox } from "../../support/sandbox.js"

describe("token host inside the sandbox", () => {
  let sb: SandboxHandle & { readonly close: () => Promise<void> }
  let token: string
  const api = (path: string, body?: unknown) => call(sb.apiUrl, path, { key: token, ...(body !== undefined ? { body } : {}) })

  beforeAll(async () => {
    sb = await startTestSandbox({ clock: "fixed", world: { properties: 2_000 } })
    const r = await call(sb.apiUrl, "/login", { key: null, body: SANDBOX_USER })
    expect(r.status).toBe(200)
    token = r.body.access_token
  })
  afterAll(() => sb.close())

  it("counts logins and answers protected routes with the token", async () => {
    expect(sb.context.stats.logins.count).toBe(1)
    expect((await api("/api/v1/references/conditions")).status).toBe(200)
    expect((await call(sb.apiUrl, "/api/v1/references/conditions", { key: null })).status).toBe(401)
  })

  it("serves the distributions and the analysis from the world", async () => {
    const location = sb.context.world.locations.find((n) => n.administrative_level === "country")!
    const filter = {
      types: ["apartment", "studio"],
      business_type: "sale",
      custom_location_boundary: { location_ids: [location.location_id] }
    }
    const now = sb.context.clock.now()
    const expected: MarketFilter = { ...(filter as MarketFilter), auction: false, exclude_outliers: false }
    const w = sb.context.world
    const cases: Array<[string, unknown]> = [
      ["bedrooms", w.bedroomsDistribution(expected, now)],
      ["prices", w.pricesDistribution(expected, now)],
      ["properties", w.propertiesDistribution(expected, now)],
      ["time-on-market", w.timeOnMarketDistribution(expected, now)]
    ]
    for (const [name, truth] of cases) {
      const r = await api(`/market-analytics-api/distributions/${name}`, filter)
      expect(r.status, name).toBe(200)
      expect(r.body).toEqual(JSON.parse(JSON.stringify(truth)))
    }
    const analysis = await api("/market-analytics-api/analysis", filter)
    expect(analysis.status).toBe(200)
    expect(Object.keys(analysis.body).sort()).toEqual([
      "available_on_market",
      "avg_days_on_market",
      "avg_price",
      "avg_price_psqm",
      "median_price",
      "price_trend_pct"
    ])
    // the time-series-only fields are not needed, the shared rules still apply
    const bad = await api("/market-analytics-api/distributions/bedrooms", { ...filter, types: ["apartment", "villa"] })
    expect(bad.status).toBe(400)
    const missing = await api("/market-analytics-api/analysis", { business_type: "sale" })
    expect(missing.status).toBe(422)
  })

  it("passes records through world.drift when the token drift rate is set", async () => {
    const w = sb.context.world
    const id = w.propertyIdOf(5)
    const clean = await api(`/api/v1/properties/search/${id}`)
    expect(clean.body.results).toEqual(JSON.parse(JSON.stringify(w.propertyById(id, sb.context.clock.now()))))
    sb.context.driftRate.token = 1
    try {
      const drifted = await api(`/api/v1/properties/search/${id}`)
      expect(drifted.status).toBe(200)
      expect(drifted.body.results).not.toEqual(clean.body.results)
      expect(drifted.body.results).toEqual(JSON.parse(JSON.stringify(w.drift(w.propertyById(id, sb.context.clock.now())!, "property", 1))))
    } finally {
      sb.context.driftRate.token = 0
    }
  })
})
