/**
 * High Potential Seller Leads: homes for sale, on the market, around a point, whose asking
 * price was cut at least `min_price_cuts` times by at least `min_price_cut_pct` percent in all,
 * over the current time on the market or since a date.
 */
import type { Lead, SourcingProperty } from "./Records.js"
import type { SellerLeadQuery } from "./Queries.js"
import { isoDate, parseDate } from "./Dates.js"
import type { Details } from "./Details.js"
import type { Geography } from "./Geography.js"
import { type Core, K_DOWN, K_UP } from "./PropertyCore.js"
import type { Spatial } from "./Spatial.js"
import { type Timeline, timelineOf } from "./Timeline.js"

export const LEAD_COUNTRIES = ["ES", "FR", "IT", "DE", "GR", "AD"] as const

export const makeLeads = (
  core: Core,
  geo: Geography,
  spatial: Spatial,
  details: (p: number) => Details,
  sourcing: (p: number, nowMs: number) => SourcingProperty
) => {
  const allowed = new Set(LEAD_COUNTRIES.map((c) => geo.countryIndex(c)))
  const isHome = (p: number) => !core.isRent(p) && (core.groupOf(p) === "apartment" || core.groupOf(p) === "house")

  /** Cuts and the price at the window start, over the current cycle (or since `sinceMs`). */
  const cutsOf = (tl: Timeline, sinceMs: number | undefined) => {
    if (tl.cycleStart === undefined) return undefined
    const from = Math.max(tl.cycleStart, sinceMs ?? -Infinity)
    let cuts = 0,
      first: number | undefined
    for (const ev of tl.events) {
      if (ev.t < tl.cycleStart) continue
      if (ev.t < from) continue
      if (first === undefined) first = ev.kind === K_UP || ev.kind === K_DOWN ? ev.priceBefore : ev.price
      if (ev.kind === K_DOWN) cuts++
    }
    return { cuts, first: first ?? tl.price }
  }

  const leadOf = (p: number, tl: Timeline, nowMs: number, sinceMs: number | undefined): Lead | undefined => {
    const c = cutsOf(tl, sinceMs)
    if (!c) return undefined
    const d = details(p)
    const first = core.eur(p, c.first),
      current = core.eur(p, tl.price)
    return {
      id: `lead_${d.propertyId}`,
      property_id: `prop_${d.propertyId}`,
      home: sourcing(p, nowMs),
      price_cuts: c.cuts,
      price_cut_pct: first > 0 ? Math.round(((first - current) / first) * 1000) / 10 : 0,
      first_price: first,
      current_price: current,
      price_history: tl.events
        .filter((ev) => ev.kind === 0 || ev.kind === K_UP || ev.kind === K_DOWN)
        .map((ev) => ({ date: isoDate(ev.t), price: core.eur(p, ev.price) })),
      status_history: tl.events
        .filter((ev) => ev.kind !== K_UP && ev.kind !== K_DOWN)
        .map((ev) => ({ date: isoDate(ev.t), status: ev.status }))
    }
  }

  const sellerLeads = (q: SellerLeadQuery, nowMs: number): ReadonlyArray<Lead> => {
    const nEvents = core.eventsUntil(nowMs)
    const since = q.since === undefined ? undefined : parseDate(q.since)
    const out: Array<Lead> = []
    for (const hit of spatial.within(
      { circle: { center: { latitude: q.latitude, longitude: q.longitude }, radiusKm: q.radius_km } },
      allowed
    )) {
      const p = hit.p
      if (!isHome(p)) continue
      const status = core.statusAfter(p, core.eventCountOf(p, nEvents))
      if (status !== "active" && status !== "reserved") continue
      const tl = timelineOf(core, p, nEvents)
      const lead = leadOf(p, tl, nowMs, since)
      if (lead && lead.price_cuts >= q.min_price_cuts && lead.price_cut_pct >= q.min_price_cut_pct) out.push(lead)
    }
    return out
  }

  /** A lead by id: any home for sale in a lead country that has been listed (cuts may be 0 now). */
  const lead = (id: string, nowMs: number): Lead | undefined => {
    const m = /^lead_(\d+)$/.exec(id)
    if (!m) return undefined
    const p = Number(m[1]) - 1_000_000
    if (!(p >= 0 && p < core.n) || !allowed.has(core.countryOf(p)) || !isHome(p)) return undefined
    return leadOf(p, timelineOf(core, p, core.eventsUntil(nowMs)), nowMs, undefined)
  }
  return { sellerLeads, lead }
}
