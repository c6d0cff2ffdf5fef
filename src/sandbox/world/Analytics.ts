/**
 * Market analytics from the same properties and events: time series per interval, the four
 * distributions and the analysis.
 */
import type {
  BedroomsDistribution,
  MarketAnalysis,
  MarketFilter,
  PricesDistribution,
  PropertiesDistribution,
  Range,
  TimeOnMarketDistribution,
  TimeSeriesPoint,
  TimeSeriesRequest
} from "./Queries.js"
import { DAY_MS, isoDate, parseDate, previousMonday, previousSunday } from "./Dates.js"
import type { Details } from "./Details.js"
import { type Core, K_DOWN, K_NEW, K_SOLD, K_UP } from "./PropertyCore.js"
import type { Area, Spatial } from "./Spatial.js"
import { lru } from "./PropertyIndex.js"
import { timelineOf } from "./Timeline.js"

const inRange = (r: Range | null | undefined, x: number) =>
  !r || ((r.min === null || r.min === undefined || x >= r.min) && (r.max === null || r.max === undefined || x <= r.max))

/** Interval start (ms) of the bucket holding t. */
const bucketStart = (interval: string, t: number): number => {
  const d = new Date(t)
  const y = d.getUTCFullYear(),
    m = d.getUTCMonth()
  switch (interval) {
    case "week":
      return parseDate(previousMonday(isoDate(t)))!
    case "month":
      return Date.UTC(y, m, 1)
    case "quarter":
      return Date.UTC(y, m - (m % 3), 1)
    default:
      return Date.UTC(y, 0, 1)
  }
}
const nextBucket = (interval: string, start: number): number => {
  const d = new Date(start)
  const y = d.getUTCFullYear(),
    m = d.getUTCMonth()
  switch (interval) {
    case "week":
      return start + 7 * DAY_MS
    case "month":
      return Date.UTC(y, m + 1, 1)
    case "quarter":
      return Date.UTC(y, m + 3, 1)
    default:
      return Date.UTC(y + 1, 0, 1)
  }
}

