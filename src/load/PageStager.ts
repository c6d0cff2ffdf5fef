/**
 * The bulk path of a page: rows go through DuckDB's appender into a staging table (`Stage.ts`,
 * as the page arrives), then one INSERT ... SELECT per table lands a group's rows in the target
 * (upsert, append, history or the replace side table). Per value the work is one type check and one native append; DATE, TIMESTAMP(TZ), JSON
 * and nested values (as JSON text) are staged as text, DECIMAL as DOUBLE, and cast by DuckDB in
 * the INSERT (`normalize/ColumnTypes.ts`), so a bad value fails the statement and with it the
 * page's transaction.
 *
 * Assumed: a row's keys that its table spec does not declare are ignored (the normalizer keeps
 * unknown fields in an `extra` JSON column); a declared column missing from a row is NULL.
 * Assumed: `_extracted_at` of append rows is the page's commit time (UTC); the page contract
 * carries no extraction time of its own.
 */
import type { DuckDBAppender } from "@duckdb/node-api"
import { landingCast, parseColumnType, type StageType, stageTypeOf } from "../normalize/ColumnTypes.js"
import type { ColumnType, Row, TableSpec } from "../normalize/Table.js"
import { ident, literal } from "./Database.js"
import { FNV1A_OFFSET, fnv1aStep } from "../shared/Fnv.js"
import { historyLandSql } from "./HistoryTable.js"
import { replaceTableOf } from "./TableDdl.js"
import { WarehouseError } from "./WarehouseError.js"

type Value = Row[string] | undefined
type Writer = (app: DuckDBAppender, v: Value) => void

const stageType = (type: ColumnType): StageType => stageTypeOf(parseColumnType(type))

class BadValue extends Error {
  constructor(
    readonly expected: StageType,
    readonly value: Value
  ) {
    super(`expected ${expected}, got ${typeof value} ${String(value).slice(0, 40)}`)
  }
}

const INT32_MIN = -2147483648
const INT32_MAX = 2147483647

const writerOf = (type: StageType): Writer => {
  switch (type) {
    case "VARCHAR":
      return (app, v) => {
        if (v === null || v === undefined) app.appendNull()
        else if (typeof v === "string") app.appendVarchar(v)
        else app.appendVarchar(String(v))
      }
    case "BIGINT":
      return (app, v) => {
        if (v === null || v === undefined) app.appendNull()
        else if (typeof v === "bigint") app.appendBigInt(v)
        else if (typeof v === "number" && Number.isSafeInteger(v)) app.appendBigInt(BigInt(v))
        else if (typeof v === "string" && /^-?\d+$/.test(v)) app.appendBigInt(BigInt(v))
        else throw new BadValue(type, v)
      }
    case "INTEGER":
      return (app, v) => {
        if (v === null || v === undefined) app.appendNull()
        else if (typeof v === "number" && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) app.appendInteger(v)
        else if (typeof v === "bigint" && v >= INT32_MIN && v <= INT32_MAX) app.appendInteger(Number(v))
        else throw new BadValue(type, v)
      }
    case "DOUBLE":
      return (app, v) => {
        if (v === null || v === undefined) app.appendNull()
        else if (typeof v === "number") app.appendDouble(v)
        else if (typeof v === "bigint") app.appendDouble(Number(v))
        else throw new BadValue(type, v)
      }
    case "BOOLEAN":
      return (app, v) => {
        if (v === null || v === undefined) app.appendNull()
        else if (typeof v === "boolean") app.appendBoolean(v)
        else throw new BadValue(type, v)
      }
  }
}

/** The staging table of a spec named `name` (qualified): its columns as staged, then `_seq`, the row's order in its group. */
export const stageTableSql = (spec: TableSpec, name: string) =>
  `CREATE TABLE ${name} (${[...spec.columns.map((c) => `${ident(c.name)} ${stageType(c.type)}`), "_seq INTEGER"].join(", ")})`

/**
 * Appends `rows` to `app`, numbering them from `seq` (`_seq` keeps their order for "last wins");
 * a value its column's writer refuses is a `BadValue` error naming the row of the page and the column.
 */
export const appendRows = (app: DuckDBAppender, spec: TableSpec, rows: ReadonlyArray<Row>, seq: number) => {
  const { names, writers, append } = appendLoopOf(spec)
  try {
    append(writers, app, rows, seq)
  } catch (e) {
    if (e instanceof BadValue) {
      const [r, c] = badValueAt(writers, rows, names)
      throw new WarehouseError({
        reason: "BadValue",
        table: spec.name,
        detail: `Table ${spec.name}, row ${r} of the page, column ${names[c]}: ${e.message}`
      })
    }
    throw e
  }
}

