/**
 * Comparables search (v2 body) and valuation prices derived from the comparables.
 */
import type { ComparableResult, Coordinates } from "./Records.js"
import type { ComparablesOutcome, ComparablesRequest, Valuation, ValuationPrices } from "./Queries.js"
import { DAY_MS, parseDate } from "./Dates.js"
import type { Details } from "./Details.js"
import type { Geography } from "./Geography.js"
import type { Core } from "./PropertyCore.js"
import type { Spatial } from "./Spatial.js"
import { type Timeline, timelineOf } from "./Timeline.js"

interface Found {
  readonly d: Details
  readonly tl: Timeline
  readonly distance: number | null
  readonly eur: number
}

export const makeComparables = (
  core: Core,
  geo: Geography,
  spatial: Spatial,
  details: (p: number) => Details,
  comparable: (d: Details, tl: Timeline, distance: number | null) => ComparableResult,
  resolveCadastral: (ref: string) => number | undefined
) => {
  const municipalities = geo.nodes
    .flatMap((n, i) => (n.administrative_level === "municipality" ? [i] : []))
    .sort((a, b) => geo.nodes[b]!.name.length - geo.nodes[a]!.name.length)

  /** Assumed: an address resolves to the centre of the (longest-named) municipality it mentions. */
  const target = (r: ComparablesRequest): Coordinates | string => {
    const tp = r.location_boundary.circle?.target_point
    if (!tp) return "no target point"
    if (tp.coordinates) return tp.coordinates
    if (tp.cadastral_reference) {
      const p = resolveCadastral(tp.cadastral_reference.cadastral_reference)
      return p === undefined ? "unknown cadastral reference" : spatial.pos(p)
    }
    if (tp.address) {
      const a = tp.address.toLowerCase()
      const m = municipalities.find((i) => a.includes(geo.nodes[i]!.name.toLowerCase()))
      return m === undefined ? "address not found" : { latitude: geo.lat[m]!, longitude: geo.lon[m]! }
    }
    return "no target point"
  }

  /**
   * Assumed filter semantics: bedrooms, rooms and bathrooms match exactly; construction_year within
   * 10 years; total_area and plot_area within 30%; prices are EUR bounds; `sold_or_rented_after`
   * keeps active properties and those sold or rented after the date (null: active only);
   * exclude_outliers drops prices per m² outside half to twice the median.
   */
  const find = (r: ComparablesRequest, nowMs: number): ReadonlyArray<Found> | string => {
    const circle = r.location_boundary.circle
    let area
    if (circle) {
      const c = target(r)
      if (typeof c === "string") return c
      area = { circle: { center: c, radiusKm: circle.distance ?? 5 } }
    } else if (r.location_boundary.polygon) area = { polygon: r.location_boundary.polygon }
    else return "no location boundary"
    const nEvents = core.eventsUntil(nowMs)
    const types = new Set(r.comparables_types)
    const after =
      r.sold_or_rented_after === undefined
        ? nowMs - 273 * DAY_MS
        : r.sold_or_rented_after === null
          ? null
          : (parseDate(r.sold_or_rented_after) ?? null)
    const near = (want: number | undefined, have: number, tol: number) => want === undefined || Math.abs(have - want) <= want * tol
    const anyOf = (want: ReadonlyArray<string> | undefined, have: ReadonlyArray<string>) =>
      !want || want.length === 0 || want.some((x) => have.includes(x))
    const out: Array<Found> = []
    for (const hit of spatial.within(area)) {
      const p = hit.p
      if (core.isRent(p) !== (r.operation === "rent") || !types.has(core.typeOf(p))) continue
      const d = details(p)
      if (r.bedrooms !== undefined && d.bedrooms !== r.bedrooms) continue
      if (r.rooms !== undefined && d.rooms !== r.rooms) continue
      if (r.bathrooms !== undefined && d.bathrooms !== r.bathrooms) continue
      if (r.condition !== undefined && d.condition !== r.condition) continue
      if (r.construction_year !== undefined && Math.abs(d.constructionYear - r.construction_year) > 10) continue
      if (!near(r.total_area, d.totalArea, 0.3) || !near(r.plot_area, d.plotArea, 0.3)) continue
      if (r.floors && r.floors.length > 0 && !r.floors.includes(d.features.floor ?? "")) continue
      if (r.floor_number && r.floor_number.length > 0 && !r.floor_number.includes(d.floorNumber)) continue
      if (r.orientation !== undefined && d.features.orientation !== r.orientation) continue
      if (!anyOf(r.views, d.features.views) || !anyOf(r.directions, d.features.directions)) continue
      const ch = d.features.characteristics
      if (r.characteristics?.must_have?.some((x) => !ch.includes(x)) || r.characteristics?.exclude?.some((x) => ch.includes(x))) continue
      if (r.energy_ratings && r.energy_ratings.length > 0 && !r.energy_ratings.includes(d.energyRating)) continue
      const agencies = d.listings.map((l) => l.agency)
      if (!anyOf(r.with_agencies, agencies) || r.without_agencies?.some((x) => agencies.includes(x))) continue
      const tl = timelineOf(core, p, nEvents)
      const active = tl.status === "active" || tl.status === "reserved"
      const closed = (tl.status === "sold" || tl.status === "rented") && after !== null && (tl.cycleEnd ?? 0) >= after
      if (!active && !closed) continue
      const days = tl.cycleStart === undefined ? 0 : Math.round(((tl.cycleEnd ?? nowMs) - tl.cycleStart) / DAY_MS)
      if (
        (r.days_on_market_from !== undefined && days < r.days_on_market_from) ||
        (r.days_on_market_to !== undefined && days > r.days_on_market_to)
      )
        continue
      const eur = core.eur(p, tl.price)
      if ((r.min_price !== undefined && eur < r.min_price) || (r.max_price !== undefined && eur > r.max_price)) continue
      out.push({ d, tl, distance: hit.distance, eur })
    }
    if (r.exclude_outliers === false || out.length < 4) return out
    const psqm = out.map((f) => f.eur / Math.max(1, f.d.totalArea)).sort((a, b) => a - b)
    const median = psqm[Math.floor(psqm.length / 2)]!
    return out.filter((f) => {
      const x = f.eur / Math.max(1, f.d.totalArea)
      return x >= median / 2 && x <= median * 2
    })
  }

  const comparables = (r: ComparablesRequest, nowMs: number): ComparablesOutcome => {
    const found = find(r, nowMs)
    if (typeof found === "string") return { _tag: "unresolved", reason: found }
    return {
      _tag: "ok",
      results: found.slice(0, Math.max(1, Math.min(50, r.comparables_count))).map((f) => comparable(f.d, f.tl, f.distance))
    }
  }

  const valuation = (r: ComparablesRequest, nowMs: number): Valuation | undefined => {
    const found = find(r, nowMs)
    if (typeof found === "string") return undefined
    const used = found.slice(0, Math.max(1, Math.min(50, r.comparables_count)))
    const prices: ValuationPrices | null =
      used.length === 0
        ? null
        : {
            min: Math.min(...used.map((f) => f.eur)),
            avg: Math.round(used.reduce((s, f) => s + f.eur, 0) / used.length),
            max: Math.max(...used.map((f) => f.eur)),
            per_sqm: Math.round((used.reduce((s, f) => s + f.eur / Math.max(1, f.d.totalArea), 0) / used.length) * 100) / 100
          }
    return {
      currency: "EUR",
      sale: r.operation === "sale" ? prices : null,
      rent: r.operation === "rent" ? prices : null,
      comparables_used: used.length
    }
  }
  return { comparables, valuation }
}
