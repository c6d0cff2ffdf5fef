/**
 * `export`: Parquet per table under `<output>/parquet/<table>/` (hive-partitioned where the
 * table says so), or Arrow IPC files under `<output>/arrow/`, written atomically.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { Warehouse } from "../load/Warehouse.js"
import { exportArrow, exportParquet } from "../load/Export.js"

export interface ExportOptions {
  readonly output: string
  readonly format: "parquet" | "arrow"
  /** Tables to export; empty means every declared table. */
  readonly tables: ReadonlyArray<string>
}

export const exportTables = (options: ExportOptions) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const specs = warehouse.tables().filter((t) => options.tables.length === 0 || options.tables.includes(t.name))
    const written: Array<{ table: string; path: string; rows: number }> = []
    for (const spec of specs) {
      const out = options.format === "parquet"
        ? yield* exportParquet(warehouse, spec, path.join(options.output, "parquet"))
        : yield* exportArrow(warehouse, spec, path.join(options.output, "arrow"))
      written.push({ table: spec.name, ...out })
    }
    return written
  })
