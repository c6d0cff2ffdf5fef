/** Plain-text tables and figures for the terminal (stdout); nothing here knows about secrets. */
import { eurOf } from "../service/CostGuard.js"

const cell = (v: unknown): string =>
  v === null || v === undefined
    ? ""
    : typeof v === "number"
      ? Number.isInteger(v)
        ? v.toLocaleString("en-US")
        : v.toFixed(2)
      : v instanceof Date
        ? v.toISOString()
        : String(v)

/** Left-aligned text, right-aligned numbers, a header rule. */
export const table = (objects: ReadonlyArray<object>, columns?: ReadonlyArray<string>): string => {
  const rows = objects as ReadonlyArray<Record<string, unknown>>
  if (rows.length === 0) return "(no rows)"
  const cols = columns ?? Object.keys(rows[0]!)
  const text = rows.map((r) => cols.map((c) => cell(r[c])))
  const numeric = cols.map((c) =>
    rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === "number" || typeof r[c] === "bigint")
  )
  const width = cols.map((c, i) => Math.max(c.length, ...text.map((t) => t[i]!.length)))
  const line = (vals: ReadonlyArray<string>) =>
    vals
      .map((v, i) => (numeric[i] ? v.padStart(width[i]!) : v.padEnd(width[i]!)))
      .join("  ")
      .trimEnd()
  return [line(cols), width.map((w) => "-".repeat(w)).join("  "), ...text.map(line)].join("\n")
}

/** Values of a query result as JSON-safe values (bigint as number or string). */
export const jsonSafe = (v: unknown): unknown =>
  typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v instanceof Date ? v.toISOString() : v

export const eur = (units: number) => `EUR ${eurOf(units).toFixed(2)}`
