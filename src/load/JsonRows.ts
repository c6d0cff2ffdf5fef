/**
 * Many rows of a bookkeeping table in one statement: the rows as one JSON literal that DuckDB
 * unnests, not a `VALUES` list. DuckDB binds every value of a `VALUES` list as an expression of its
 * own: 32 rows of 11 values took 7.5 ms of CPU to bind and plan, the same rows as one JSON literal
 * 2.1 ms (DuckDB 1.5, `.scratch/valuescost.mjs`, not kept), and a landing group writes six such
 * statements (raw pages, calls, ledger, slices, checkpoints, slice keys). Still literals, not
 * parameters: see `GroupLanding.ts`.
 *
 * Each column names its JSON type and, where the table wants another, the expression that makes
 * it (`as`: a timestamp from its ISO text, a blob from its hex). A value its column cannot hold
 * is refused before DuckDB sees it, as DuckDB refused it in a `VALUES` list (`from_json` would
 * quietly read it as NULL): a number must be finite, a whole number within 2^53 (rounded half
 * away from zero, as DuckDB casts), a boolean a boolean. A string that is not well-formed UTF-16
 * (a lone surrogate) is stored with U+FFFD in its place, as a `VALUES` literal would have been.
 *
 * The literal holds no `'`: each is written as the JSON escape `\u0027`. Doubled quotes in one
 * long literal cost DuckDB time in (quotes x length): 32,000 rejects whose raw records held 3
 * apostrophes each took 71 s, against 0.9 s escaped (found in review).
 */
import { ident, literal } from "./Database.js"
import { WarehouseError } from "./WarehouseError.js"

export type Cell = string | number | boolean | null | undefined

export interface RowColumn {
  readonly name: string
  /** The field's type in the JSON (what `from_json` reads it as). */
  readonly type: "VARCHAR" | "BIGINT" | "DOUBLE" | "BOOLEAN"
  /** The value as inserted, from the field's expression (default: the field itself). */
  readonly as?: (field: string) => string
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const refuse = (c: RowColumn, v: Cell, want: string) =>
  new WarehouseError({
    reason: "BadValue",
    detail: `Bookkeeping column ${c.name} takes ${want}, got ${typeof v} ${String(v).slice(0, 40)}`
  })

/** What a bookkeeping number that is not finite fails with, here and in `GroupLanding.sqlValue`. */
export const notFinite = (v: number) => new WarehouseError({ reason: "BadValue", detail: `A bookkeeping number must be finite, got ${v}` })

const cellOf = (c: RowColumn, v: Cell): string | number | boolean | null => {
  if (v === null || v === undefined) return null
  if (typeof v === "number" && !Number.isFinite(v)) throw notFinite(v)
  switch (c.type) {
    case "VARCHAR":
      return typeof v === "string" ? v.replace(LONE_SURROGATE, "\uFFFD") : v
    case "BIGINT": {
      if (typeof v !== "number") throw refuse(c, v, "a whole number")
      const whole = Math.sign(v) * Math.round(Math.abs(v))
      if (!Number.isSafeInteger(whole)) throw refuse(c, v, "a whole number within 2^53")
      return whole
    }
    case "DOUBLE":
      if (typeof v !== "number") throw refuse(c, v, "a number")
      return v
    case "BOOLEAN":
      if (typeof v !== "boolean") throw refuse(c, v, "a boolean")
      return v
  }
}

/** `SELECT` of `columns` (in their order) over `rows`, each row's cells in the same order. */
export const selectRows = (columns: ReadonlyArray<RowColumn>, rows: ReadonlyArray<ReadonlyArray<Cell>>): string => {
  const objects = rows.map((row) => {
    if (row.length !== columns.length) {
      throw new WarehouseError({ reason: "BadValue", detail: `A bookkeeping row has ${row.length} values for ${columns.length} columns` })
    }
    const o: Record<string, string | number | boolean | null> = {}
    columns.forEach((c, i) => (o[c.name] = cellOf(c, row[i])))
    return o
  })
  const type = `[{${columns.map((c) => `${JSON.stringify(c.name)}: ${JSON.stringify(c.type)}`).join(", ")}}]`
  const fields = columns.map((c) => (c.as ? c.as(`_r.${ident(c.name)}`) : `_r.${ident(c.name)}`))
  const json = JSON.stringify(objects).replaceAll("'", "\\u0027")
  return `SELECT ${fields.join(", ")} FROM (SELECT unnest(from_json('${json}', ${literal(type)}), recursive := true)) AS _r`
}

/** The columns' names, quoted, for an `INSERT INTO table (...)`. */
export const columnList = (columns: ReadonlyArray<RowColumn>): string => `(${columns.map((c) => ident(c.name)).join(", ")})`
