/**
 * Parquet export: one folder per table, `<out>/parquet/<table>/`, written by DuckDB's COPY.
 * Tables whose spec has `partitionBy` are hive-partitioned (`country=ES/data_0.parquet`; the
 * partition columns live in the folder names, not in the files). `_extracted_date` partitions an
 * append table by the UTC day of `_extracted_at`. Each folder is replaced atomically.
 *
 * A `history` table is exported as its current rows (the `<table>_current` view: one row per key,
 * as a merge table, without `_valid_to` and `_is_current`) under the table's own name, so readers
 * of the folder see what they saw before the table kept history; with `history: true` its every
 * version is written too, under `<table>_history`.
 */
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import type { TableSpec } from "../normalize/Table.js"
import { replaceAtomically } from "./AtomicReplace.js"
import { ident, literal, rowsOf } from "../load/Database.js"
import { currentSource } from "../load/HistoryTable.js"
import { EXTRACTED_DATE } from "../load/TableDdl.js"
import type { Warehouse } from "../load/Warehouse.js"
import { suggestion } from "../config/Suggest.js"
import { InvalidInput } from "../shared/InvalidInput.js"

export interface ExportOptions {
  /** Output root; Parquet goes under `<outDir>/parquet`, Arrow under `<outDir>/arrow`. */
  readonly outDir: string
  /** Tables to export; default every declared table. */
  readonly tables?: ReadonlyArray<string>
  /** Also write every version of each history table, as `<table>_history`. Default false. */
  readonly history?: boolean
}

/** One exported dataset: a file or folder name, the query it is written from, its partitions. */
export interface Dataset {
  readonly name: string
  readonly select: string
  readonly partitionBy: ReadonlyArray<string>
}

export interface ExportedTable {
  readonly table: string
  readonly path: string
  readonly rows: number
}

type Source = Pick<Warehouse, "tables" | "withConnection">

/** The specs of the named tables (default all declared); an unknown name is bad input, with the closest one. */
export const selectedTables = (wh: Source, tables: ReadonlyArray<string> | undefined) => {
  const all = wh.tables()
  if (tables === undefined) return Effect.succeed(all)
  const names = all.map((s) => s.name)
  return Effect.forEach(tables, (t) => {
    const spec = all.find((s) => s.name === t)
    return spec
      ? Effect.succeed(spec)
      : Effect.fail(
          new InvalidInput({
            field: "export",
            detail: `no table ${t} is declared in this warehouse${suggestion(t, names, { listAllowed: false })}; tables: ${names.join(", ") || "none"}`
          })
        )
  })
}

/**
 * What a table is exported as: its rows (with `_extracted_date` when it partitions by it), or for
 * a history table its current rows, and with `history` its every version as `<table>_history`.
 */
export const datasetsOf = (spec: TableSpec, history = false): ReadonlyArray<Dataset> => {
  const partitionBy = spec.partitionBy ?? []
  if (spec.disposition === "history") {
    const current = { name: spec.name, select: `SELECT * FROM ${currentSource(spec)}`, partitionBy }
    return history ? [current, { name: `${spec.name}_history`, select: `SELECT * FROM ${ident(spec.name)}`, partitionBy }] : [current]
  }
  const select = partitionBy.includes(EXTRACTED_DATE)
    ? `SELECT *, CAST(_extracted_at AS DATE) AS ${EXTRACTED_DATE} FROM ${ident(spec.name)}`
    : `SELECT * FROM ${ident(spec.name)}`
  return [{ name: spec.name, select, partitionBy }]
}

export const exportTableParquet = (wh: Source, spec: TableSpec, outDir: string, history = false) =>
  Effect.forEach(datasetsOf(spec, history), (dataset) => exportDatasetParquet(wh, dataset, outDir))

const exportDatasetParquet = (wh: Source, dataset: Dataset, outDir: string) => {
  const target = nodePath.join(outDir, "parquet", dataset.name)
  return replaceAtomically(target, (tmp) =>
    wh.withConnection(`Cannot export ${dataset.name} to Parquet`, async (conn) => {
      const partitions = dataset.partitionBy
      const count = Number((await rowsOf(conn, `SELECT count(*) AS n FROM (${dataset.select})`))[0]!.n)
      if (partitions.length > 0) {
        await conn.run(`COPY (${dataset.select}) TO ${literal(tmp)} (FORMAT parquet, PARTITION_BY (${partitions.map(ident).join(", ")}))`)
        // An empty table writes no partition folder; keep an empty folder so the table's path exists.
        await fs.mkdir(tmp, { recursive: true })
      } else {
        await fs.mkdir(tmp, { recursive: true })
        await conn.run(`COPY (${dataset.select}) TO ${literal(nodePath.join(tmp, "data.parquet"))} (FORMAT parquet)`)
      }
      return { table: dataset.name, path: target, rows: count } satisfies ExportedTable
    })
  ).pipe(Effect.withSpan("ParquetExport.table", { attributes: { table: dataset.name } }))
}

/** Exports the tables to Parquet; each table's folder is replaced only once its new files are complete. */
export const exportParquet = (wh: Source, options: ExportOptions) =>
  Effect.flatMap(
    selectedTables(wh, options.tables),
    Effect.forEach((spec) => exportTableParquet(wh, spec, options.outDir, options.history ?? false))
  ).pipe(Effect.map((lists) => lists.flat()))
