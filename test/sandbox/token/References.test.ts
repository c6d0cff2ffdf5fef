/**
 * The ten References operations over HTTP: shapes of the spec (features, sources) and of
 * docs/ASSUMPTIONS.md (the others), compared with the world's ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TokenHostFixture, hasIssue, startTokenHost } from "./serveTokenHost.js"

const R = "/api/v1/references"
const keys = (o: object) => Object.keys(o).sort()

describe("references", () => {
  let h: TokenHostFixture
  let token: string
  beforeAll(async () => {
    h = await startTokenHost()
    token = (await h.login()).access_token
  })
  afterAll(() => h.close())
  const get = (path: string) => h.call("GET", `${R}${path}`, { token })
  const post = (path: string, body?: unknown) => h.call("POST", `${R}${path}`, { token, body })

  it("features: list of {group, names}", async () => {
    const r = await get("/features")
    expect(r.status).toBe(200)
    expect(r.body.length).toBeGreaterThan(0)
    for (const g of r.body) {
      expect(keys(g)).toEqual(["group", "names"])
      expect(g.names.every((n: unknown) => typeof n === "string")).toBe(true)
    }
    expect(r.body).toEqual(JSON.parse(JSON.stringify(h.ctx.world.featureGroups)))
  })

  it("sources: {domains}; locationId required", async () => {
    const country = h.ctx.world.locations[0]!
    const r = await get(`/sources?locationId=${country.location_id}`)
    expect(r.status).toBe(200)
    expect(keys(r.body)).toEqual(["domains"])
    expect(r.body.domains).toEqual(h.ctx.world.sources(country.location_id))
    const missing = await get("/sources")
    expect(missing.status).toBe(422)
    expect(hasIssue(missing.body, "query.locationId", "missing")).toBe(true)
    expect((await get("/sources?locationId=abc")).status).toBe(422)
  })

  it("agencies, agents, conditions and types", async () => {
    const agencies = await get("/agencies")
    expect(agencies.body.length).toBe(h.ctx.world.agencies.length)
    expect(keys(agencies.body[0])).toEqual(["agency_id", "country", "name"])
    const agents = await get("/agents")
    expect(keys(agents.body[0])).toEqual(["agency_id", "agent_id", "name"])
    const conditions = await get("/conditions")
    expect(conditions.body.map((c: { name: string }) => c.name).sort()).toEqual(["new", "other", "ruin", "used", "very-good"])
    const types = await get("/types")
    expect(keys(types.body[0])).toEqual(["countries", "group", "name"])
    expect(types.body.length).toBe(40)
  })

  it("locations: filtered by country, parent and level", async () => {
    const all = await post("/locations")
    expect(all.status).toBe(200)
    expect(all.body.length).toBe(h.ctx.world.locations.length)
    expect(keys(all.body[0])).toEqual(["administrative_level", "country", "location_id", "name", "parent_id", "zip_codes"])
    const countries = await post("/locations", { level: "country" })
    expect(countries.body.map((n: { country: string }) => n.country).sort()).toEqual([...h.ctx.world.countries].sort())
    const es = await post("/locations", { country: "ES", level: "region" })
    expect(es.body.length).toBeGreaterThan(0)
    expect(
      es.body.every((n: { country: string; administrative_level: string }) => n.country === "ES" && n.administrative_level === "region")
    ).toBe(true)
    const parent = es.body[0].location_id
    const children = await post("/locations", { parent_id: parent })
    expect(children.body.map((n: { location_id: number }) => n.location_id)).toEqual(
      h.ctx.world.childrenOf(parent).map((n) => n.location_id)
    )
    expect((await post("/locations", { level: "planet" })).status).toBe(422)
  })

  it("locations/by-coordinates: {location, locations_structure}", async () => {
    const district = h.ctx.world.locations.find((n) => n.administrative_level === "district")!
    const c = h.ctx.world.locationCenter(district.location_id)!
    const r = await get(`/locations/by-coordinates?latitude=${c.latitude}&longitude=${c.longitude}`)
    expect(r.status).toBe(200)
    expect(keys(r.body)).toEqual(["location", "locations_structure"])
    expect(r.body.location.location_id).toBe(h.ctx.world.locationByCoordinates(c)!.location_id)
    expect(r.body.locations_structure.at(-1).administrative_level).toBe("country")
    expect((await get("/locations/by-coordinates?latitude=91&longitude=0")).status).toBe(422)
    expect((await get("/locations/by-coordinates?latitude=1")).status).toBe(422)
  })

  it("locations/typeahead: ES or PT only", async () => {
    const es = h.ctx.world.locations.find((n) => n.country === "ES" && n.administrative_level === "municipality")!
    const r = await post("/locations/typeahead", { country: "ES", query: es.name.slice(0, 3), limit: 5 })
    expect(r.status).toBe(200)
    expect(r.body.length).toBeGreaterThan(0)
    expect(r.body.length).toBeLessThanOrEqual(5)
    expect(keys(r.body[0])).toEqual(["administrative_level", "location_id", "name"])
    const fr = await post("/locations/typeahead", { country: "FR", query: "Par" })
    expect(hasIssue(fr.body, "body.country", "literal_error")).toBe(true)
  })

  it("zipcode-boundary: a closed polygon", async () => {
    const node = h.ctx.world.locations.find((n) => n.zip_codes.length > 0)!
    const r = await post("/zipcode-boundary", { country_code: node.country, zip_code: node.zip_codes[0] })
    expect(r.status).toBe(200)
    expect(keys(r.body)).toEqual(["country_code", "polygon", "zip_code"])
    expect(r.body.polygon.length).toBeGreaterThanOrEqual(4)
    expect(r.body.polygon[0]).toEqual(r.body.polygon.at(-1))
    expect((await post("/zipcode-boundary", { country_code: "ES", zip_code: "no-such-zip" })).status).toBe(404)
    expect((await post("/zipcode-boundary", { country_code: "ES" })).status).toBe(422)
  })
})
