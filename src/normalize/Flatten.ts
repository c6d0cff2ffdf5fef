/**
 * Declares a table and its row mapping in one place: each column names its type and, when it is
 * not the record's field of the same name, how to read it. The column list is compiled once;
 * mapping a record is a tight loop over it (this runs for every record of a bulk load).
 */
import { type ParsedType, parseColumnType } from "./ColumnTypes.js"
import type { ColumnTypesOf, TypedTableSpec } from "./RowType.js"
import type { ColumnType, Disposition, Row, TableSpec } from "./Table.js"
import { extra } from "./Values.js"
import { stringifyJson } from "../shared/ExactJson.js"

type Value = string | number | bigint | boolean | null

/** A column: its type, or its type and a reader. `!` after the type marks NOT NULL. */
export type ColumnDef<R, C> = ColumnType | `${ColumnType}!` | readonly [ColumnType | `${ColumnType}!`, (record: R, ctx: C) => unknown]

export interface FlatTable<R, C, S extends TableSpec = TableSpec> {
  /** The declaration; typed (`TypedTableSpec`) when made with `flatTable.of`. */
  readonly spec: S
  /** The row of one record. */
  readonly row: (record: R, ctx: C) => Row
}

type Convert = (v: unknown) => Value

const asJson: Convert = (v) => (v === undefined || v === null ? null : stringifyJson(v))
const asDate: Convert = (v) => (typeof v === "string" ? v.slice(0, 10) : null)
const asBoolean: Convert = (v) => (typeof v === "boolean" ? v : null)
const asNumber: Convert = (v) => (typeof v === "number" ? (Number.isFinite(v) ? v : null) : typeof v === "bigint" ? v : null)
const asText: Convert = (v) =>
  v === undefined || v === null ? null : typeof v === "string" ? v : typeof v === "object" ? stringifyJson(v) : String(v)

/** The row value of a decoded field, by column type (chosen once per column). */
const converterOf = (t: ParsedType): Convert => {
  if (t.kind === "decimal") return asNumber
  if (t.kind !== "scalar") return asJson // nested values are staged as JSON text and shaped on landing
  switch (t.name) {
    case "JSON":
      return asJson
    case "DATE":
      return asDate
    case "BOOLEAN":
      return asBoolean
    case "DOUBLE":
    case "BIGINT":
    case "INTEGER":
      return asNumber
    default:
      return asText
  }
}

/**
 * A row built as one object literal with every column in place: one allocation and one hidden
 * class per table, where adding the columns one by one grew each row's property store several
 * times (measured: a fifth of a bulk load's garbage). Generated once per table; column names are
 * written as JSON strings, and a name an object literal would treat specially falls back to a loop.
 */
export const rowShape = (names: ReadonlyArray<string>): ((values: ReadonlyArray<Value>) => Row) => {
  if (names.includes("__proto__")) {
    return (values) => {
      const out: Row = Object.create(null) as Row
      for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]!
      return out
    }
  }
  const fields = names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(", ")
  return new Function("v", `return { ${fields} }`) as (values: ReadonlyArray<Value>) => Row
}

export interface FlatTableOptions {
  readonly primaryKey?: ReadonlyArray<string>
  readonly disposition: Disposition
  readonly partitionBy?: ReadonlyArray<string>
  /** Known field names of the record (its schema's fields): the rest goes to `extra`. */
  readonly extraOf?: ReadonlyArray<string>
  /** Columns whose change alone is no new version of a `history` table (`ColumnSpec.volatile`). */
  readonly volatile?: ReadonlyArray<string>
}

const makeFlatTable = <R, C = unknown>(
  name: string,
  columns: Record<string, ColumnDef<R, C>>,
  options: FlatTableOptions
): FlatTable<R, C> => {
  const pk = new Set(options.primaryKey ?? [])
  const volatile = new Set(options.volatile ?? [])
  for (const v of volatile) if (!(v in columns)) throw new Error(`flatTable ${name}: volatile column ${v} is not a column`)
  const compiled = Object.entries(columns).map(([col, def]) => {
    const [typeText, read] = typeof def === "string" ? [def, undefined] : [def[0], def[1]]
    const type = typeText.replace(/!$/, "") as ColumnType
    return { col, type, read, convert: converterOf(parseColumnType(type)), notNull: typeText.endsWith("!") || pk.has(col) }
  })
  const known = options.extraOf ? new Set([...options.extraOf, ...Object.keys(columns)]) : undefined
  const spec: TableSpec = {
    name,
    columns: [
      ...compiled.map((c) => ({ name: c.col, type: c.type, nullable: !c.notNull, ...(volatile.has(c.col) ? { volatile: true } : {}) })),
      ...(known ? [{ name: "extra", type: "JSON" as const, nullable: true }] : [])
    ],
    primaryKey: options.primaryKey ?? [],
    disposition: options.disposition,
    ...(options.partitionBy ? { partitionBy: options.partitionBy } : {})
  }
  const width = compiled.length
  const shape = rowShape(spec.columns.map((c) => c.name))
  const values: Array<Value> = new Array(spec.columns.length).fill(null)
  const row = (record: R, ctx: C): Row => {
    for (let i = 0; i < width; i++) {
      const c = compiled[i]!
      const v = c.read ? c.read(record, ctx) : (record as Record<string, unknown>)[c.col]
      values[i] = v === undefined || v === null ? null : c.convert(v)
    }
    if (known) values[width] = extra(record as object, known)
    return shape(values)
  }
  return { spec, row }
}

/** The typed spec `flatTable.of` returns for a name, columns and options. */
export type TypedSpecOf<N extends string, Cols, O extends FlatTableOptions> = TypedTableSpec<
  N,
  ColumnTypesOf<
    Cols,
    O extends { readonly primaryKey: ReadonlyArray<infer K extends string> } ? (string extends K ? never : K) : never,
    O extends { readonly extraOf: ReadonlyArray<string> } ? true : false
  >,
  O["disposition"]
>

/** `flatTable` whose spec keeps its name and column types as types (the library derives row types from them). */
const typedFlatTable =
  <R, C = unknown>() =>
  <const N extends string, const Cols extends Record<string, ColumnDef<R, C>>, const O extends FlatTableOptions>(
    name: N,
    columns: Cols,
    options: O
  ): FlatTable<R, C, TypedSpecOf<N, Cols, O>> =>
    makeFlatTable<R, C>(name, columns, options) as FlatTable<R, C, TypedSpecOf<N, Cols, O>>

/**
 * `flatTable("plots", { id: "VARCHAR", lat: ["DOUBLE", (p) => p.coordinates?.lat] }, {...})`.
 * With `extraOf`, an `extra` JSON column holds the record's fields no column or known key names.
 *
 * `flatTable.of<Record, Ctx>()("plots", {...}, {...})` is the same table with its spec typed, so
 * `extract(...).rows("plots")` is typed by its columns (TypeScript cannot infer the columns when
 * the record type is given, hence the extra call).
 */
export const flatTable: {
  <R, C = unknown>(name: string, columns: Record<string, ColumnDef<R, C>>, options: FlatTableOptions): FlatTable<R, C>
  readonly of: typeof typedFlatTable
} = Object.assign(makeFlatTable, { of: typedFlatTable })
