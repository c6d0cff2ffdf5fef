/**
 * The period a report covers: everything (no flag), from a UTC day on (`--since YYYY-MM-DD`), or
 * one UTC month (`--month YYYY-MM`). Bad input names the flag and the format it takes (exit 2).
 * The balance and the forecast are always as of now; the period bounds the charts, the tables and
 * the month's figure (`--month`: that month; otherwise the current one).
 */
import { Either, Option } from "effect"
import { InvalidInput } from "../shared/InvalidInput.js"

export interface ReportPeriod {
  /** Inclusive start, ISO instant (UTC midnight); undefined: from the first run. */
  readonly from: string | undefined
  /** Exclusive end, ISO instant; undefined: up to now. */
  readonly to: string | undefined
  /** The month whose units the report totals, `YYYY-MM`. */
  readonly month: string
  /** How the report names the period, e.g. `since 2026-11-01`, `2026-10`, `every run`. */
  readonly label: string
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const MONTH = /^(\d{4})-(\d{2})$/

/** `YYYY-MM` of an instant, UTC. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7)

/** UTC midnight starting `month` (`YYYY-MM`), and the next month's, as ISO instants. */
export const monthBounds = (month: string): readonly [string, string] => {
  const [y, m] = month.split("-").map(Number) as [number, number]
  return [new Date(Date.UTC(y, m - 1, 1)).toISOString(), new Date(Date.UTC(y, m, 1)).toISOString()]
}

const parseDay = (text: string): Date | undefined => {
  const m = DAY.exec(text.trim())
  if (!m) return undefined
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  // 2026-02-31 rolls over to March: not a day of the calendar
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]) ? d : undefined
}

/** The period of `--since` / `--month` (at most one of them), as of `now`. */
export const reportPeriod = (
  flags: { readonly since: Option.Option<string>; readonly month: Option.Option<string> },
  now: Date
): Either.Either<ReportPeriod, InvalidInput> => {
  const since = Option.getOrUndefined(flags.since)
  const month = Option.getOrUndefined(flags.month)
  if (since !== undefined && month !== undefined) {
    return Either.left(new InvalidInput({ field: "--since", detail: "give --since YYYY-MM-DD or --month YYYY-MM, not both" }))
  }
  if (since !== undefined) {
    const day = parseDay(since)
    if (day === undefined) {
      return Either.left(
        new InvalidInput({
          field: "--since",
          detail: `${JSON.stringify(since)} is not a day; give a UTC date as YYYY-MM-DD, e.g. 2026-11-01`
        })
      )
    }
    if (day.getTime() > now.getTime()) {
      return Either.left(
        new InvalidInput({ field: "--since", detail: `${since} is in the future; give a UTC date up to today as YYYY-MM-DD` })
      )
    }
    return Either.right({ from: day.toISOString(), to: undefined, month: monthOf(now), label: `since ${since}` })
  }
  if (month !== undefined) {
    const m = MONTH.exec(month.trim())
    const valid = m !== null && Number(m[2]) >= 1 && Number(m[2]) <= 12
    if (!valid) {
      return Either.left(
        new InvalidInput({ field: "--month", detail: `${JSON.stringify(month)} is not a month; give it as YYYY-MM, e.g. 2026-11` })
      )
    }
    const name = month.trim()
    const [from, to] = monthBounds(name)
    if (from > now.toISOString()) {
      return Either.left(new InvalidInput({ field: "--month", detail: `${name} has not begun; give a month up to this one as YYYY-MM` }))
    }
    return Either.right({ from, to, month: name, label: name })
  }
  return Either.right({ from: undefined, to: undefined, month: monthOf(now), label: "every run" })
}
