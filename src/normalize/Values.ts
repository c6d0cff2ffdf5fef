/**
 * Small conversions from decoded records to row values. Kept allocation-light: they run once
 * per field of every record of a bulk load.
 */
import { stringifyJson } from "../shared/ExactJson.js"

/** A JSON column value: `null` for absent, else the JSON text. */
export const json = (v: unknown): string | null => (v === undefined || v === null ? null : stringifyJson(v))

/** A nullable scalar: `undefined` becomes `null`. */
export const opt = <A extends string | number | boolean | bigint>(v: A | null | undefined): A | null => v ?? null

/** A number or null, rejecting NaN. */
export const num = (v: number | null | undefined): number | null => (typeof v === "number" && !Number.isNaN(v) ? v : null)

/** Date part (`YYYY-MM-DD`) of a date or date-time string. */
export const day = (v: string | null | undefined): string | null => (v ? v.slice(0, 10) : null)

/**
 * The `extra` column: the fields of `record` that the schema does not name, as JSON, or null
 * when there are none. Unknown fields are kept, never dropped.
 */
export const extra = (record: object, known: ReadonlySet<string>): string | null => {
  let out: Record<string, unknown> | undefined
  for (const k in record) {
    if (!known.has(k)) (out ??= {})[k] = (record as Record<string, unknown>)[k]
  }
  return out === undefined ? null : stringifyJson(out)
}
