/**
 * A property's events up to now, in order, with the price and status each leaves: the single
 * source of its histories, current values, time on market and alerts.
 */
import { DAY_MS, isoDate } from "./Dates.js"
import { type Core, K_DOWN, K_NEW, K_UP, statusOfKind } from "./PropertyCore.js"

export interface TimelineEvent {
  /** Global event index (alert_id = e + 1). */
  readonly e: number
  /** k-th event of the property. */
  readonly k: number
  readonly t: number
  readonly kind: number
  readonly priceBefore: number
  readonly price: number
  readonly statusBefore: string
  readonly status: string
}

export interface Timeline {
  readonly events: ReadonlyArray<TimelineEvent>
  /** Current listing-currency price (initial price when no event yet). */
  readonly price: number
  readonly status: string
  /** Start of the current cycle (ms), or undefined before the first event. */
  readonly cycleStart: number | undefined
  /** End of the current cycle when it ended (sold/rented/delisted), else undefined. */
  readonly cycleEnd: number | undefined
}

export const eventAt = (core: Core, p: number, k: number): TimelineEvent => {
  const L = core.cycleLengthOf(p),
    c = Math.floor(k / L),
    j = k % L
  const e = core.firstEventOf(p) + k * core.n
  const kind = core.kindOf(p, k)
  const rent = core.isRent(p)
  const price = core.priceAt(p, c, j)
  const priceBefore = j === 0 ? (k === 0 ? price : core.priceAt(p, c - 1, L - 1)) : core.priceAt(p, c, j - 1)
  const statusBefore = k === 0 ? "none" : statusOfKind(core.kindOf(p, k - 1), rent)
  return { e, k, t: core.timeOfEvent(e), kind, priceBefore, price, statusBefore, status: statusOfKind(kind, rent) }
}

export const timelineOf = (core: Core, p: number, nEvents: number): Timeline => {
  const count = core.eventCountOf(p, nEvents)
  const L = core.cycleLengthOf(p),
    rent = core.isRent(p),
    e0 = core.firstEventOf(p)
  const events: Array<TimelineEvent> = []
  let price = core.priceAt(p, 0, 0),
    status = "none"
  let cycleStart: number | undefined, cycleEnd: number | undefined
  for (let k = 0; k < count; k++) {
    const c = Math.floor(k / L),
      j = k % L,
      e = e0 + k * core.n,
      t = core.timeOfEvent(e)
    const kind = core.kindOf(p, k)
    const next = j === 0 || kind === K_UP || kind === K_DOWN ? core.priceAt(p, c, j) : price
    const nextStatus = statusOfKind(kind, rent)
    events.push({ e, k, t, kind, priceBefore: price, price: next, statusBefore: status, status: nextStatus })
    if (kind === K_NEW) {
      cycleStart = t
      cycleEnd = undefined
    } else if (j === L - 1) cycleEnd = t
    price = next
    status = nextStatus
  }
  return { events, price, status, cycleStart, cycleEnd }
}

/** Time on market of the current cycle; null before the first event. */
export const timeOnMarket = (tl: Timeline, nowMs: number, untracked: boolean) => {
  if (tl.cycleStart === undefined) return null
  const end = tl.cycleEnd ?? nowMs
  return {
    date_start: isoDate(tl.cycleStart),
    date_end: isoDate(end),
    days_on_market: Math.max(0, Math.round((end - tl.cycleStart) / DAY_MS)),
    has_untracked_period: untracked
  }
}
