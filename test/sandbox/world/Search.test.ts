import { describe, expect, it } from "vitest"
import { TYPE_GROUPS } from "../../../src/service/schema/Enums.js"
import { makeWorld, type SourcingFilter, type SourcingProperty, type World } from "../../../src/sandbox/world/World.js"

const pageAll = (w: World, f: SourcingFilter, limit: number) => {
  const out: Array<SourcingProperty> = []
  let from: number | null = 0,
    pages = 0
  while (from !== null) {
    const page = w.searchProperties(f, from, limit)
    out.push(...page.results)
    from = page.nextFrom
    pages++
  }
  return { out, pages }
}

describe("World property searches", () => {
  const w = makeWorld({ seed: 31, properties: 8000 })
  const everything = Array.from({ length: 8000 }, (_, p) => w.sourcingProperty(p))
  const brute = (f: SourcingFilter) =>
    everything.filter(
      (s) =>
        s.country === f.country &&
        s.operation === f.operation &&
        (!f.types || f.types.includes(s.type)) &&
        (f.price_min === undefined || s.price_eur >= f.price_min) &&
        (f.price_max === undefined || s.price_eur <= f.price_max) &&
        (f.area_min === undefined || s.area_m2 >= f.area_min) &&
        (f.area_max === undefined || s.area_m2 <= f.area_max) &&
        (f.bedrooms_min === undefined || s.bedrooms >= f.bedrooms_min) &&
        (!f.location_ids || w.locationsStructure(s.location_id).some((l) => f.location_ids!.includes(l.location_id)))
    )

  const filters: ReadonlyArray<SourcingFilter> = [
    { country: "ES", operation: "sale" },
    { country: "DE", operation: "rent", types: [...TYPE_GROUPS.apartment], price_max: 1500 },
    { country: "FR", operation: "sale", price_min: 200_000, price_max: 900_000, area_min: 50, bedrooms_min: 2 },
    { country: "IT", operation: "sale", location_ids: [w.locations.find((l) => l.name === "Lombardia")!.location_id] }
  ]

  it("paging returns each matching property exactly once, equal to the ground truth count and a brute force", () => {
    for (const f of filters) {
      const { out, pages } = pageAll(w, f, 37)
      const ids = out.map((s) => s.property_id)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids.length).toBe(w.countProperties(f))
      expect(ids.length, JSON.stringify(f)).toBeGreaterThan(0)
      expect(ids).toEqual(brute(f).map((s) => s.property_id))
      expect(pages).toBe(Math.max(1, Math.ceil(ids.length / 37)))
    }
  })

  it("a page resumes from any position (stateless cursors)", () => {
    const f = filters[0]!
    const first = w.searchProperties(f, 0, 50)
    const resumed = w.searchProperties(f, first.nextFrom!, 50)
    const two = w.searchProperties(f, 0, 100)
    expect([...first.results, ...resumed.results]).toEqual(two.results)
  })

  it("token host search: sorted indexes matching location, types, operation and price", () => {
    const madrid = w.locations.find((l) => l.name === "Madrid" && l.administrative_level === "municipality")!
    const f = { location_ids: [madrid.location_id], operation: "sale" as const, min_price: 100_000 }
    const got = Array.from(w.tokenSearch(f))
    const want = everything
      .filter((s) => s.operation === "sale" && s.price_eur >= 100_000 && w.location(s.location_id)!.parent_id === madrid.location_id)
      .map((s) => w.indexOfSourcingId(s.id))
    expect(got).toEqual(want)
    expect(got.length).toBeGreaterThan(0)
    expect(w.tokenSearch({}).length).toBe(8000)
  })

  // how fast is measured by `make bench`, not here: a timed test fails on a loaded machine
  it("a 1,000,000-property world pages a country without holding properties", () => {
    const big = makeWorld({ seed: 2, properties: 1_000_000 })
    const heap = process.memoryUsage().heapUsed
    const f: SourcingFilter = { country: "NL", operation: "sale" }
    const count = big.countProperties(f)
    let seen = 0,
      last = -1,
      from: number | null = 0
    while (from !== null) {
      const page = big.searchProperties(f, from, 200)
      for (const s of page.results) {
        expect(s.property_id).toBeGreaterThan(last)
        last = s.property_id
      }
      seen += page.results.length
      from = page.nextFrom
    }
    expect(seen).toBe(count)
    expect(count).toBeGreaterThan(20_000)
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(150 * 1024 * 1024)
    expect(big.property(999_999).property_id).toBe(big.propertyIdOf(999_999))
  })
})
