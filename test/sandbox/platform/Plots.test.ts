/**
 * Commercial plot search over real HTTP: the 200 body exactly as the spec lists it, the default
 * commercial-use filter and what replaces it, the five sorts, paging, `Ai-Version`, and the
 * plot service's own `{error}` body for invalid criteria. Counts come from the world's truth.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CommercialUseLevel, DEFAULT_COMMERCIAL_USE, PlotSort } from "../../../src/service/schema/Enums.js"
import { call, startTestSandbox, type SandboxHandle } from "../../support/sandbox.js"

let sb: SandboxHandle & { close: () => Promise<void> }
beforeAll(async () => {
  sb = await startTestSandbox({ seed: 5, world: { properties: 1_000, plots: 800 } })
})
afterAll(() => sb.close())

const PATH = "/v1/ai/plots/search"
const plots = (criteria: Record<string, unknown>) => call(sb.platformUrl, PATH, { body: { criteria } })
const truth = async (criteria: Record<string, unknown>) =>
  (await call(sb.platformUrl, `/__sandbox/truth/plots?criteria=${encodeURIComponent(JSON.stringify(criteria))}`)).body as {
    count: number
    ids: Array<string>
  }

describe("plot search", () => {
  it("answers the documented 200 body with Ai-Version", async () => {
    const r = await plots({ limit: 5 })
    expect(r.status).toBe(200)
    expect(r.headers.get("ai-version")).toBeTruthy()
    expect(Object.keys(r.body).sort()).toEqual(["count", "country", "criteria", "note", "offset", "results", "returned", "scope"])
    expect(r.body.country).toBe("de")
    expect(r.body.offset).toBe(0)
    expect(r.body.returned).toBe(r.body.results.length)
    expect(typeof r.body.scope).toBe("string")
    expect(typeof r.body.note).toBe("string")
    const result = r.body.results[0]
    for (const k of [
      "id",
      "title",
      "plot_type",
      "country",
      "region",
      "municipality",
      "zipcode",
      "location_precision",
      "coordinates",
      "for_sale",
      "for_rent",
      "sale_eur",
      "rent_eur_month",
      "plot_area_m2",
      "sale_eur_per_m2",
      "commercial_use",
      "facts_from_text",
      "excerpt",
      "agency",
      "agency_links"
    ]) {
      expect(result).toHaveProperty(k)
    }
    expect(result.coordinates).toEqual({ lat: expect.any(Number), lon: expect.any(Number), precision: expect.any(String) })
    expect(Object.keys(result.commercial_use)).toEqual(expect.arrayContaining(["level", "meaning", "evidence", "facts_read"]))
  })

  it("filters on the first three commercial-use levels by default; `all` or a list replaces the default", async () => {
    const byDefault = await plots({ limit: 100 })
    expect(byDefault.body.criteria.commercial_use).toEqual(DEFAULT_COMMERCIAL_USE)
    for (const p of byDefault.body.results) expect(DEFAULT_COMMERCIAL_USE).toContain(p.commercial_use.level)
    expect(byDefault.body.count).toBe((await truth({})).count)

    const all = await plots({ commercial_use: "all", limit: 1 })
    expect(all.body.count).toBe((await truth({ commercial_use: "all" })).count)
    expect(all.body.count).toBeGreaterThan(byDefault.body.count)

    const one = await plots({ commercial_use: ["not_stated"], limit: 100 })
    for (const p of one.body.results) expect(p.commercial_use.level).toBe("not_stated")
    expect(one.body.count).toBe((await truth({ commercial_use: ["not_stated"] })).count)
  })

  it.each(PlotSort.values)("sort %s pages in the world's order", async (sort) => {
    const criteria = { commercial_use: "all", sort }
    const expected = (await truth(criteria)).ids
    const first = await plots({ ...criteria, limit: 30, offset: 0 })
    const second = await plots({ ...criteria, limit: 30, offset: 30 })
    expect(first.body.results.map((p: { id: string }) => p.id)).toEqual(expected.slice(0, 30))
    expect(second.body.results.map((p: { id: string }) => p.id)).toEqual(expected.slice(30, 60))
    expect(second.body.offset).toBe(30)
    expect(second.body.criteria).toMatchObject({ sort, limit: 30, offset: 30 })
  })

  it("applies the other criteria as the world does", async () => {
    const criteria = {
      commercial_use: "all",
      plot_types: ["building_plot"],
      operation: "sale",
      plot_area_min: 500,
      sale_price_max: 900_000,
      serviced: true
    }
    const r = await plots({ ...criteria, limit: 100 })
    expect(r.body.count).toBe((await truth(criteria)).count)
    for (const p of r.body.results) {
      expect(p.plot_type).toBe("building_plot")
      expect(p.for_sale).toBe(true)
      expect(p.plot_area_m2).toBeGreaterThanOrEqual(500)
      expect(p.sale_eur).toBeLessThanOrEqual(900_000)
    }
  })

  it.each([
    ["no criteria object", undefined],
    ["an unknown criterion", { colour: "red" }],
    ["a bad plot type", { plot_types: ["urban_plot"] }],
    ["a bad operation", { operation: "lease" }],
    ["a bad commercial-use level", { commercial_use: "industrial" }],
    ["an empty level list", { commercial_use: [] }],
    ["a bad sort", { sort: "cheapest" }],
    ["a negative area", { plot_area_min: -1 }],
    ["min above max", { sale_price_min: 10, sale_price_max: 5 }],
    ["serviced as a string", { serviced: "yes" }],
    ["limit 101", { limit: 101 }],
    ["limit 0", { limit: 0 }],
    ["a negative offset", { offset: -1 }],
    ["regions not a list", { regions: "Bayern" }]
  ])("refuses %s with 400 {error: invalid_request}", async (_, criteria) => {
    const r = await call(sb.platformUrl, PATH, { body: criteria === undefined ? {} : { criteria } })
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ error: { code: "invalid_request", message: expect.any(String) } })
    expect(r.headers.get("ai-version")).toBeTruthy()
  })

  it("knows every commercial-use level", async () => {
    const r = await plots({ commercial_use: [...CommercialUseLevel.values], limit: 1 })
    expect(r.body.count).toBe((await truth({ commercial_use: "all" })).count)
  })
})
