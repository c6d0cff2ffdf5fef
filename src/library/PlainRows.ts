/**
 * Query results as plain JavaScript objects that `JSON.stringify` and ordinary arithmetic take:
 * BIGINT, HUGEINT and integral DECIMAL values are `number` when they are exact (|n| <= 2^53 - 1)
 * and `bigint` only beyond that; `bigint: "keep"` keeps every BIGINT and HUGEINT a `bigint`.
 * Other values as DuckDB's JavaScript conversion gives them: DECIMAL as `number`, DATE and
 * timestamps as `Date`, JSON as its text, lists as arrays, structs as objects, maps with text
 * keys as objects (as Arrow's reading gives them, `rowsOfArrow`), BLOB as bytes.
 */
import type { DuckDBTypeId, DuckDBDecimalValue, DuckDBResultReader, DuckDBValueConverter, JS } from "@duckdb/node-api"
import { duckdb } from "../load/DuckDbApi.js"
import type { BigintMode } from "../normalize/RowType.js"

const TypeId = duckdb.DuckDBTypeId

export type { BigintMode }

/** How a read returns integers: see `BigintMode` (default `"auto"`). */
export interface ReadOptions {
  readonly bigint?: BigintMode | undefined
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER)

/** A `bigint` that fits a double exactly, as a `number`. */
export const exactNumber = (v: bigint): number | bigint => (v >= -MAX && v <= MAX ? Number(v) : v)

const INTEGERS: ReadonlySet<DuckDBTypeId> = new Set([TypeId.BIGINT, TypeId.UBIGINT, TypeId.HUGEINT, TypeId.UHUGEINT, TypeId.BIGNUM])

/** A MAP whose keys are all text as an object (DuckDB's conversion gives `[{ key, value }]`). */
const mapAsObject = (v: JS): JS => {
  const entries = v as unknown as Array<{ key: unknown; value: JS }>
  return Array.isArray(entries) && entries.every((e) => typeof e.key === "string")
    ? (Object.fromEntries(entries.map((e) => [e.key, e.value])) as JS)
    : v
}

/** DuckDB's JavaScript conversion, maps with text keys as objects (nested values too: it recurses through this). */
const keepingBigints: DuckDBValueConverter<JS> = (value, type, converter) => {
  const v = duckdb.JSDuckDBValueConverter(value, type, converter)
  return value !== null && type.typeId === TypeId.MAP ? mapAsObject(v) : v
}

/** The same, with exact integers as numbers. */
const numbersWhenExact: DuckDBValueConverter<JS> = (value, type, converter) => {
  if (value !== null && type.typeId === TypeId.DECIMAL) {
    const d = value as DuckDBDecimalValue
    // an integral DECIMAL beyond 2^53 as an exact bigint rather than a rounded double
    if (d.scale === 0) return exactNumber(d.value)
  }
  const v = keepingBigints(value, type, converter)
  return typeof v === "bigint" && INTEGERS.has(type.typeId) ? exactNumber(v) : v
}

/** The rows of a result read in full, by the options' integer convention. */
export const plainRows = (reader: DuckDBResultReader, options: ReadOptions = {}): Array<Record<string, unknown>> =>
  reader.convertRowObjects(options.bigint === "keep" ? keepingBigints : numbersWhenExact)
