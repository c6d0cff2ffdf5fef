/**
 * Property Sourcing over real HTTP: search shapes, paging through `next` returns every
 * matching record exactly once (against the world's ground truth), stateless cursors,
 * plain-language describe, property detail and resolve, and every validation rule.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startTestSandbox, type SandboxHandle } from "../../support/sandbox.js"

let sb: SandboxHandle & { close: () => Promise<void> }
beforeAll(async () => {
  sb = await startTestSandbox({ seed: 11, world: { properties: 6_000 } })
})
afterAll(() => sb.close())

const SEARCH = "/v1/property-sourcing/searches"
const DESCRIBE = "/v1/property-sourcing/searches/describe"

/** Follows `next` to the end; returns every page. */
const pageAll = async (body: unknown, path = SEARCH) => {
  const pages = [await call(sb.platformUrl, path, { body })]
  while (pages.at(-1)!.body.next) {
    const next = pages.at(-1)!.body.next as string
    expect(next.startsWith(`${sb.platformUrl}/v1/property-sourcing/searches/`)).toBe(true)
    pages.push(await call(sb.platformUrl, next))
  }
  return pages
}

describe("structured search", () => {
  it("returns the documented page shape", async () => {
    const r = await call(sb.platformUrl, SEARCH, { body: { country: "ES", operation: "sale", limit: 3 } })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      search_id: expect.stringMatching(/^srch_/),
      count: expect.any(Number),
      returned: 3,
      results: expect.any(Array),
      next: expect.any(String)
    })
    for (const p of r.body.results) {
      expect(Object.keys(p).sort()).toEqual(
        [
          "id",
          "property_id",
          "country",
          "location_id",
          "location_name",
          "type",
          "type_group",
          "operation",
          "price_eur",
          "area_m2",
          "bedrooms",
          "latitude",
          "longitude",
          "listings_count",
          "agencies",
          "updated_at"
        ].sort()
      )
      expect(p.id).toBe(`prop_${p.property_id}`)
      expect(p.country).toBe("ES")
      expect(p.operation).toBe("sale")
    }
  })

  it.each([
    [{ country: "ES", operation: "sale" }, 200],
    [{ country: "DE", operation: "rent", types: ["apartment", "penthouse"], price_max: 3_000 }, 37],
    [{ country: "FR", operation: "sale", price_min: 100_000, price_max: 900_000, area_min: 40, bedrooms_min: 2 }, 50]
  ])("pages %j (limit %i) and returns every match exactly once", async (filter, limit) => {
    const pages = await pageAll({ ...filter, limit })
    const truth = sb.context.world.countProperties(filter as Parameters<typeof sb.context.world.countProperties>[0], sb.context.clock.now())
    const ids = pages.flatMap((p) => p.body.results.map((r: { id: string }) => r.id))
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(truth)
    for (const p of pages) {
      expect(p.status).toBe(200)
      expect(p.body.count).toBe(truth)
      expect(p.body.returned).toBe(p.body.results.length)
      expect(p.body.returned).toBeLessThanOrEqual(limit)
      expect(p.headers.get("svc-units-charged")).toBe("1")
    }
    expect(pages.at(-1)!.body.next).toBeNull()
    const truthOverHttp = await call(sb.platformUrl, `/__sandbox/truth/properties?filter=${encodeURIComponent(JSON.stringify(filter))}`)
    expect(truthOverHttp.body.count).toBe(truth)
  })

  it("cursors are stateless: a next URL works again and in another sandbox with the same seed", async () => {
    const first = await call(sb.platformUrl, SEARCH, { body: { country: "ES", operation: "sale", limit: 5 } })
    const next = first.body.next as string
    const a = await call(sb.platformUrl, next)
    const b = await call(sb.platformUrl, next)
    expect(b.body).toEqual(a.body)
    const other = await startTestSandbox({ seed: 11, world: { properties: 6_000 } })
    try {
      const c = await call(other.platformUrl, next.replace(sb.platformUrl, other.platformUrl))
      expect(c.body.results).toEqual(a.body.results)
    } finally {
      await other.close()
    }
  })

  it.each([
    ["a body that is not an object", [1, 2]],
    ["no country", { operation: "sale" }],
    ["an unknown country", { country: "US", operation: "sale" }],
    ["no operation", { country: "ES" }],
    ["a bad operation", { country: "ES", operation: "lease" }],
    ["types of two groups", { country: "ES", operation: "sale", types: ["apartment", "villa"] }],
    ["an unknown type", { country: "ES", operation: "sale", types: ["castle"] }],
    ["limit 0", { country: "ES", operation: "sale", limit: 0 }],
    ["limit 201", { country: "ES", operation: "sale", limit: 201 }],
    ["price_min above price_max", { country: "ES", operation: "sale", price_min: 10, price_max: 5 }],
    ["an unknown member", { country: "ES", operation: "sale", colour: "blue" }],
    ["invalid JSON", "{not json"]
  ])("refuses %s with 400 invalid_request", async (_, body) => {
    const r = await call(sb.platformUrl, SEARCH, { body })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("invalid_request")
  })

  it("answers 404 not_found for a malformed cursor", async () => {
    const r = await call(sb.platformUrl, `${SEARCH}/not-a-cursor`)
    expect(r.status).toBe(404)
    expect(r.body.code).toBe("not_found")
  })
})

