/**
 * Properties over HTTP: searches v1 (offset) and v2 (cursor) return every matching property
 * exactly once (ground truth: `world.tokenSearch`), get by id, match-by-listings limits.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TokenHostFixture, hasIssue, startTokenHost } from "./serveTokenHost.js"

describe("token host properties", () => {
  let h: TokenHostFixture
  let token: string
  beforeAll(async () => {
    h = await startTokenHost()
    token = (await h.login()).access_token
  })
  afterAll(() => h.close())

  const truth = (filter: { operation?: "sale" | "rent"; types?: Array<string> }) =>
    Array.from(h.ctx.world.tokenSearch(filter, h.ctx.clock.now()), (i) => h.ctx.world.propertyIdOf(i))

  const follow = async (path: string, body: object) => {
    const ids: Array<number> = []
    let url: string | null = path
    let count = -1
    let pages = 0
    while (url !== null) {
      const r = await h.call("POST", url, { token, body })
      expect(r.status).toBe(200)
      expect(Object.keys(r.body).sort()).toEqual(["count", "next", "previous", "results"])
      count = r.body.count
      ids.push(...r.body.results.map((p: { property_id: number }) => p.property_id))
      url = r.body.next
      if (url !== null) expect(url.startsWith(h.url)).toBe(true)
      pages += 1
    }
    return { ids, count, pages }
  }

  it("v1 pages by limit/offset and returns every match exactly once", async () => {
    const filter = { operation: "sale" as const }
    const expected = truth(filter)
    expect(expected.length).toBeGreaterThan(120)
    const { ids, count, pages } = await follow("/api/v1/properties/search", { ...filter, limit: 50 })
    expect(count).toBe(expected.length)
    expect(pages).toBe(Math.ceil(expected.length / 50))
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expected)
  })

  it("v1 links carry limit and offset; previous goes back", async () => {
    const r = await h.call("POST", "/api/v1/properties/search", { token, body: { limit: 10, offset: 20 } })
    expect(r.status).toBe(200)
    const next = new URL(r.body.next)
    expect(next.pathname).toBe("/api/v1/properties/search")
    expect([next.searchParams.get("limit"), next.searchParams.get("offset")]).toEqual(["10", "30"])
    expect(new URL(r.body.previous).searchParams.get("offset")).toBe("10")
  })

  it("v2 pages by cursor and returns every match exactly once", async () => {
    const filter = { types: ["apartment", "penthouse", "studio"] }
    const expected = truth(filter)
    expect(expected.length).toBeGreaterThan(40)
    const { ids, count } = await follow("/api/v2/properties/search", { ...filter, limit: 40 })
    expect(count).toBe(expected.length)
    expect(ids).toEqual(expected)
    const first = await h.call("POST", "/api/v2/properties/search", { token, body: { ...filter, limit: 40 } })
    expect(new URL(first.body.next).searchParams.get("cursor")).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it("refuses offset above 50000, limit out of range, bad cursors and mixed type groups", async () => {
    const deep = await h.call("POST", "/api/v1/properties/search", { token, body: { offset: 50001 } })
    expect(deep.status).toBe(422)
    expect(hasIssue(deep.body, "body.offset", "less_than_equal")).toBe(true)
    expect((await h.call("POST", "/api/v1/properties/search?limit=10&offset=50001", { token, body: {} })).status).toBe(422)
    expect((await h.call("POST", "/api/v1/properties/search", { token, body: { offset: 50000 } })).status).toBe(200)
    expect((await h.call("POST", "/api/v1/properties/search", { token, body: { limit: 0 } })).status).toBe(422)
    expect((await h.call("POST", "/api/v2/properties/search?cursor=bogus", { token, body: {} })).status).toBe(422)
    const mixed = await h.call("POST", "/api/v2/properties/search", { token, body: { types: ["apartment", "villa"] } })
    expect(mixed.status).toBe(400)
    expect(Object.keys(mixed.body).sort()).toEqual(["details", "errors", "message"])
  })

  it("gets one property by id in the envelope; offset above 50000 refused; unknown id 404", async () => {
    const id = h.ctx.world.propertyIdOf(7)
    const r = await h.call("GET", `/api/v1/properties/search/${id}?limit=10&offset=0`, { token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ count: 1, next: null, previous: null })
    expect(r.body.results.property_id).toBe(id)
    expect(Array.isArray(r.body.results.listings)).toBe(true)
    const deep = await h.call("GET", `/api/v1/properties/search/${id}?offset=50001`, { token })
    expect(deep.status).toBe(422)
    expect(hasIssue(deep.body, "query.offset", "less_than_equal")).toBe(true)
    expect((await h.call("GET", "/api/v1/properties/search/999999999999", { token })).status).toBe(404)
  })

  it("matches listing ids to properties within the limits", async () => {
    const a = h.ctx.world.listingIdsOf(3)
    const b = h.ctx.world.listingIdsOf(11)
    const r = await h.call("POST", "/api/v1/properties/match-by-listings", { token, body: { listing_ids: [...a, ...b] } })
    expect(r.status).toBe(200)
    expect(r.body).toEqual([
      { property_id: h.ctx.world.propertyIdOf(3), listing_ids: [...a] },
      { property_id: h.ctx.world.propertyIdOf(11), listing_ids: [...b] }
    ])
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    expect((await h.call("POST", "/api/v1/properties/match-by-listings", { token, body: { listing_ids: hundred } })).status).toBe(200)
    const tooMany = await h.call("POST", "/api/v1/properties/match-by-listings", { token, body: { listing_ids: [...hundred, 101] } })
    expect(tooMany.status).toBe(422)
    expect(hasIssue(tooMany.body, "body.listing_ids", "too_long")).toBe(true)
    const zero = await h.call("POST", "/api/v1/properties/match-by-listings", { token, body: { listing_ids: [5, 0] } })
    expect(hasIssue(zero.body, "body.listing_ids.1", "greater_than_equal")).toBe(true)
    const missing = await h.call("POST", "/api/v1/properties/match-by-listings", { token, body: {} })
    expect(hasIssue(missing.body, "body.listing_ids", "missing")).toBe(true)
  })

  it("creates smart links and checks every rule of the table", async () => {
    const valid = {
      primary_listing_ids: [h.ctx.world.listingIdsOf(0)[0]],
      settings: { language: "en", brand_color: "#00AAFF", components_to_include: ["price", "comparables"] },
      user: { first_name: "Ana", last_name: "Lopez", phone: "+34600000000", email: "ana@example.com" },
      company: { name: "Agency" }
    }
    const ok = await h.call("POST", "/api/v1/properties/smart-links", { token, body: valid })
    expect(ok.status).toBe(200)
    expect(Object.keys(ok.body).sort()).toEqual(["id", "url"])
    const cases: Array<[object, string, string]> = [
      [{ ...valid, primary_listing_ids: [] }, "body.primary_listing_ids", "too_short"],
      [{ ...valid, primary_listing_ids: Array.from({ length: 11 }, (_, i) => i + 1) }, "body.primary_listing_ids", "too_long"],
      [{ ...valid, settings: { language: "nl" } }, "body.settings.language", "literal_error"],
      [{ ...valid, settings: {} }, "body.settings.language", "missing"],
      [{ ...valid, settings: { language: "en", brand_color: "#0123456789" } }, "body.settings.brand_color", "string_too_long"],
      [
        { ...valid, settings: { language: "en", components_to_include: ["photos"] } },
        "body.settings.components_to_include.0",
        "literal_error"
      ],
      [{ ...valid, settings: { language: "en", is_hide_source: "yes" } }, "body.settings.is_hide_source", "bool_type"],
      [{ ...valid, user: { ...valid.user, email: "not-an-email" } }, "body.user.email", "value_error"],
      [{ ...valid, user: { first_name: "A", last_name: "B", email: "a@b.co" } }, "body.user.phone", "missing"],
      [{ ...valid, user: { ...valid.user, photo_url: "me.png" } }, "body.user.photo_url", "url_parsing"],
      [{ ...valid, company: {} }, "body.company.name", "missing"],
      [{ primary_listing_ids: [1], settings: { language: "en" } }, "body.user", "missing"]
    ]
    for (const [body, loc, type] of cases) {
      const r = await h.call("POST", "/api/v1/properties/smart-links", { token, body })
      expect(r.status, loc).toBe(422)
      expect(hasIssue(r.body, loc, type), JSON.stringify(r.body)).toBe(true)
    }
  })
})
