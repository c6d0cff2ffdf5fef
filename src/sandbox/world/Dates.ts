/** Date helpers shared by the world and the hosts (all UTC). */

export const DAY_MS = 86_400_000

/** The world's default first day of events. */
export const DEFAULT_START_DATE = "2025-01-01"
/** The world's default now when none is given: 2026-06-01T00:00:00Z (also the sandbox clock's default start). */
export const DEFAULT_NOW = Date.UTC(2026, 5, 1)

const dayCache = new Map<number, string>()
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`)

/** `YYYY-MM-DD` of an epoch ms (memoised per day: records format many dates). */
export const isoDate = (ms: number): string => {
  const day = Math.floor(ms / DAY_MS)
  let s = dayCache.get(day)
  if (s === undefined) {
    s = new Date(day * DAY_MS).toISOString().slice(0, 10)
    if (dayCache.size < 100_000) dayCache.set(day, s)
  }
  return s
}

/** `YYYY-MM-DDTHH:mm:ssZ` of an epoch ms (no milliseconds). */
export const isoDateTime = (ms: number): string => {
  const day = Math.floor(ms / DAY_MS)
  const sec = Math.floor((ms - day * DAY_MS) / 1000)
  return `${isoDate(ms)}T${pad2(Math.floor(sec / 3600))}:${pad2(Math.floor(sec / 60) % 60)}:${pad2(sec % 60)}Z`
}

/** Epoch ms of a `YYYY-MM-DD` (midnight UTC) or a date-time; undefined when invalid. */
export const parseDate = (s: string): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`)
  return Number.isFinite(ms) ? ms : undefined
}

/** Day number (days since epoch) of an epoch ms. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS)

/** The Monday on or before the date (time-series `date_range.min` snapping). */
export const previousMonday = (date: string): string => {
  const ms = parseDate(date) ?? 0
  const dow = (new Date(ms).getUTCDay() + 6) % 7 // Monday = 0
  return isoDate(ms - dow * DAY_MS)
}

/** The Sunday on or before the date (time-series `date_range.max` snapping). */
export const previousSunday = (date: string): string => {
  const ms = parseDate(date) ?? 0
  const dow = new Date(ms).getUTCDay() // Sunday = 0
  return isoDate(ms - dow * DAY_MS)
}
