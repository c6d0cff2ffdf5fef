/**
 * Table declarations: what a pipeline lands, by which keys and how rows are written.
 * The loader creates the tables from these; the exporter partitions Parquet by `partitionBy`.
 */

export type ColumnType = "VARCHAR" | "BIGINT" | "INTEGER" | "DOUBLE" | "BOOLEAN" | "DATE" | "TIMESTAMP" | "JSON"

export interface ColumnSpec {
  readonly name: string
  readonly type: ColumnType
  readonly nullable?: boolean
}

/**
 * - `merge`: upsert by primary key (a rerun updates rows in place);
 * - `append`: every row added with `_extracted_at` (history, e.g. time-series snapshots);
 * - `replace`: the run's rows replace the table when the run finishes (dimension tables).
 */
export type Disposition = "merge" | "append" | "replace"

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
