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
  const priceOk = (f: MarketFilter, d: Details, eur: number) =>
    inRange(f.price_range, eur) && inRange(f.price_per_sqm_range, d.totalArea > 0 ? eur / d.totalArea : 0)
  const candidates = (f: MarketFilter) =>
    spatial
      .within(areaOf(f))
      .map((h) => details(h.p))
      .filter((d) => matchesStatic(f, d))

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
    const counts = new Float64Array(n),
      sums = new Float64Array(n),
      present = new Float64Array(n)
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
    for (const d of candidates(r)) {
      const tl = timelineOf(core, d.p, nEvents)
      if (countKind >= 0) {
        for (const ev of tl.events) {
          if (ev.kind === countKind && ev.t >= min && ev.t < end && priceOk(r, d, core.eur(d.p, ev.price))) counts[bucketOf(ev.t)]++
        }
        continue
      }
      // State per bucket: on the market at some time within it, and the price in force at its end.
      let i = 0,
        onMarket = false,
        price = 0
      for (let b = 0; b < n; b++) {
        const bEnd = b + 1 < n ? starts[b + 1]! : end
        let seen = onMarket
        while (i < tl.events.length && tl.events[i]!.t < bEnd) {
          const ev = tl.events[i++]!
          onMarket = ev.status === "active" || ev.status === "reserved"
          price = ev.price
          if (ev.t >= starts[b]! && onMarket) seen = true
        }
        if (!seen || bEnd <= min) continue
        const eur = core.eur(d.p, price)
        if (!priceOk(r, d, eur)) continue
        present[b]++
        sums[b] += dp === "avg_price_psqm" ? eur / Math.max(1, d.totalArea) : eur
      }
    }
    const points: Array<TimeSeriesPoint> = []
    for (let b = 0; b < n; b++) {
      const value =
        countKind >= 0 ? counts[b]! : dp === "available_on_market" ? present[b]! : present[b]! > 0 ? sums[b]! / present[b]! : NaN
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
      if (!priceOk(f, d, eur)) continue
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
