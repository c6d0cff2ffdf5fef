/**
 * Alert reads. Alert `alert_id - 1` is global event e; `created_at`, `alert_date` and
 * `created_at_with_photos` all grow with e, so every time window is a contiguous range of e and
 * ordering by any of the sort keys is ordering by e (for `updated_at` = created_at_with_photos ??
 * created_at this holds except within the last 5 minutes, where it is approximate). Filters other than time scan the range
 * once per (query, now); pages are then slices.
 */
import type { AlertRecord } from "./Records.js"
import type { AlertQuery } from "./Queries.js"
import { DAY_MS, parseDate } from "./Dates.js"
import type { Details } from "./Details.js"
import type { Geography } from "./Geography.js"
import { type Core, PHOTO_DELAY_MS, SUBTYPES } from "./PropertyCore.js"
import { lru } from "./PropertyIndex.js"
import { eventAt, type TimelineEvent } from "./Timeline.js"

export interface AlertsApi {
  readonly alerts: (q: AlertQuery) => { readonly count: number; readonly results: ReadonlyArray<AlertRecord> }
  readonly alert: (alertId: number, nowMs: number) => AlertRecord | undefined
  /** The event of a global event index. */
  readonly eventOf: (e: number) => { readonly p: number; readonly ev: TimelineEvent }
}

export const makeAlerts = (
  core: Core,
  geo: Geography,
  details: (p: number) => Details,
  alertRecord: (d: Details, ev: TimelineEvent, nowMs: number) => AlertRecord
): AlertsApi => {
  const cache = lru<Float64Array>(8)
  const eventOf = (e: number) => {
    const p = core.propertyOfEvent(e)
    const k = Math.round((e - core.firstEventOf(p)) / core.n)
    return { p, ev: eventAt(core, p, k) }
  }
  const recordOf = (e: number, nowMs: number) => {
    const { p, ev } = eventOf(e)
    return alertRecord(details(p), ev, nowMs)
  }

  /** [lo, hi) of the events satisfying the query's time windows. */
  const range = (q: AlertQuery): readonly [number, number] => {
    let lo = 0
    let hi = core.eventsUntil(q.nowMs)
    const atOrAfter = (ms: number) => core.firstEventAtOrAfter(ms)
    if (q.createdFrom !== undefined) lo = Math.max(lo, atOrAfter(q.createdFrom))
    if (q.createdTo !== undefined) hi = Math.min(hi, atOrAfter(q.createdTo))
    if (q.createdWithPhotosFrom !== undefined || q.createdWithPhotosTo !== undefined) {
      hi = Math.min(hi, core.eventsUntil(q.nowMs - PHOTO_DELAY_MS))
      if (q.createdWithPhotosFrom !== undefined) lo = Math.max(lo, atOrAfter(q.createdWithPhotosFrom - PHOTO_DELAY_MS))
      if (q.createdWithPhotosTo !== undefined) hi = Math.min(hi, atOrAfter(q.createdWithPhotosTo - PHOTO_DELAY_MS))
    }
    const from = q.alertDateFrom === undefined ? undefined : parseDate(q.alertDateFrom)
    const to = q.alertDateTo === undefined ? undefined : parseDate(q.alertDateTo)
    if (from !== undefined) lo = Math.max(lo, atOrAfter(from))
    if (to !== undefined) hi = Math.min(hi, atOrAfter(to + DAY_MS))
    return [lo, Math.max(lo, hi)]
  }

  const alerts = (q: AlertQuery) => {
    const [lo, hi] = range(q)
    const desc = (q.orderBy ?? "-alert_date").startsWith("-")
    const offset = Math.max(0, q.offset),
      limit = Math.max(0, q.limit)
    // Unknown subtypes are ignored (spec: invalid values ignored); none left means no subtype filter.
    const known = (q.subtypes ?? []).map((s) => SUBTYPES.indexOf(s as never)).filter((k) => k >= 0)
    const kinds = known.length > 0 ? new Set(known) : undefined
    const mask = q.locationIds && q.locationIds.length > 0 ? geo.maskOf(q.locationIds) : undefined
    const types = q.types && q.types.length > 0 ? new Set(q.types) : undefined
    if (!kinds && !mask && !types && q.operation === undefined) {
      const count = hi - lo
      const out: Array<AlertRecord> = []
      for (let i = offset; i < Math.min(count, offset + limit); i++) out.push(recordOf(desc ? hi - 1 - i : lo + i, q.nowMs))
      return { count, results: out }
    }
    const key = JSON.stringify([lo, hi, known, q.locationIds ?? null, q.types ?? null, q.operation ?? null])
    const matches = cache(key, () => {
      const out = new Float64Array(hi - lo)
      let n = 0
      for (let e = lo; e < hi; e++) {
        const p = core.propertyOfEvent(e)
        if (mask && !mask[core.leafOf(p)]) continue
        if (q.operation !== undefined && core.isRent(p) !== (q.operation === "rent")) continue
        if (types && !types.has(core.typeOf(p))) continue
        if (kinds && !kinds.has(core.kindOf(p, Math.round((e - core.firstEventOf(p)) / core.n)))) continue
        out[n++] = e
      }
      return out.slice(0, n)
    })
    const out: Array<AlertRecord> = []
    for (let i = offset; i < Math.min(matches.length, offset + limit); i++) {
      out.push(recordOf(matches[desc ? matches.length - 1 - i : i]!, q.nowMs))
    }
    return { count: matches.length, results: out }
  }

  const alert = (alertId: number, nowMs: number) => {
    const e = alertId - 1
    return Number.isInteger(e) && e >= 0 && e < core.eventsUntil(nowMs) ? recordOf(e, nowMs) : undefined
  }
  return { alerts, alert, eventOf }
}
