/**
 * Table declarations: what a pipeline lands, by which keys and how rows are written.
 * The loader creates the tables from these; the exporter partitions Parquet by `partitionBy`.
 */

export type ColumnType = "VARCHAR" | "BIGINT" | "INTEGER" | "DOUBLE" | "BOOLEAN" | "DATE" | "TIMESTAMP" | "JSON"

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

/** A row: JSON columns as strings, DATE as `YYYY-MM-DD`, TIMESTAMP as an ISO string. */
export type Row = Record<string, string | number | bigint | boolean | null>

/** Rows of one record (or one page) by table name. */
export type Rows = Record<string, Array<Row>>