type AppendLoop = (writers: ReadonlyArray<Writer>, app: DuckDBAppender, rows: ReadonlyArray<Row>, seq: number) => void

const loops = new WeakMap<TableSpec, { names: ReadonlyArray<string>; writers: ReadonlyArray<Writer>; append: AppendLoop }>()

/**
 * The append loop of a table, generated once per spec: each value is read by its column's name
 * written into the code, so V8 reads rows of one hidden class with plain property loads instead
 * of a keyed load per value (measured: the keyed loads went megamorphic in bulk loads). A name an
 * object treats specially falls back to the loop over names.
 */
const appendLoopOf = (spec: TableSpec) => {
  const known = loops.get(spec)
  if (known) return known
  const names = spec.columns.map((c) => c.name)
  const writers = spec.columns.map((c) => writerOf(stageType(c.type)))
  const append: AppendLoop = names.includes("__proto__")
    ? (ws, app, rows, seq) => {
        for (let r = 0; r < rows.length; r++) {
          const row = rows[r]!
          for (let c = 0; c < names.length; c++) ws[c]!(app, row[names[c]!])
          app.appendInteger(seq + r)
          app.endRow()
        }
      }
    : (new Function(
        "W",
        "app",
        "rows",
        "seq",
        `${names.map((_, c) => `const w${c} = W[${c}];`).join(" ")}
        for (let r = 0; r < rows.length; r++) {
          const row = rows[r];
          ${names.map((n, c) => `w${c}(app, row[${JSON.stringify(n)}]);`).join(" ")}
          app.appendInteger(seq + r);
          app.endRow();
        }`
      ) as AppendLoop)
  const loop = { names, writers, append }
  loops.set(spec, loop)
  return loop
}

const ignored = () => undefined
/** An appender that takes every value and keeps none: to find where a page's bad value is. */
const DRY_RUN = new Proxy({}, { get: () => ignored }) as unknown as DuckDBAppender

/** The row and column of the first value its writer refuses. */
const badValueAt = (writers: ReadonlyArray<Writer>, rows: ReadonlyArray<Row>, names: ReadonlyArray<string>): readonly [number, number] => {
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < names.length; c++) {
      try {
        writers[c]!(DRY_RUN, rows[r]![names[c]!])
      } catch (e) {
        if (e instanceof BadValue) return [r, c]
        throw e
      }
    }
  }
  return [0, 0]
}

/**
 * A check that no two rows of a group share a primary key (then "last per key" needs no window
 * over the staged rows: measured, a sixth of the landing's CPU), fed page by page: `repeats(rows)`
 * is true once any key came twice. Keys are compared by a 32-bit hash of their text in a table
 * of numbers outside V8's heap (the rows' key strings are not kept alive until the group lands),
 * so two keys with one hash count as a repeat and take the window, as does a doubtful case (1
 * and "1"); a key DuckDB casts (a date, a timestamp) may be equal under two spellings, so such a
 * table always takes it. Only text and integer keys are checked.
 */
export const keyRepeats = (spec: TableSpec): ((rows: ReadonlyArray<Row>) => boolean) => {
  const key = spec.primaryKey
  if (key.length === 0) return () => false
  for (const k of key) {
    const t = parseColumnType(spec.columns.find((c) => c.name === k)?.type ?? "JSON")
    if (t.kind !== "scalar" || !["VARCHAR", "BIGINT", "INTEGER"].includes(t.name)) return () => true
  }
  const seen = new HashSet()
  return (rows) => {
    for (const row of rows) {
      let h = FNV1A_OFFSET
      for (let i = 0; i < key.length; i++) {
        const v = row[key[i]!]
        if (i > 0) h = fnv1aStep(h, "\u0000") // between the parts of a composite key
        h = fnv1aStep(h, typeof v === "string" ? v : String(v))
      }
      if (!seen.add(h | 0)) return true
    }
    return false
  }
}

/** A set of 32-bit hashes, open addressing in a typed array (0 is stored apart). */
class HashSet {
  private slots = new Int32Array(1024)
  private size = 0
  private zero = false
  /** Adds `h`; false when it was there already. */
  add(h: number): boolean {
    if (h === 0) return this.zero ? false : (this.zero = true)
    if (this.size * 2 >= this.slots.length) this.grow()
    const mask = this.slots.length - 1
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = this.slots[i]!
      if (s === h) return false
      if (s === 0) {
        this.slots[i] = h
        this.size++
        return true
      }
    }
  }
  private grow() {
    const old = this.slots
    this.slots = new Int32Array(old.length * 2)
    this.size = 0
    for (const h of old) if (h !== 0) this.add(h)
  }
}

