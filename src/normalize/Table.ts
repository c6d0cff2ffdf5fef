/**
 * Table declarations: what a pipeline lands, by which keys and how rows are written.
 * The loader creates the tables from these; the exporter partitions Parquet by `partitionBy`.
 */

import type { ScalarName } from "./ColumnTypes.js"

/**
 * A column's DuckDB type (see `ColumnTypes.ts` and docs/TYPES.md): a scalar, `DECIMAL(p,s)`
 * for money, `TIMESTAMPTZ` for instants (UTC), `JSON` for open payloads, or a nested type
 * (`T[]`, `STRUCT(name T, ...)`, `MAP(K, V)`) for records the spec shows.
 */
export type ColumnType = ScalarName | `DECIMAL(${number},${number})` | `${string}[]` | `STRUCT(${string})` | `MAP(${string})`

export interface ColumnSpec {
  readonly name: string
  readonly type: ColumnType
  readonly nullable?: boolean
  /**
   * A change of this column alone is not a new version of a `history` table: it is left out of
   * `_content_hash` (values that tick daily such as days on market, the query a record was found
   * by). A new version still stores its value; an unchanged record keeps the value it had.
   */
  readonly volatile?: boolean
}

/**
 * - `merge`: upsert by primary key (a rerun updates rows in place);
 * - `append`: every row added with `_extracted_at` (history, e.g. time-series snapshots);
 * - `replace`: the run's rows replace the table when the run finishes (dimension tables);
 * - `history`: every version of a record by primary key (a slowly changing dimension of type 2:
 *   `_valid_from`, `_valid_to`, `_is_current`, `_content_hash`; the view `<name>_current` holds
 *   one row per key). See `load/HistoryTable.ts`.
 */
export type Disposition = "merge" | "append" | "replace" | "history"

export interface TableSpec {
  readonly name: string
  readonly columns: ReadonlyArray<ColumnSpec>
  readonly primaryKey: ReadonlyArray<string>
  readonly disposition: Disposition
  /** Hive partitions of the Parquet export (e.g. country). */
  readonly partitionBy?: ReadonlyArray<string>
}

/**
 * A row: JSON and nested columns (lists, structs, maps) as JSON text, DATE as `YYYY-MM-DD`,
 * TIMESTAMP(TZ) as an ISO string, DECIMAL as a number (rounded to its scale on landing).
 */
export type Row = Record<string, string | number | bigint | boolean | null>

/** Rows of one record (or one page) by table name. */
export type Rows = Record<string, Array<Row>>
