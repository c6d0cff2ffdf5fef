/**
 * Row types derived from table declarations, at the type level only: a `flatTable` declared with
 * `flatTable.of<Record, Ctx>()(name, columns, options)` keeps its name, column names, column
 * types, key and disposition as literal types, and `RowOf` turns them into the TypeScript type
 * of a row as the library reads it back (`Extraction.rows()`).
 *
 * The mapping works on the column type strings, so a new DuckDB type needs no change here to
 * compile: a type it does not know reads as `unknown`.
 */
import type { Disposition, TableSpec } from "./Table.js"

/** How BIGINT values come back: `number` when exact and `bigint` beyond 2^53 (`auto`), or always `bigint` (`keep`). */
export type BigintMode = "auto" | "keep"

/** A table spec that remembers its name and columns as types (see `flatTable.of`). */
export interface TypedTableSpec<N extends string, Cols extends Record<string, string>, D extends Disposition> extends TableSpec {
  readonly name: N
  readonly disposition: D
  /** Type-level only, never present at run time: the columns as `type` or `type!` (NOT NULL). */
  readonly "~columns"?: Cols
}

type Trim<S extends string> = S extends ` ${infer T}` ? Trim<T> : S extends `${infer T} ` ? Trim<T> : S

/**
 * The value of a column of DuckDB type `T`, as `rowsOfArrow` gives it: integers and floating or
 * decimal numbers as `number` (BIGINT per `B`), DATE and timestamps as `Date`, JSON as its text.
 * Lists, structs, maps and any type not named here: `unknown`.
 */
export type ValueOf<T extends string, B extends BigintMode = "auto"> =
  Uppercase<Trim<T>> extends infer U extends string
    ? U extends `${string}[]` | `${string}[${number}]` | `STRUCT${string}` | `MAP${string}` | `UNION${string}`
      ? unknown
      : U extends "VARCHAR" | "TEXT" | "STRING" | "UUID" | "JSON" | "ENUM" | `VARCHAR(${string})`
        ? string
        : U extends "BIGINT" | "INT8" | "LONG"
          ? B extends "keep"
            ? bigint
            : number | bigint
          : U extends
                | "INTEGER"
                | "INT"
                | "INT4"
                | "SMALLINT"
                | "TINYINT"
                | "UINTEGER"
                | "USMALLINT"
                | "UTINYINT"
                | "DOUBLE"
                | "FLOAT"
                | "REAL"
                | "HUGEINT"
                | "UHUGEINT"
                | "UBIGINT"
                | `DECIMAL${string}`
                | `NUMERIC${string}`
            ? number
            : U extends "BOOLEAN" | "BOOL"
              ? boolean
              : U extends "DATE" | `TIMESTAMP${string}` | "DATETIME"
                ? Date
                : unknown
    : unknown

type Simplify<A> = { [K in keyof A]: A[K] } & {}

/** Columns a reader sees besides the declared ones: the `_current` view of a history table, an append table's run columns. */
export type SystemColumns<D extends Disposition> = D extends "history"
  ? { readonly _valid_from: "TIMESTAMP!"; readonly _content_hash: "VARCHAR!" }
  : D extends "append"
    ? { readonly _run_id: "VARCHAR"; readonly _extracted_at: "TIMESTAMP" }
    : {}

/** A row of columns `Cols` (`type` nullable, `type!` not null). */
export type RowOfColumns<Cols, B extends BigintMode = "auto"> = Simplify<{
  readonly [K in keyof Cols & string]: Cols[K] extends `${infer T}!`
    ? ValueOf<T, B>
    : Cols[K] extends string
      ? ValueOf<Cols[K], B> | null
      : unknown
}>

/** A row of a table spec as read back: typed for a `TypedTableSpec`, else `Record<string, unknown>`. */
export type RowOf<S, B extends BigintMode = "auto"> =
  S extends TypedTableSpec<string, infer Cols, infer D> ? RowOfColumns<Cols & SystemColumns<D>, B> : Record<string, unknown>

/** Table name -> row, for a list of specs (any untyped spec adds a `string` index of untyped rows). */
export type RowsOfTables<T extends ReadonlyArray<TableSpec>, B extends BigintMode = "auto"> = {
  readonly [S in T[number] as S["name"]]: RowOf<S, B>
}

type Declared<D> = D extends readonly [infer T extends string, unknown] ? T : D extends string ? D : never

/** The column types a typed `flatTable` records: declared type, `!` when NOT NULL (by `!` or the key). */
export type ColumnTypesOf<Cols, Pk extends string, Extra extends boolean> = {
  readonly [K in keyof Cols & string]: Declared<Cols[K]> extends `${string}!`
    ? Declared<Cols[K]>
    : K extends Pk
      ? `${Declared<Cols[K]>}!`
      : Declared<Cols[K]>
} & (Extra extends true ? { readonly extra: "JSON" } : {})
