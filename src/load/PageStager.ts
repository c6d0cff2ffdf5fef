/**
 * The bulk path of a page: rows go through DuckDB's appender into a connection-local staging
 * table, then one INSERT ... SELECT lands them in the target (upsert, append or the replace side
 * table). Per value the work is one type check and one native append; DATE, TIMESTAMP(TZ), JSON
 * and nested values (as JSON text) are staged as text, DECIMAL as DOUBLE, and cast by DuckDB in
 * the INSERT (`normalize/ColumnTypes.ts`), so a bad value fails the statement and with it the
 * page's transaction.
 *
 * Assumed: a row's keys that its table spec does not declare are ignored (the normalizer keeps
 * unknown fields in an `extra` JSON column); a declared column missing from a row is NULL.
 * Assumed: `_extracted_at` of append rows is the page's commit time (UTC); the page contract
 * carries no extraction time of its own.
 */
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api"
import { landingCast, parseColumnType, type StageType, stageTypeOf } from "../normalize/ColumnTypes.js"
import type { ColumnType, Row, TableSpec } from "../normalize/Table.js"
import { ident, literal } from "./Database.js"
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

export const stageOf = (table: string) => `_stage_${table}`

/** (Re)creates the connection-local staging table of a spec. */
export const createStage = (conn: DuckDBConnection, spec: TableSpec) =>
  conn.run(
    `CREATE OR REPLACE TEMP TABLE ${ident(stageOf(spec.name))} (${[
      ...spec.columns.map((c) => `${ident(c.name)} ${stageType(c.type)}`),
      "_seq INTEGER"
    ].join(", ")})`
  )

/**
 * Appends `rows` to the staging table (created afresh for each group commit; `used`: it already
 * holds another run's rows of this commit, deleted first); `_seq` keeps their order for "last wins".
 */
export const stageRows = async (
  conn: DuckDBConnection,
  spec: TableSpec,
  rows: ReadonlyArray<Row>,
  used: boolean
): Promise<{ readonly uniqueKeys: boolean }> => {
  if (used) await conn.run(`DELETE FROM temp.main.${ident(stageOf(spec.name))}`)
  if (rows.length === 0) return { uniqueKeys: true }
  const uniqueKeys = keysUnique(spec, rows)
  const { names, writers, append } = appendLoopOf(spec)
  const app = await conn.createAppender(stageOf(spec.name), "main", "temp")
  try {
    append(writers, app, rows)
    app.flushSync()
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
  } finally {
    app.closeSync()
  }
  return { uniqueKeys }
}

type AppendLoop = (writers: ReadonlyArray<Writer>, app: DuckDBAppender, rows: ReadonlyArray<Row>) => void

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
    ? (ws, app, rows) => {
        for (let r = 0; r < rows.length; r++) {
          const row = rows[r]!
          for (let c = 0; c < names.length; c++) ws[c]!(app, row[names[c]!])
          app.appendInteger(r)
          app.endRow()
        }
      }
    : (new Function(
        "W",
        "app",
        "rows",
        `${names.map((_, c) => `const w${c} = W[${c}];`).join(" ")}
        for (let r = 0; r < rows.length; r++) {
          const row = rows[r];
          ${names.map((n, c) => `w${c}(app, row[${JSON.stringify(n)}]);`).join(" ")}
          app.appendInteger(r);
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
 * Whether no two rows share a primary key (then "last per key" needs no window over the staged
 * rows: measured, a sixth of the landing's CPU). Only text and integer keys are checked here, by
 * their text, so a doubtful case (1 and "1") counts as a duplicate and takes the window.
 */
const keysUnique = (spec: TableSpec, rows: ReadonlyArray<Row>): boolean => {
  const key = spec.primaryKey
  if (key.length === 0) return true
  // a key that DuckDB casts (a date, a timestamp) may be equal under two spellings
  for (const k of key) {
    const t = parseColumnType(spec.columns.find((c) => c.name === k)?.type ?? "JSON")
    if (t.kind !== "scalar" || !["VARCHAR", "BIGINT", "INTEGER"].includes(t.name)) return false
  }
  const seen = new Set<unknown>()
  if (key.length === 1) {
    const k = key[0]!
    for (const row of rows) {
      const v = row[k]
      const norm = typeof v === "number" || typeof v === "bigint" ? String(v) : v
      if (seen.has(norm)) return false
      seen.add(norm)
    }
    return true
  }
  for (const row of rows) {
    let v = String(row[key[0]!])
    for (let i = 1; i < key.length; i++) v += `\u0000${String(row[key[i]!])}`
    if (seen.has(v)) return false
    seen.add(v)
  }
  return true
}

const castOf = (type: ColumnType, col: string) => landingCast(parseColumnType(type), ident(col))

const castedSelect = (spec: TableSpec) =>
  `SELECT ${spec.columns.map((c) => `${castOf(c.type, c.name)} AS ${ident(c.name)}`).join(", ")}, _seq FROM temp.main.${ident(stageOf(spec.name))}`

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
 * The statements landing the staged rows in the target, by disposition (run in order).
 * `extractedAt` stamps append rows; `validFrom` is when new versions of a history table begin.
 */
export const landSql = (
  spec: TableSpec,
  ctx: { runId: string; pipeline: string; extractedAt: string; validFrom: string },
  uniqueKeys = false
): ReadonlyArray<string> => {
  const cols = spec.columns.map((c) => ident(c.name)).join(", ")
  // the staged rows, the last per key (all of them when `stageRows` found no key twice)
  const last = uniqueKeys ? castedSelect(spec) : lastPerKey(spec, castedSelect(spec), "_seq")
  switch (spec.disposition) {
    case "merge":
      return spec.primaryKey.length > 0
        ? [mergeSql(spec, last)]
        : [
            deleteKeysSql(spec, ident(spec.name), castedSelect(spec)),
            `INSERT INTO ${ident(spec.name)} (${cols}) SELECT ${cols} FROM (${last})`
          ]
    case "append":
      return [
        `INSERT INTO ${ident(spec.name)} (${cols}, _run_id, _extracted_at)
        SELECT ${cols}, ${literal(ctx.runId)}, CAST(${literal(ctx.extractedAt)} AS TIMESTAMPTZ) FROM (${castedSelect(spec)}) ORDER BY _seq`
      ]
    case "history":
      return historyLandSql(spec, last, ctx.validFrom)
    case "replace":
      return [
        `INSERT INTO ${ident(replaceTableOf(spec.name))} (${cols}, _pipeline, _run_id, _ord)
        SELECT ${cols}, ${literal(ctx.pipeline)}, ${literal(ctx.runId)},
          (SELECT coalesce(max(_ord), 0) + 1 FROM ${ident(replaceTableOf(spec.name))}) + _seq
        FROM (${castedSelect(spec)})`
      ]
  }
}
