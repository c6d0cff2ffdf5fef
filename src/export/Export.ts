/**
 * The export stage: Parquet per table under `<output>/parquet/<table>/` (hive-partitioned where the
 * table says so), or Arrow IPC files under `<output>/arrow/`, each written atomically.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { exportParquet } from "./ParquetExport.js"
import { Warehouse } from "../load/Warehouse.js"
import type { TableSpec } from "../normalize/Table.js"

export interface ExportOptions {
  readonly output: string
  readonly format: "parquet" | "arrow"
  /** Tables to export; empty means every declared table. */
  readonly tables: ReadonlyArray<string>
  /**
   * Also every version of the history tables, as `<table>_history`. Default: when the format's
   * folder holds such an export already (an earlier `--history`), so it never goes stale beside
   * the current rows; else their current rows only.
   */
  readonly history?: boolean
}

/**
 * Whether `<output>/<format>/` holds the `<table>_history` export of one of `specs`' history tables
 * (a Parquet folder or an Arrow file): by their names, as a table may end in `_history` itself
 * (`property_price_history`).
 */
const holdsHistory = (output: string, format: ExportOptions["format"], specs: ReadonlyArray<TableSpec>): boolean =>
  specs.some(
    (s) =>
      s.disposition === "history" && fs.existsSync(nodePath.join(output, format, `${s.name}_history${format === "arrow" ? ".arrow" : ""}`))
  )

export const exportTables = (options: ExportOptions) =>
  Effect.flatMap(Warehouse, (warehouse) => {
    const selection = {
      outDir: options.output,
      history: options.history ?? holdsHistory(options.output, options.format, warehouse.tables()),
      ...(options.tables.length > 0 ? { tables: options.tables } : {})
    }
    // apache-arrow loads only for an Arrow export: importing it costs every CLI process ~0.3 s of
    // CPU (a few hundred ES modules), and a run or a Parquet export never uses it
    return options.format === "parquet"
      ? exportParquet(warehouse, selection)
      : Effect.flatMap(
          Effect.promise(() => import("./ArrowExport.js")),
          ({ exportArrow }) => exportArrow(warehouse, selection)
        )
  })
