/** `merge`: shard warehouses merged into one. */
import { warehouseOption as warehouse } from "./CommonOptions.js"
import { Args, Command } from "@effect/cli"
import { Effect } from "effect"
import { mergeWarehouses } from "../load/MergeWarehouses.js"
import { table } from "./Format.js"

export const mergeCommand = Command.make(
  "merge",
  {
    target: Args.text({ name: "target" }),
    sources: Args.text({ name: "shard-warehouse" }).pipe(Args.atLeast(1))
  },
  (o) =>
    Effect.gen(function* () {
      const summary = yield* mergeWarehouses(o.target, o.sources)
      process.stdout.write(
        table(Object.entries(summary.tables).map(([t, rows]) => ({ table: t, rows }))) +
          `\nmerged ${summary.sources} warehouses into ${o.target}\n`
      )
    })
).pipe(
  Command.withDescription(
    "Combine shard warehouses into one (keys honoured, bookkeeping concatenated). Example: estate-etl merge data/warehouse.duckdb data/warehouse.shard-*.duckdb"
  )
)