export const makeAnalytics = (core: Core, spatial: Spatial, details: (p: number) => Details) => {
  const areaOf = (f: MarketFilter): Area => {
    const b = f.custom_location_boundary
    if (b.location_ids && b.location_ids.length > 0) return { location_ids: b.location_ids }
    if (b.polygon) return { polygon: b.polygon }
    if (b.circle) return { circle: { center: b.circle.target_point, radiusKm: b.circle.distance / 1000 } }
    return {}
  }
  /**
   * Static filters. Assumed: `private`/`bank`/`auction` true keep only such properties (false or
   * absent: no filter); time-series `building` means the *_building types, `*_development` new
   * developments of the apartment or house group.
   */
  const matchesStatic = (f: MarketFilter, d: Details) => {
    const t = d.type
    const typeOk = f.types.some(
      (x) =>
        x === t ||
        (x === "building" && t.endsWith("_building")) ||
        (x === "apartment_development" && d.isNewDevelopment && d.typeGroup === "apartment") ||
        (x === "house_development" && d.isNewDevelopment && d.typeGroup === "house")
    )
    if (!typeOk || d.rent !== (f.business_type === "rent")) return false
    if (!inRange(f.rooms_range, d.rooms) || !inRange(f.bathrooms_range, d.bathrooms) || !inRange(f.bedrooms_range, d.bedrooms)) return false
    if (
      !inRange(f.total_area_range, d.totalArea) ||
      !inRange(f.plot_area_range, d.plotArea) ||
      !inRange(f.construction_year_range, d.constructionYear)
    )
      return false
    const ch = d.features.characteristics
    if (f.characteristics?.must_have?.some((x) => !ch.includes(x)) || f.characteristics?.exclude?.some((x) => ch.includes(x))) return false
    if (f.conditions && f.conditions.length > 0 && !f.conditions.includes(d.condition)) return false
    if ((f.private === true && !d.isPrivate) || (f.bank === true && !d.isBank) || (f.auction === true && !d.isAuction)) return false
    return true
  }
  const priceOk = (f: MarketFilter, totalArea: number, eur: number) =>
    inRange(f.price_range, eur) && inRange(f.price_per_sqm_range, totalArea > 0 ? eur / totalArea : 0)

  /**
   * The static filter split in two: what the core reads cheaply (business type, type and group,
   * bedrooms, total area; the same values `Details` carries) decides first, and a property's
   * details are built only when the filter names a field only they have. Issue 33: building
   * every candidate's details was most of a time series' cost (and its garbage).
   */
  const prefilter = (f: MarketFilter) => {
    const rent = f.business_type === "rent"
    const types = new Set(f.types)
    const building = types.has("building")
    const aptDev = types.has("apartment_development")
    const houseDev = types.has("house_development")
    const needsDetails =
      aptDev ||
      houseDev ||
      f.rooms_range != null ||
      f.bathrooms_range != null ||
      f.plot_area_range != null ||
      f.construction_year_range != null ||
      (f.characteristics?.must_have?.length ?? 0) > 0 ||
      (f.characteristics?.exclude?.length ?? 0) > 0 ||
      (f.conditions != null && f.conditions.length > 0) ||
      f.private === true ||
      f.bank === true ||
      f.auction === true
    const core_ = (p: number): boolean => {
      if (core.isRent(p) !== rent) return false
      const t = core.typeOf(p)
      if (!types.has(t) && !(building && t.endsWith("_building"))) {
        const g = (aptDev || houseDev) && core.groupOf(p)
        if (!((aptDev && g === "apartment") || (houseDev && g === "house"))) return false
      }
      return inRange(f.bedrooms_range, core.bedroomsOf(p)) && inRange(f.total_area_range, core.areaOf(p))
    }
    return { core: core_, needsDetails }
  }
  const candidates = (f: MarketFilter) => {
    const pre = prefilter(f)
    const out: Array<Details> = []
    for (const h of spatial.within(areaOf(f))) {
      if (!pre.core(h.p)) continue
      const d = details(h.p)
      if (!pre.needsDetails || matchesStatic(f, d)) out.push(d)
    }
    return out
  }

  /**
   * Per-district sums of a time series, kept for the last few requests' shapes (the filter but
   * its area, the buckets, the events counted): an area of location ids is the sum of its
   * districts, so a fan-out over countries, regions, municipalities and districts reads each
   * property once instead of once per level. Issue 33: a 5,000,000-property world answered 12 of
   * 500 such requests in 5 minutes, each an O(area) scan.
   */
  const leafSums = lru<Map<number, Float64Array>>(4)

  /**
   * Assumed: `date_start` is the calendar-aligned start of the interval (Monday, 1st of month,
   * quarter, year) holding the snapped range; count data points count events in the range; avg_*
   * average, over properties on the market at some time in the interval, the price in force at its
   * end; available_on_market counts those properties. Intervals without properties are left out of
   * avg_*; an all-zero or empty series is [] (the host answers 204).
   */
  const timeSeries = (r: TimeSeriesRequest, nowMs: number): ReadonlyArray<TimeSeriesPoint> => {
    const min = parseDate(previousMonday(r.date_range.min))
    const maxDay = r.date_range.max ? parseDate(previousSunday(r.date_range.max)) : parseDate(isoDate(nowMs))
    if (min === undefined || maxDay === undefined) return []
    const end = Math.min(maxDay + DAY_MS, nowMs + 1)
    if (end <= min) return []
    const starts: Array<number> = []
    for (let s = bucketStart(r.date_interval, min); s < end; s = nextBucket(r.date_interval, s)) starts.push(s)
    const n = starts.length
    const nEvents = core.eventsUntil(end - 1)
    const bucketOf = (t: number) => {
      let lo = 0,
        hi = n - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1
        if (starts[mid]! <= t) lo = mid
        else hi = mid - 1
      }
      return lo
    }
    const dp = r.data_point
    const countKind = dp === "new" ? K_NEW : dp === "price_up" ? K_UP : dp === "price_down" ? K_DOWN : dp === "sold_or_rented" ? K_SOLD : -1
    const pre = prefilter(r)
    /** Adds the properties `ps` pass the filter to `acc`: counts, then sums, then present, n each. */
    const add = (ps: ArrayLike<number>, acc: Float64Array) => {
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!
        if (!pre.core(p) || (pre.needsDetails && !matchesStatic(r, details(p)))) continue
        const totalArea = core.areaOf(p)
        const tl = timelineOf(core, p, nEvents)
        if (countKind >= 0) {
          for (const ev of tl.events) {
            if (ev.kind === countKind && ev.t >= min && ev.t < end && priceOk(r, totalArea, core.eur(p, ev.price))) acc[bucketOf(ev.t)]++
          }
          continue
        }
        // State per bucket: on the market at some time within it, and the price in force at its end.
        let k = 0,
          onMarket = false,
          price = 0
        for (let b = 0; b < n; b++) {
          const bEnd = b + 1 < n ? starts[b + 1]! : end
          let seen = onMarket
          while (k < tl.events.length && tl.events[k]!.t < bEnd) {
            const ev = tl.events[k++]!
            onMarket = ev.status === "active" || ev.status === "reserved"
            price = ev.price
            if (ev.t >= starts[b]! && onMarket) seen = true
          }
          if (!seen || bEnd <= min) continue
          const eur = core.eur(p, price)
          if (!priceOk(r, totalArea, eur)) continue
          acc[2 * n + b]++
          acc[n + b] += dp === "avg_price_psqm" ? eur / Math.max(1, totalArea) : eur
        }
      }
    }
    const acc = new Float64Array(3 * n)
    const ids = r.custom_location_boundary.location_ids
    if (ids && ids.length > 0) {
      const { custom_location_boundary: _area, ...shape } = r
      const sums = leafSums(JSON.stringify([shape, min, end, n, nEvents]), () => new Map())
      for (const leaf of spatial.leavesOf(ids)) {
        let part = sums.get(leaf)
        if (part === undefined) {
          part = new Float64Array(3 * n)
          add(spatial.ofLeaf(leaf), part)
          sums.set(leaf, part)
        }
        for (let i = 0; i < acc.length; i++) acc[i] += part[i]!
      }
    } else
      add(
        Int32Array.from(spatial.within(areaOf(r)), (h) => h.p),
        acc
      )
    const points: Array<TimeSeriesPoint> = []
    for (let b = 0; b < n; b++) {
      const count = acc[b]!,
        sum = acc[n + b]!,
        present = acc[2 * n + b]!
      const value = countKind >= 0 ? count : dp === "available_on_market" ? present : present > 0 ? sum / present : NaN
      if (Number.isNaN(value)) continue
      points.push({ date_start: isoDate(starts[b]!), value: Math.round(value * 100) / 100 })
    }
    return points.every((pt) => pt.value === 0) ? [] : points
  }

  /** On-market properties matching the filter, with current EUR price and days on market. */
  const current = (f: MarketFilter, nowMs: number) => {
    const nEvents = core.eventsUntil(nowMs)
    const out: Array<{ d: Details; eur: number; days: number }> = []
    for (const d of candidates(f)) {
      const tl = timelineOf(core, d.p, nEvents)
      if (tl.status !== "active" && tl.status !== "reserved") continue
      const eur = core.eur(d.p, tl.price)
      if (!priceOk(f, d.totalArea, eur)) continue
      out.push({ d, eur, days: tl.cycleStart === undefined ? 0 : Math.round((nowMs - tl.cycleStart) / DAY_MS) })
    }
    if (f.exclude_outliers !== true || out.length < 4) return out
    const sorted = out.map((x) => x.eur).sort((a, b) => a - b)
    const med = sorted[Math.floor(sorted.length / 2)]!
    return out.filter((x) => x.eur >= med / 3 && x.eur <= med * 3)
  }
  const quantile = (sorted: ReadonlyArray<number>, q: number) =>
    sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

  const bedroomsDistribution = (f: MarketFilter, nowMs: number): BedroomsDistribution => {
    const m = new Map<number, number>()
    for (const x of current(f, nowMs)) m.set(x.d.bedrooms, (m.get(x.d.bedrooms) ?? 0) + 1)
    return [...m].sort((a, b) => a[0] - b[0]).map(([bedrooms, count]) => ({ bedrooms, count }))
  }
  const pricesDistribution = (f: MarketFilter, nowMs: number): PricesDistribution => {
    const xs = current(f, nowMs).map((x) => x.eur)
    if (xs.length === 0) return []
    const lo = Math.min(...xs),
      hi = Math.max(...xs),
      k = 10,
      w = Math.max(1, Math.ceil((hi - lo + 1) / k))
    return Array.from({ length: k }, (_, i) => ({
      min: lo + i * w,
      max: lo + (i + 1) * w - 1,
      count: xs.filter((x) => x >= lo + i * w && x <= lo + (i + 1) * w - 1).length
    }))
  }
  const propertiesDistribution = (f: MarketFilter, nowMs: number): PropertiesDistribution => {
    const xs = current(f, nowMs)
    const sorted = xs.map((x) => x.eur).sort((a, b) => a - b)
    return {
      quartiles: { q1: quantile(sorted, 0.25), q2: quantile(sorted, 0.5), q3: quantile(sorted, 0.75) },
      properties: xs.slice(0, 100).map((x) => ({
        property_id: x.d.propertyId,
        price: x.eur,
        price_per_sqm: Math.round((x.eur / Math.max(1, x.d.totalArea)) * 100) / 100,
        total_area: x.d.totalArea,
        bedrooms: x.d.bedrooms
      }))
    }
  }
  const timeOnMarketDistribution = (f: MarketFilter, nowMs: number): TimeOnMarketDistribution => {
    const xs = current(f, nowMs).sort((a, b) => a.eur - b.eur)
    if (xs.length === 0) return []
    const parts = Math.min(4, xs.length)
    return Array.from({ length: parts }, (_, i) => {
      const slice = xs.slice(Math.floor((i * xs.length) / parts), Math.floor(((i + 1) * xs.length) / parts))
      const days = Math.round(slice.reduce((s, x) => s + x.days, 0) / slice.length)
      return { min_price: slice[0]!.eur, max_price: slice[slice.length - 1]!.eur, days, months: Math.round((days / 30.44) * 10) / 10 }
    })
  }
  /** Assumed: price_trend_pct compares the average current price with the same properties' average 90 days ago. */
  const analysis = (f: MarketFilter, nowMs: number): MarketAnalysis => {
    const xs = current(f, nowMs)
    if (xs.length === 0)
      return { avg_price: 0, avg_price_psqm: 0, median_price: 0, available_on_market: 0, avg_days_on_market: 0, price_trend_pct: 0 }
    const sorted = xs.map((x) => x.eur).sort((a, b) => a - b)
    const before = core.eventsUntil(nowMs - 90 * DAY_MS)
    const avg = (ys: ReadonlyArray<number>) => ys.reduce((s, y) => s + y, 0) / ys.length
    const then = avg(xs.map((x) => core.eur(x.d.p, core.priceAfter(x.d.p, core.eventCountOf(x.d.p, before)))))
    const now = avg(sorted)
    return {
      avg_price: Math.round(now),
      avg_price_psqm: Math.round(avg(xs.map((x) => x.eur / Math.max(1, x.d.totalArea))) * 100) / 100,
      median_price: quantile(sorted, 0.5),
      available_on_market: xs.length,
      avg_days_on_market: Math.round(avg(xs.map((x) => x.days))),
      price_trend_pct: then > 0 ? Math.round(((now - then) / then) * 10000) / 100 : 0
    }
  }
  return { timeSeries, bedroomsDistribution, pricesDistribution, propertiesDistribution, timeOnMarketDistribution, analysis }
}
