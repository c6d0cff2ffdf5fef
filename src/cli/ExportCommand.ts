/** `export`: the tables as Parquet or Arrow IPC files under the settings' output folder. */
import { configOption as config, warehouseOption as warehouse, withSettings } from "./CommonOptions.js"
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { TableReads } from "../load/Warehouse.js"
import { exportTables } from "../export/Export.js"
import { claimOutput } from "../export/OutputOwner.js"
import { readOnlyWarehouse } from "./WarehouseAccess.js"
import { table } from "./Format.js"
import { parseChoice } from "./Preflight.js"
import { lockWait, lockWaitOption, parseLockWait } from "./LockWait.js"

export const exportCommand = Command.make(
  "export",
  {
    config,
    warehouse,
    tables: Args.text({ name: "table" }).pipe(Args.repeated),
    format: Options.text("format").pipe(Options.withDefault("parquet"), Options.withDescription("parquet (default) or arrow")),
    history: Options.boolean("history").pipe(
      Options.withDescription(
        "Also write every version of the history tables as <table>_history (default: their current rows only, and any _history export the folder holds kept current)"
      )
    ),
    lockWait: lockWaitOption
  },
  (o) =>
    withSettings(o.config, (settings) =>
      Effect.flatMap(parseLockWait(o.lockWait), (waitMs) => {
        const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
        return Effect.gen(function* () {
          const format = yield* parseChoice(o.format, ["parquet", "arrow"], "--format")
          yield* claimOutput(settings.output, (yield* TableReads).path)
          // without --history, an earlier --history export in the folder is kept current (Export.ts)
          const written = yield* exportTables({
            output: settings.output,
            format,
            tables: o.tables,
            ...(o.history ? { history: true } : {})
          })
          process.stdout.write(table(written) + "\n")
        }).pipe(Effect.provide(readOnlyWarehouse(path, lockWait(path, waitMs))))
      })
    )
).pipe(
  Command.withDescription(
    "Write Parquet (default) or Arrow IPC files of the tables into the settings' output folder, which belongs to one warehouse (another warehouse's folder is refused). Example: estate-etl export plots --format arrow"
  )
)