describe("plain-language describe", () => {
  it("splits a description at commas, semicolons and 'and', and answers the search shape plus tags", async () => {
    const r = await call(sb.platformUrl, DESCRIBE, {
      body: { country: "ES", description: "apartment, 2 bedrooms; under 400k and for sale", limit: 10 }
    })
    expect(r.status).toBe(200)
    expect(r.headers.get("svc-units-charged")).toBe("2")
    expect(r.body.tags).toEqual(["apartment", "2 bedrooms", "under 400k", "for sale"])
    const truth = sb.context.world.countProperties(
      { country: "ES", operation: "sale", types: ["apartment"], bedrooms_min: 2, price_max: 400_000 },
      sb.context.clock.now()
    )
    expect(r.body.count).toBe(truth)
    for (const p of r.body.results) {
      expect(p.type).toBe("apartment")
      expect(p.bedrooms).toBeGreaterThanOrEqual(2)
      expect(p.price_eur).toBeLessThanOrEqual(400_000)
    }
  })

  it("pages a describe search through the same cursor route", async () => {
    const pages = await pageAll({ country: "PT", tags: ["house", "for rent"], limit: 40 }, DESCRIBE)
    const ids = pages.flatMap((p) => p.body.results.map((x: { id: string }) => x.id))
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(pages[0]!.body.count)
  })

  it("takes up to 20 phrases", async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `phrase ${i}`)
    expect((await call(sb.platformUrl, DESCRIBE, { body: { country: "ES", tags: twenty } })).status).toBe(200)
    const r21 = await call(sb.platformUrl, DESCRIBE, { body: { country: "ES", tags: [...twenty, "one more"] } })
    expect(r21.status).toBe(400)
    const long = await call(sb.platformUrl, DESCRIBE, { body: { country: "ES", description: twenty.concat("x").join(", ") } })
    expect(long.status).toBe(400)
  })

  it.each([
    ["both tags and description", { country: "ES", tags: ["flat"], description: "flat" }],
    ["neither", { country: "ES" }],
    ["empty tags", { country: "ES", tags: [] }],
    ["no country", { tags: ["flat"] }]
  ])("refuses %s", async (_, body) => {
    const r = await call(sb.platformUrl, DESCRIBE, { body })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("invalid_request")
  })
})

describe("property detail and resolve", () => {
  it("reads one property by its prop_ id with the detail fields", async () => {
    const s = await call(sb.platformUrl, SEARCH, { body: { country: "IT", operation: "sale", limit: 1 } })
    const hit = s.body.results[0]
    const r = await call(sb.platformUrl, `/v1/property-sourcing/properties/${hit.id}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ ...hit, updated_at: expect.any(String) })
    for (const k of [
      "bathrooms",
      "plot_area_m2",
      "living_area_m2",
      "construction_year",
      "energy_rating",
      "condition",
      "features",
      "address",
      "description",
      "status"
    ]) {
      expect(r.body).toHaveProperty(k)
    }
    expect((await call(sb.platformUrl, "/v1/property-sourcing/properties/prop_0")).status).toBe(404)
  })

  it("resolves exactly one of url, reference or listing_id to its property", async () => {
    const { world } = sb.context
    // The first property with an active listing URL and a reference number.
    let index = 0
    const usable = (i: number) => {
      const ls = world.property(i).listings
      return ls.some((l) => l.listing_url !== null) && ls.some((l) => l.ref_numbers.length > 0)
    }
    while (!usable(index)) index++
    const record = world.property(index)
    const expected = `prop_${record.property_id}`
    const listing = record.listings.find((l) => l.listing_url !== null)!
    const byId = await call(sb.platformUrl, "/v1/property-sourcing/properties/resolve", {
      body: { listing_id: world.listingIdsOf(index)[0] }
    })
    expect(byId.status).toBe(200)
    expect(byId.body.matched_by).toBe("listing_id")
    expect(byId.body.property.id).toBe(expected)
    const byUrl = await call(sb.platformUrl, "/v1/property-sourcing/properties/resolve", { body: { url: listing.listing_url } })
    expect(byUrl.body).toMatchObject({ matched_by: "url", property: { id: expected } })
    const ref = record.listings.flatMap((l) => l.ref_numbers)[0]
    const byRef = await call(sb.platformUrl, "/v1/property-sourcing/properties/resolve", { body: { reference: ref } })
    expect(byRef.body).toMatchObject({ matched_by: "reference", property: { id: expected } })
    for (const body of [{}, { url: "https://x.example/1", listing_id: 5 }, { listing_id: "12" }, { other: 1 }]) {
      const r = await call(sb.platformUrl, "/v1/property-sourcing/properties/resolve", { body })
      expect(r.status).toBe(400)
    }
    const none = await call(sb.platformUrl, "/v1/property-sourcing/properties/resolve", { body: { url: "https://nowhere.example/none" } })
    expect(none.status).toBe(404)
    expect(none.body.code).toBe("not_found")
  })
})