const castOf = (type: ColumnType, col: string) => landingCast(parseColumnType(type), ident(col))

/** The staged rows of `stage` with the table's types, and `_seq`. */
export const castedSelect = (spec: TableSpec, stage: string) =>
  `SELECT ${spec.columns.map((c) => `${castOf(c.type, c.name)} AS ${ident(c.name)}`).join(", ")}, _seq FROM ${stage}`

/** Keeps the last row per primary key of `source` (ordered by `order`). */
export const lastPerKey = (spec: TableSpec, source: string, order: string) =>
  `SELECT * FROM (${source}) QUALIFY row_number() OVER (PARTITION BY ${spec.primaryKey.map(ident).join(", ")} ORDER BY ${order} DESC) = 1`

/** Deletes from `target` the keys present in `source` (a query exposing the key columns). */
export const deleteKeysSql = (spec: TableSpec, target: string, source: string) =>
  `DELETE FROM ${target} USING (SELECT DISTINCT ${spec.primaryKey.map(ident).join(", ")} FROM (${source})) AS _k WHERE ${spec.primaryKey
    .map((k) => `${target}.${ident(k)} = _k.${ident(k)}`)
    .join(" AND ")}`

/**
 * An upsert of the staged rows (the last per key) as one `MERGE`: one join of the page's keys
 * with the target instead of a `DELETE ... USING` and an `INSERT` (measured: a fifth to a third
 * less landing time per page, one statement less per table; docs/BENCHMARKS.md).
 */
const mergeSql = (spec: TableSpec, staged: string) => {
  const target = ident(spec.name)
  const keys = new Set(spec.primaryKey)
  const cols = spec.columns.map((c) => ident(c.name))
  const rest = spec.columns.filter((c) => !keys.has(c.name)).map((c) => ident(c.name))
  return `MERGE INTO ${target} USING (${staged}) AS _s
    ON ${spec.primaryKey.map((k) => `${target}.${ident(k)} = _s.${ident(k)}`).join(" AND ")}
    WHEN MATCHED THEN ${rest.length > 0 ? `UPDATE SET ${rest.map((c) => `${c} = _s.${c}`).join(", ")}` : "DO NOTHING"}
    WHEN NOT MATCHED THEN INSERT (${cols.join(", ")}) VALUES (${cols.map((c) => `_s.${c}`).join(", ")})`
}

/**
 * The statements landing the rows staged in `staged.name` in the target, by disposition (run in
 * order). `extractedAt` stamps append rows; `validFrom` is when new versions of a history table
 * begin; `staged.uniqueKeys`: no key came twice (`keyRepeats`).
 */
export const landSql = (
  spec: TableSpec,
  ctx: { runId: string; pipeline: string; extractedAt: string; validFrom: string },
  staged: { readonly name: string; readonly uniqueKeys: boolean }
): ReadonlyArray<string> => {
  const cols = spec.columns.map((c) => ident(c.name)).join(", ")
  const select = castedSelect(spec, staged.name)
  // the staged rows, the last per key (all of them when no key came twice)
  const last = staged.uniqueKeys ? select : lastPerKey(spec, select, "_seq")
  switch (spec.disposition) {
    case "merge":
      return spec.primaryKey.length > 0
        ? [mergeSql(spec, last)]
        : [deleteKeysSql(spec, ident(spec.name), select), `INSERT INTO ${ident(spec.name)} (${cols}) SELECT ${cols} FROM (${last})`]
    case "append":
      return [
        `INSERT INTO ${ident(spec.name)} (${cols}, _run_id, _extracted_at)
        SELECT ${cols}, ${literal(ctx.runId)}, CAST(${literal(ctx.extractedAt)} AS TIMESTAMPTZ) FROM (${select}) ORDER BY _seq`
      ]
    case "history":
      return historyLandSql(spec, last, ctx.validFrom)
    case "replace":
      return [
        `INSERT INTO ${ident(replaceTableOf(spec.name))} (${cols}, _pipeline, _run_id, _ord)
        SELECT ${cols}, ${literal(ctx.pipeline)}, ${literal(ctx.runId)},
          (SELECT coalesce(max(_ord), 0) + 1 FROM ${ident(replaceTableOf(spec.name))}) + _seq
        FROM (${select})`
      ]
  }
}
