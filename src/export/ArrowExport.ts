/**
 * Arrow: query results as apache-arrow `Table`s (for the library API) and Arrow IPC files
 * (`<out>/arrow/<table>.arrow`, the IPC file format, replaced atomically).
 *
 * The bindings expose no Arrow interface, so columns are built in JS, one DuckDB chunk (2048
 * rows) at a time, each chunk becoming a record batch: integers as Int32/Int64, floating numbers
 * as Float64, DECIMAL as Decimal128, BOOLEAN as Bool, DATE as DateDay, timestamps as microsecond
 * Timestamps (TIMESTAMPTZ with time zone `UTC`), text as Utf8, JSON as Utf8 marked `arrow.json`,
 * LIST / STRUCT / MAP as List / Struct / Map (`ArrowTypes.ts`); any other type is rendered as text.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBType, DuckDBVector } from "@duckdb/node-api"
import * as Arrow from "apache-arrow"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { arrowTypeOf, decimalWords, isJsonType, JSON_EXTENSION, jsValueOf } from "./ArrowTypes.js"
import { replaceAtomically } from "./AtomicReplace.js"
import { datasetsOf, type ExportedTable, type ExportOptions, selectedTables } from "./ParquetExport.js"
import type { Warehouse } from "../load/Warehouse.js"

type Source = Pick<Warehouse, "tables" | "withConnection">

interface ColumnPlan {
  readonly type: Arrow.DataType
  readonly build: (vector: DuckDBVector, length: number) => Arrow.Data
}

/** Fixed-width column: values into a typed array, nulls into a validity bitmap. */
const fixed = <T extends Arrow.DataType>(
  type: T,
  make: (n: number) => Int32Array | BigInt64Array | Float64Array,
  read: (v: any) => number | bigint
): ColumnPlan => ({
  type,
  build: (vector, length) => {
    const data = make(length)
    const validity = new Uint8Array((length + 7) >> 3)
    let nulls = 0
    for (let i = 0; i < length; i++) {
      const v = vector.getItem(i)
      if (v === null) {
        nulls++
      } else {
        ;(data as any)[i] = read(v)
        validity[i >> 3]! |= 1 << (i & 7)
      }
    }
    return Arrow.makeData({ type, length, nullCount: nulls, nullBitmap: nulls > 0 ? validity : null, data } as any)
  }
})

/** Any other column through an apache-arrow builder. */
const built = <T extends Arrow.DataType>(type: T, read: (v: any) => unknown): ColumnPlan => ({
  type,
  build: (vector, length) => {
    const values = new Array(length)
    for (let i = 0; i < length; i++) {
      const v = vector.getItem(i)
      values[i] = v === null ? null : read(v)
    }
    return Arrow.vectorFromArray(values, type).data[0]!
  }
})

/** DECIMAL: the unscaled values as 128-bit words, nulls into a validity bitmap. */
const decimal = (type: Arrow.Decimal): ColumnPlan => {
  return {
    type,
    build: (vector, length) => {
      const data = new Uint32Array(length * 4)
      const validity = new Uint8Array((length + 7) >> 3)
      let nulls = 0
      for (let i = 0; i < length; i++) {
        const v = vector.getItem(i) as { value: bigint } | null
        if (v === null) nulls++
        else {
          decimalWords(v.value, data, i * 4)
          validity[i >> 3]! |= 1 << (i & 7)
        }
      }
      return Arrow.makeData({ type, length, nullCount: nulls, nullBitmap: nulls > 0 ? validity : null, data } as any)
    }
  }
}

/**
 * How a column is built: its Arrow type is the one `arrowTypeOf` gives (`ArrowTypes.ts`, the one
 * mapping of types); fixed-width values go straight into typed arrays, the rest (booleans, text,
 * nested values) through apache-arrow's builders with `jsValueOf`.
 */
const planOf = (t: DuckDBType): ColumnPlan => {
  const type = arrowTypeOf(t)
  if (Arrow.DataType.isInt(type)) {
    return type.bitWidth === 64
      ? fixed(
          type,
          (n) => new BigInt64Array(n),
          (v: number | bigint) => BigInt(v)
        )
      : fixed(
          type,
          (n) => new Int32Array(n),
          (v: number) => v
        )
  }
  // HUGEINT sums of BIGINT among them: numbers, not text, for notebooks (exact up to 2^53)
  if (Arrow.DataType.isFloat(type)) {
    return fixed(
      type,
      (n) => new Float64Array(n),
      (v: number | bigint) => Number(v)
    )
  }
  if (Arrow.DataType.isDecimal(type)) return decimal(type)
  if (Arrow.DataType.isDate(type)) {
    return fixed(
      type,
      (n) => new Int32Array(n),
      (v: { days: number }) => v.days
    )
  }
  if (Arrow.DataType.isTimestamp(type)) {
    return fixed(
      type,
      (n) => new BigInt64Array(n),
      (v: { micros: bigint }) => v.micros
    )
  }
  return built(type, jsValueOf(t))
}

/** Runs `sql` and builds an Arrow table from its result, streaming chunk by chunk. */
export const queryArrowWith = async (conn: DuckDBConnection, sql: string): Promise<Arrow.Table> => {
  const result = await conn.stream(sql)
  const names = result.deduplicatedColumnNames()
  const types = names.map((_, i) => result.columnType(i))
  const plans = types.map(planOf)
  const schema = new Arrow.Schema(
    names.map((n, i) => new Arrow.Field(n, plans[i]!.type, true, isJsonType(types[i]!) ? new Map(JSON_EXTENSION) : null))
  )
  const batches: Array<Arrow.RecordBatch> = []
  for (;;) {
    const chunk: DuckDBDataChunk | null = await result.fetchChunk()
    if (chunk === null || chunk.rowCount === 0) break
    const length = chunk.rowCount
    const children = plans.map((p, i) => p.build(chunk.getColumnVector(i), length))
    batches.push(new Arrow.RecordBatch(schema, Arrow.makeData({ type: new Arrow.Struct(schema.fields), length, children, nullCount: 0 })))
  }
  return batches.length > 0 ? new Arrow.Table(batches) : new Arrow.Table(schema)
}

/** A query's result as an apache-arrow `Table`. */
export const queryArrow = (wh: Pick<Warehouse, "withConnection">, sql: string) =>
  wh.withConnection("Arrow query failed", (conn) => queryArrowWith(conn, sql)).pipe(Effect.withSpan("ArrowExport.queryArrow"))

/** Writes a query's result as an Arrow IPC file (atomically). */
export const writeArrowFile = (wh: Pick<Warehouse, "withConnection">, sql: string, path: string) =>
  replaceAtomically(path, (tmp) =>
    wh.withConnection(`Cannot write ${path}`, async (conn) => {
      const table = await queryArrowWith(conn, sql)
      await fs.writeFile(tmp, Arrow.tableToIPC(table, "file"))
      return table.numRows
    })
  )

/** Exports each table as `<outDir>/arrow/<table>.arrow` (history tables: see `datasetsOf`). */
export const exportArrow = (wh: Source, options: ExportOptions) =>
  Effect.flatMap(
    selectedTables(wh, options.tables),
    Effect.forEach((spec) =>
      Effect.forEach(datasetsOf(spec, options.history ?? false), (dataset) => {
        const path = nodePath.join(options.outDir, "arrow", `${dataset.name}.arrow`)
        return writeArrowFile(wh, dataset.select, path).pipe(Effect.map((rows): ExportedTable => ({ table: dataset.name, path, rows })))
      })
    )
  ).pipe(Effect.map((lists) => lists.flat()))
