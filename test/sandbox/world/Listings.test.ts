import { describe, expect, it } from "vitest"
import { makeWorld } from "../../../src/sandbox/world/World.js"

const w = makeWorld({ seed: 4, properties: 5000 })

describe("World listings and ids", () => {
  it("listing ids are invertible to their property, and unknown ids are not", () => {
    for (let p = 0; p < 5000; p += 7) {
      const ids = w.listingIdsOf(p)
      expect(ids.length).toBeGreaterThanOrEqual(1)
      for (const id of ids) expect(w.indexOfListingId(id)).toBe(p)
      expect(w.indexOfListingId(ids.at(-1)! + 1) === p).toBe(false)
    }
    expect(w.indexOfListingId(1)).toBeUndefined()
    expect(w.indexOfListingId(2 ** 31 - 1)).toBeUndefined()
  })

  it("several listings per property come from different agencies; ids are unique", () => {
    const seen = new Set<number>()
    let multi = 0
    for (let p = 0; p < 2000; p++) {
      const r = w.property(p)
      if (r.listings.length > 1) multi++
      for (const l of r.listings) {
        expect(seen.has(l.listing_id)).toBe(false)
        seen.add(l.listing_id)
      }
    }
    expect(multi).toBeGreaterThan(600)
  })

  it("match-by-listings groups ids by property and drops unknown ids", () => {
    const a = w.listingIdsOf(10),
      b = w.listingIdsOf(11)
    const out = w.matchListings([...b, 5, ...a, b[0]!])
    expect(out).toEqual([
      { property_id: w.propertyIdOf(11), listing_ids: [...b] },
      { property_id: w.propertyIdOf(10), listing_ids: [...a] }
    ])
  })

  it("urls, references, uids, cadastral references and sourcing ids resolve to their property", () => {
    let cadastral = 0
    for (let p = 0; p < 300; p++) {
      const r = w.property(p)
      for (const l of r.listings) {
        expect(w.resolveUrl((l.listing_url ?? l.listing_old_url)!)).toBe(p)
        expect(w.resolveReference(l.ref_numbers[0]!)).toBe(p)
        expect(w.resolveReference(l.listing_uid)).toBe(p)
      }
      expect(w.resolveUrl(r.property_url!)).toBe(p)
      expect(w.indexOfSourcingId(`prop_${r.property_id}`)).toBe(p)
      expect(w.propertyById(r.property_id)!.property_id).toBe(r.property_id)
      const alert = w.alert(w.alertIdsOfProperty(p).at(-1)!)
      if (alert?.cadastral_reference) {
        cadastral++
        expect(w.resolveCadastral(alert.cadastral_reference)).toBe(p)
        expect(alert.cadastral_reference).toHaveLength(20)
      }
    }
    expect(cadastral).toBeGreaterThan(10)
    expect(w.resolveUrl("https://example.com/nothing")).toBeUndefined()
    expect(w.propertyById(1)).toBeUndefined()
  })
})
