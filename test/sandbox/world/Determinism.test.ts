import { describe, expect, it } from "vitest"
import { makeWorld } from "../../../src/sandbox/world/World.js"

const snapshot = (seed: number) => {
  const w = makeWorld({ seed, properties: 5000 })
  const now = w.now()
  return JSON.stringify({
    properties: [0, 1, 17, 4999].map((p) => w.property(p)),
    sourcing: [0, 3].map((p) => w.sourcingDetail(p)),
    alerts: w.alerts({ nowMs: now, createdFrom: now - 3 * 86_400_000, offset: 0, limit: 30, orderBy: "alert_id" }),
    plots: [0, 1, 2999].map((i) => w.plot(i)),
    premises: [0, 1999].map((i) => w.premises(i)),
    leads: w.sellerLeads({ latitude: 40.42, longitude: -3.7, radius_km: 20, min_price_cuts: 1, min_price_cut_pct: 1 }).slice(0, 3),
    agencies: w.agencies.slice(0, 20)
  })
}

describe("World determinism", () => {
  it("same seed gives the same bytes, across world instances", () => {
    expect(snapshot(11)).toEqual(snapshot(11))
  })

  it("a different seed gives different data", () => {
    expect(snapshot(11)).not.toEqual(snapshot(12))
  })

  it("records are pure functions of the index: order of access does not matter", () => {
    const a = makeWorld({ seed: 3, properties: 2000 })
    const b = makeWorld({ seed: 3, properties: 2000 })
    const forward = [0, 1, 2, 3, 4].map((p) => JSON.stringify(a.property(p)))
    const backward = [4, 3, 2, 1, 0].map((p) => JSON.stringify(b.property(p))).reverse()
    expect(forward).toEqual(backward)
  })

  it("drift is deterministic per record id and respects the rate", () => {
    const w = makeWorld({ seed: 5, properties: 3000 })
    const records = Array.from({ length: 1000 }, (_, p) => w.sourcingProperty(p))
    const drifted = records.map((r) => w.drift(r, "sourcing", 0.2))
    const again = records.map((r) => w.drift(r, "sourcing", 0.2))
    expect(JSON.stringify(drifted)).toEqual(JSON.stringify(again))
    const changed = drifted.filter((d, i) => d !== records[i])
    expect(changed.length).toBeGreaterThan(120)
    expect(changed.length).toBeLessThan(280)
    for (const d of changed) {
      const orig = records[drifted.indexOf(d)]!
      const typeChanged = Object.keys(orig).some((k) => k in d && typeof (d as never)[k] !== typeof (orig as never)[k])
      const renamed = Object.keys(orig).some((k) => !(k in d))
      expect(typeChanged || renamed).toBe(true)
      expect(w.isDrifted("sourcing", orig.id, 0.2)).toBe(true)
    }
    expect(records.every((r) => w.drift(r, "sourcing", 0) === r)).toBe(true)
  })
})
