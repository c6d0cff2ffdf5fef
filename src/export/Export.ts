/**
 * The export stage: Parquet per table under `<output>/parquet/<table>/` (hive-partitioned where the
 * table says so), or Arrow IPC files under `<output>/arrow/`, each written atomically.
 */
import { Effect } from "effect"
import { exportParquet } from "./ParquetExport.js"
import { Warehouse } from "../load/Warehouse.js"

export interface ExportOptions {
  readonly output: string
  readonly format: "parquet" | "arrow"
  /** Tables to export; empty means every declared table. */
  readonly tables: ReadonlyArray<string>
  /** Also every version of the history tables, as `<table>_history` (default: their current rows only). */
  readonly history?: boolean
}

export const exportTables = (options: ExportOptions) =>
  Effect.flatMap(Warehouse, (warehouse) => {
    const selection = {
      outDir: options.output,
      history: options.history ?? false,
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
