/** Plain-text tables and figures for the terminal (stdout); nothing here knows about secrets. */
import { eurOf } from "../service/CostGuard.js"
import { outputWidth, wrap } from "./Terminal.js"

// kept here too for the modules that import them from this one
export { outputWidth, wrap }

/**
 * An integer with thousands separators, as `toLocaleString("en-US")` writes it but without loading
 * ICU's number formatting (measured: its first call cost `list` 45 ms, an eighth of its start).
 */
export const grouped = (n: number): string => {
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",")
  return n < 0 ? `-${digits}` : digits
}

/** A column of identifiers (`id`, `*_id`, `*Id`): its integers are names, not quantities, so never grouped. */
const isIdColumn = (name: string) => /(^id|_id|Id)$/.test(name)

const cell = (v: unknown, id = false): string =>
  v === null || v === undefined
    ? ""
    : typeof v === "number"
      ? Number.isInteger(v)
        ? id
          ? String(v)
          : grouped(v)
        : v.toFixed(2)
      : v instanceof Date
        ? v.toISOString()
        : String(v)

/**
 * How a table fits a width: the named columns share what the others leave (none narrower than 8
 * characters unless its content is), their cells cut with "…".
 */
export interface Fit {
  readonly width: number
  readonly shrink: ReadonlyArray<string>
}

const MIN_COLUMN = 8

/** Left-aligned text, right-aligned numbers, a header rule; within `fit.width` when it can. */
export const table = (objects: ReadonlyArray<object>, columns?: ReadonlyArray<string>, fit?: Fit): string => {
  const rows = objects as ReadonlyArray<Record<string, unknown>>
  if (rows.length === 0) return "(no rows)"
  const cols = columns ?? Object.keys(rows[0]!)
  const ids = cols.map(isIdColumn)
  const text = rows.map((r) => cols.map((c, i) => cell(r[c], ids[i])))
  const numeric = cols.map((c) =>
    rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === "number" || typeof r[c] === "bigint")
  )
  const width = cols.map((c, i) => Math.max(c.length, ...text.map((t) => t[i]!.length)))
  if (fit) {
    const shrink = fit.shrink.map((c) => cols.indexOf(c)).filter((i) => i >= 0)
    let room = fit.width - width.reduce((s, w, i) => (shrink.includes(i) ? s : s + w), 2 * (cols.length - 1))
    // narrowest first, so what a narrow column does not need goes to the wider ones
    shrink
      .sort((a, b) => width[a]! - width[b]!)
      .forEach((i, k) => {
        width[i] = Math.min(width[i]!, Math.max(MIN_COLUMN, Math.floor(room / (shrink.length - k))))
        room -= width[i]!
      })
  }
  const cut = (v: string, w: number) => (v.length <= w ? v : `${v.slice(0, Math.max(0, w - 1))}…`)
  const line = (vals: ReadonlyArray<string>) =>
    vals
      .map((v, i) => (numeric[i] ? cut(v, width[i]!).padStart(width[i]!) : cut(v, width[i]!).padEnd(width[i]!)))
      .join("  ")
      .trimEnd()
  return [line(cols), width.map((w) => "-".repeat(w)).join("  "), ...text.map(line)].join("\n")
}

/** Values of a query result as JSON-safe values (bigint as number or string). */
export const jsonSafe = (v: unknown): unknown =>
  typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v instanceof Date ? v.toISOString() : v

export const eur = (units: number) => `EUR ${eurOf(units).toFixed(2)}`
