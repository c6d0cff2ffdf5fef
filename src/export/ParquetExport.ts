/**
 * Parquet export: one folder per table, `<out>/parquet/<table>/`, written by DuckDB's COPY.
 * Tables whose spec has `partitionBy` are hive-partitioned (`country=ES/data_0.parquet`; the
 * partition columns live in the folder names, not in the files). `_extracted_date` partitions an
 * append table by the UTC day of `_extracted_at`. Each folder is replaced atomically.
 */
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import type { TableSpec } from "../normalize/Table.js"
import { replaceAtomically } from "./AtomicReplace.js"
import { ident, literal, rowsOf } from "../load/Database.js"
import { EXTRACTED_DATE } from "../load/TableDdl.js"
import type { Warehouse } from "../load/Warehouse.js"
import { WarehouseError } from "../load/WarehouseError.js"

export interface ExportOptions {
  /** Output root; Parquet goes under `<outDir>/parquet`, Arrow under `<outDir>/arrow`. */
  readonly outDir: string
  /** Tables to export; default every declared table. */
  readonly tables?: ReadonlyArray<string>
}

export interface ExportedTable {
  readonly table: string
  readonly path: string
  readonly rows: number
}

type Source = Pick<Warehouse, "tables" | "withConnection">

/** The specs of the named tables (default all declared); an unknown name fails clearly. */
export const selectedTables = (wh: Source, tables: ReadonlyArray<string> | undefined) => {
  const all = wh.tables()
  if (tables === undefined) return Effect.succeed(all)
  return Effect.forEach(tables, (t) => {
    const spec = all.find((s) => s.name === t)
    return spec
      ? Effect.succeed(spec)
      : Effect.fail(
          new WarehouseError({
            reason: "Sql",
            table: t,
            detail: `Table ${t} is not declared in this warehouse (known: ${all.map((s) => s.name).join(", ") || "none"})`
          })
        )
  })
}

/** The query a table is exported from (adds `_extracted_date` when it partitions by it). */
const sourceQuery = (spec: TableSpec) =>
  (spec.partitionBy ?? []).includes(EXTRACTED_DATE)
    ? `SELECT *, CAST(_extracted_at AS DATE) AS ${EXTRACTED_DATE} FROM ${ident(spec.name)}`
    : `SELECT * FROM ${ident(spec.name)}`

export const exportTableParquet = (wh: Source, spec: TableSpec, outDir: string) => {
  const target = nodePath.join(outDir, "parquet", spec.name)
  return replaceAtomically(target, (tmp) =>
    wh.withConnection(`Cannot export ${spec.name} to Parquet`, async (conn) => {
      const partitions = spec.partitionBy ?? []
      const count = Number((await rowsOf(conn, `SELECT count(*) AS n FROM ${ident(spec.name)}`))[0]!.n)
      if (partitions.length > 0) {
        await conn.run(
          `COPY (${sourceQuery(spec)}) TO ${literal(tmp)} (FORMAT parquet, PARTITION_BY (${partitions.map(ident).join(", ")}))`
        )
        // An empty table writes no partition folder; keep an empty folder so the table's path exists.
        await fs.mkdir(tmp, { recursive: true })
      } else {
        await fs.mkdir(tmp, { recursive: true })
        await conn.run(`COPY (${sourceQuery(spec)}) TO ${literal(nodePath.join(tmp, "data.parquet"))} (FORMAT parquet)`)
      }
      return { table: spec.name, path: target, rows: count } satisfies ExportedTable
    })
  ).pipe(Effect.withSpan("ParquetExport.table", { attributes: { table: spec.name } }))
}

/** Exports the tables to Parquet; each table's folder is replaced only once its new files are complete. */
export const exportParquet = (wh: Source, options: ExportOptions) =>
  Effect.flatMap(
    selectedTables(wh, options.tables),
    Effect.forEach((spec) => exportTableParquet(wh, spec, options.outDir))
  )
