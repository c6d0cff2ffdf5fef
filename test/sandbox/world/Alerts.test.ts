import { describe, expect, it } from "vitest"
import { makeWorld, type AlertRecord } from "../../../src/sandbox/world/World.js"

const DAY = 86_400_000
const w = makeWorld({ seed: 99, properties: 3000 })
const now = w.now()

const all = (q: Omit<Parameters<typeof w.alerts>[0], "offset" | "limit">): Array<AlertRecord> => {
  const out: Array<AlertRecord> = []
  for (let offset = 0; ; offset += 500) {
    const page = w.alerts({ ...q, offset, limit: 500 })
    out.push(...page.results)
    if (offset + 500 >= page.count) return out
  }
}

describe("World alerts", () => {
  it("alerts are the events of the property histories", () => {
    for (let p = 0; p < 200; p++) {
      const r = w.property(p, now)
      const alerts = w.alertIdsOfProperty(p, now).map((id) => w.alert(id, now)!)
      expect(alerts.every((a) => a.property_id === r.property_id)).toBe(true)
      const sale = r.operations.includes("sale")
      const priceAlerts = alerts.filter((a) => a.alert_subtype === "price_up" || a.alert_subtype === "price_down")
      const priceHistory = sale
        ? r.sale_price_history.map((h) => [h.date_start, h.sale_price_old, h.sale_price_new])
        : r.rent_price_history.map((h) => [h.date_start, h.rent_price_old, h.rent_price_new])
      expect(priceAlerts.map((a) => [a.alert_date, Number(a.old_value), Number(a.new_value)])).toEqual(priceHistory)
      for (const a of priceAlerts) expect(a.alert_subtype === "price_up").toBe(Number(a.new_value) > Number(a.old_value))
      const statusAlerts = alerts.filter((a) => a.alert_subtype !== "price_up" && a.alert_subtype !== "price_down")
      const statusHistory = sale
        ? r.sale_status_history.map((h) => [h.date_start, h.sale_status_new])
        : r.rent_status_history.map((h) => [h.date_start, h.rent_status_new])
      expect(statusAlerts.map((a) => [a.alert_date, a.alert_subtype === "new" ? "active" : a.new_value])).toEqual(statusHistory)
      const last = alerts.at(-1)
      if (last) {
        expect(sale ? r.sale_price : r.rent_price).toBe(
          Number(last.alert_type.endsWith("status") ? (sale ? last.sale_price : last.rent_price) : last.new_value)
        )
        expect(sale ? r.sale_status : r.rent_status).toBe(sale ? last.sale_status : last.rent_status)
        expect(r.changed_at).toBe(last.alert_date)
      }
    }
  })

  it("created_at windows are exact and contiguous, so incremental windows partition the feed", () => {
    const t0 = now - 6 * DAY,
      t1 = now - 2.5 * DAY
    const whole = all({ nowMs: now, createdFrom: t0, createdTo: now + 1, orderBy: "created_at" })
    const a = all({ nowMs: now, createdFrom: t0, createdTo: t1, orderBy: "created_at" })
    const b = all({ nowMs: now, createdFrom: t1, createdTo: now + 1, orderBy: "created_at" })
    expect([...a, ...b].map((x) => x.alert_id)).toEqual(whole.map((x) => x.alert_id))
    for (const x of a) expect(Date.parse(x.created_at) >= t0 && Date.parse(x.created_at) < t1).toBe(true)
    expect(whole.length).toBeGreaterThan(400)
    const ids = whole.map((x) => x.alert_id)
    expect(ids).toEqual([...ids].sort((x, y) => x - y))
  })

  it("advancing now makes new alerts appear, and only after their created_at", () => {
    const before = w.alerts({ nowMs: now, createdFrom: now - DAY, offset: 0, limit: 1 }).count
    const later = now + 3 * 3_600_000
    const after = all({ nowMs: later, createdFrom: now + 1, orderBy: "created_at" })
    expect(after.length).toBeGreaterThan(0)
    expect(after.every((x) => Date.parse(x.created_at) > now && Date.parse(x.created_at) <= later)).toBe(true)
    expect(w.alert(after[0]!.alert_id, now)).toBeUndefined()
    expect(w.alerts({ nowMs: later, createdFrom: now - DAY, createdTo: now + 1, offset: 0, limit: 1 }).count).toBe(before)
    // One minute after an alert is created its photos are still being processed (5 minutes).
    const justAfter = Date.parse(after[0]!.created_at) + 60_000
    const newest = w.alerts({ nowMs: justAfter, offset: 0, limit: 5, orderBy: "-created_at" }).results
    expect(newest[0]!.alert_id).toBe(after[0]!.alert_id)
    expect(newest[0]!.created_at_with_photos).toBeNull()
    expect(newest.slice(1).every((x) => x.created_at_with_photos !== null && Date.parse(x.created_at_with_photos) <= justAfter)).toBe(true)
    expect(w.alert(after[0]!.alert_id, justAfter + 5 * 60_000)!.created_at_with_photos).not.toBeNull()
  })

  it("filters match a brute-force filter of the unfiltered window; orderings reverse", () => {
    const base = { nowMs: now, createdFrom: now - 4 * DAY }
    const everything = all({ ...base, orderBy: "alert_id" })
    const es = w.locations.find((l) => l.administrative_level === "country" && l.country === "ES")!
    const filtered = all({ ...base, orderBy: "alert_id", subtypes: ["price_down", "sold"], locationIds: [es.location_id] })
    const brute = everything.filter((a) => (a.alert_subtype === "price_down" || a.alert_subtype === "sold") && a.location.country === "ES")
    expect(filtered.map((a) => a.alert_id)).toEqual(brute.map((a) => a.alert_id))
    expect(filtered.length).toBeGreaterThan(0)
    const desc = all({ ...base, orderBy: "-alert_date" })
    expect(desc.map((a) => a.alert_id)).toEqual(everything.map((a) => a.alert_id).reverse())
    const day = everything[10]!.alert_date
    const byDate = all({ nowMs: now, alertDateFrom: day, alertDateTo: day, orderBy: "alert_id" })
    expect(byDate.every((a) => a.alert_date === day)).toBe(true)
    expect(byDate.length).toBe(everything.filter((a) => a.alert_date === day).length)
    const photos = all({ nowMs: now, createdWithPhotosFrom: now - DAY, orderBy: "alert_id" })
    expect(photos.every((a) => a.created_at_with_photos !== null && Date.parse(a.created_at_with_photos) >= now - DAY)).toBe(true)
  })

  it("a 100k-alert window counts and pages, filtered and deep", () => {
    const big = makeWorld({ seed: 1, properties: 20_000 })
    const q = { nowMs: big.now(), createdFrom: big.now() - 150 * DAY, offset: 0, limit: 500 }
    const first = big.alerts(q)
    expect(first.count).toBeGreaterThan(95_000)
    const filtered = big.alerts({ ...q, subtypes: ["price_down"] })
    expect(filtered.count).toBeGreaterThan(10_000)
    const deep = big.alerts({ ...q, subtypes: ["price_down"], offset: 10_000 })
    expect(deep.count).toBe(filtered.count)
    expect(deep.results.length).toBeGreaterThan(0)
  })
})
