import { describe, expect, it } from "vitest"
import { TYPE_GROUPS } from "../../../src/service/schema/Enums.js"
import { makeWorld, previousMonday, previousSunday, type AlertRecord } from "../../../src/sandbox/world/World.js"

const DAY = 86_400_000
const w = makeWorld({ seed: 77, properties: 10_000 })
const now = w.now()
const madrid = { latitude: 40.42, longitude: -3.7 }

describe("World seller leads, comparables, market analytics, premises", () => {
  it("seller leads: homes for sale around the point whose cuts meet both thresholds", () => {
    const loose = w.sellerLeads({ ...madrid, radius_km: 25, min_price_cuts: 1, min_price_cut_pct: 0 })
    const strict = w.sellerLeads({ ...madrid, radius_km: 25, min_price_cuts: 2, min_price_cut_pct: 8 })
    expect(loose.length).toBeGreaterThan(strict.length)
    expect(strict.length).toBeGreaterThan(0)
    expect(strict.map((l) => l.id)).toEqual(loose.filter((l) => l.price_cuts >= 2 && l.price_cut_pct >= 8).map((l) => l.id))
    for (const l of loose) {
      expect(l.home.operation).toBe("sale")
      expect(["ES", "FR", "IT", "DE", "GR", "AD"]).toContain(l.home.country)
      expect(l.current_price).toBe(l.home.price_eur)
      expect(l.price_cut_pct).toBeCloseTo(((l.first_price - l.current_price) / l.first_price) * 100, 0)
      const r = w.propertyById(l.home.property_id)!
      expect(r.sale_price_history.filter((h) => h.sale_price_new < h.sale_price_old).length).toBeGreaterThanOrEqual(l.price_cuts)
    }
    expect(w.sellerLeads({ latitude: 51.51, longitude: -0.13, radius_km: 20, min_price_cuts: 1, min_price_cut_pct: 0 })).toEqual([])
    const since = w.sellerLeads({ ...madrid, radius_km: 25, min_price_cuts: 1, min_price_cut_pct: 0, since: "2026-05-01" })
    expect(since.length).toBeLessThan(loose.length)
  })

  it("comparables: inside the circle, nearest first, of the requested types and operation; valuation from them", () => {
    const types = [...TYPE_GROUPS.apartment]
    const out = w.comparables({
      comparables_count: 10,
      operation: "sale",
      comparables_types: types,
      exclude_outliers: false,
      location_boundary: { circle: { distance: 5, target_point: { coordinates: madrid } } }
    })
    if (out._tag !== "ok") throw new Error(out.reason)
    expect(out.results.length).toBe(10)
    const d = out.results.map((r) => r.distance!)
    expect(d).toEqual([...d].sort((a, b) => a - b))
    expect(d.at(-1)!).toBeLessThanOrEqual(5)
    for (const r of out.results) {
      expect(types).toContain(r.type)
      expect(["active", "reserved", "sold"]).toContain(r.sale_status)
    }
    const poly = [
      { latitude: 40.3, longitude: -3.8 },
      { latitude: 40.3, longitude: -3.6 },
      { latitude: 40.5, longitude: -3.6 },
      { latitude: 40.5, longitude: -3.8 },
      { latitude: 40.3, longitude: -3.8 }
    ]
    const inPoly = w.comparables({
      comparables_count: 50,
      operation: "rent",
      comparables_types: types,
      location_boundary: { polygon: poly }
    })
    if (inPoly._tag !== "ok") throw new Error(inPoly.reason)
    expect(inPoly.results.every((r) => r.distance === null && r.coordinates.latitude >= 40.3 && r.coordinates.latitude <= 40.5)).toBe(true)
    const v = w.valuation({
      comparables_count: 10,
      operation: "sale",
      comparables_types: types,
      exclude_outliers: false,
      location_boundary: { circle: { distance: 5, target_point: { coordinates: madrid } } }
    })!
    expect(v.comparables_used).toBe(10)
    const prices = out.results.map((r) => r.sale_price_base!)
    expect(v.sale!.min).toBe(Math.min(...prices))
    expect(v.sale!.max).toBe(Math.max(...prices))
    expect(v.sale!.min).toBeLessThanOrEqual(v.sale!.avg)
    expect(v.sale!.avg).toBeLessThanOrEqual(v.sale!.max)
    expect(v.rent).toBeNull()
    const unresolved = w.comparables({
      comparables_count: 5,
      operation: "sale",
      comparables_types: types,
      location_boundary: { circle: { target_point: { address: "Nowhere street 1, Atlantis" } } }
    })
    expect(unresolved._tag).toBe("unresolved")
  })

  it("time series counts equal the alerts of the same properties per interval; no data gives []", () => {
    const es = w.locations.find((l) => l.administrative_level === "country" && l.country === "ES")!
    const body = {
      types: [...TYPE_GROUPS.apartment],
      business_type: "sale" as const,
      custom_location_boundary: { location_ids: [es.location_id] },
      date_interval: "month" as const,
      date_range: { min: "2026-01-05", max: "2026-04-26" }
    }
    const series = w.timeSeries({ ...body, data_point: "price_down" })
    const alerts: Array<AlertRecord> = []
    for (let offset = 0; ; offset += 500) {
      const page = w.alerts({
        nowMs: now,
        alertDateFrom: "2026-01-05",
        alertDateTo: "2026-04-26",
        subtypes: ["price_down"],
        locationIds: [es.location_id],
        types: [...TYPE_GROUPS.apartment],
        operation: "sale",
        offset,
        limit: 500,
        orderBy: "alert_id"
      })
      alerts.push(...page.results)
      if (offset + 500 >= page.count) break
    }
    const byMonth = new Map<string, number>()
    for (const a of alerts) byMonth.set(`${a.alert_date.slice(0, 7)}-01`, (byMonth.get(`${a.alert_date.slice(0, 7)}-01`) ?? 0) + 1)
    expect(series.map((p) => [p.date_start, p.value])).toEqual([...byMonth].sort())
    const avg = w.timeSeries({ ...body, data_point: "avg_price" })
    expect(avg.length).toBe(4)
    expect(avg.every((p) => p.value > 10_000)).toBe(true)
    const empty = w.timeSeries({ ...body, types: ["hotel"], price_range: { min: 2_000_000_000 }, data_point: "avg_price" })
    expect(empty).toEqual([])
    expect(previousMonday("2026-01-08")).toBe("2026-01-05")
    expect(previousSunday("2026-04-29")).toBe("2026-04-26")
  })

  it("a time series over location ids is the sum of its districts' (kept per district); a filter on details' fields still applies", () => {
    const es = w.locations.find((l) => l.administrative_level === "country" && l.country === "ES")!
    const districts = w.locations.filter((l) => l.administrative_level === "district" && l.country === "ES")
    const body = (ids: ReadonlyArray<number>, extra: object = {}) => ({
      types: [...TYPE_GROUPS.apartment],
      business_type: "sale" as const,
      custom_location_boundary: { location_ids: [...ids] },
      date_interval: "quarter" as const,
      date_range: { min: "2025-01-06", max: "2026-04-26" },
      data_point: "available_on_market" as const,
      ...extra
    })
    const total = new Map<string, number>()
    for (const d of districts)
      for (const pt of w.timeSeries(body([d.location_id]))) total.set(pt.date_start, (total.get(pt.date_start) ?? 0) + pt.value)
    const country = w.timeSeries(body([es.location_id]))
    expect(country.length).toBeGreaterThan(0)
    expect(country.map((pt) => [pt.date_start, pt.value])).toEqual([...total].filter(([, v]) => v > 0).sort())
    // asked again (the district parts kept): the same answer
    expect(w.timeSeries(body([es.location_id]))).toEqual(country)
    // a field only a property's details carry (rooms) narrows the series; the same area by its districts agrees
    const roomy = w.timeSeries(body([es.location_id], { rooms_range: { min: 4 } }))
    const roomyByDistricts = w.timeSeries(
      body(
        districts.map((d) => d.location_id),
        { rooms_range: { min: 4 } }
      )
    )
    expect(roomy).toEqual(roomyByDistricts)
    expect(roomy.reduce((a, pt) => a + pt.value, 0)).toBeLessThan(country.reduce((a, pt) => a + pt.value, 0))
  })

  it("distributions and analysis agree on the same on-market set", () => {
    const f = {
      types: [...TYPE_GROUPS.apartment],
      business_type: "sale" as const,
      custom_location_boundary: { circle: { distance: 20_000, target_point: madrid } }
    }
    const beds = w.bedroomsDistribution(f)
    const prices = w.pricesDistribution(f)
    const analysis = w.analysis(f)
    const total = beds.reduce((s, b) => s + b.count, 0)
    expect(total).toBeGreaterThan(20)
    expect(prices.reduce((s, b) => s + b.count, 0)).toBe(total)
    expect(analysis.available_on_market).toBe(total)
    const props = w.propertiesDistribution(f)
    expect(props.quartiles.q1).toBeLessThanOrEqual(props.quartiles.q2)
    expect(props.quartiles.q2).toBe(analysis.median_price)
    expect(w.timeOnMarketDistribution(f).length).toBe(4)
  })

  it("premises search filters the Spanish premises", () => {
    const all = w.searchPremises({})
    expect(all.length).toBe(2000)
    const got = w.searchPremises({ municipality: "malaga", operation: "rent", max_price: 3000 })
    expect(got.length).toBeGreaterThan(0)
    expect(got.every((r) => r.municipality === "Málaga" && r.operation === "rent" && r.price_eur <= 3000)).toBe(true)
    expect(got.length).toBe(all.filter((r) => r.municipality === "Málaga" && r.operation === "rent" && r.price_eur <= 3000).length)
    expect(
      w
        .searchPremises({ query: "local escaparate" })
        .every((r) => /local/i.test(r.title + r.description) && /escaparate/.test(r.title + r.description))
    ).toBe(true)
  })
})
