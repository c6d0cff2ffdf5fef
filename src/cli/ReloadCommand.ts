/** `reload`: a run's archived raw pages normalised again through the current schemas and shapes; nothing is bought. */
import { configOption as config, warehouseOption as warehouse, withSettings, either } from "./CommonOptions.js"
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { reloadPipeline } from "../pipeline/Reload.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { existingWritableWarehouse } from "./WarehouseAccess.js"
import { table } from "./Format.js"
import { lockWait, lockWaitOption, parseLockWait } from "./LockWait.js"

export const reloadCommand = Command.make(
  "reload",
  {
    config,
    warehouse,
    pipeline: Args.text({ name: "pipeline" }),
    run: Options.text("run").pipe(
      Options.optional,
      Options.withDescription("Run id to reload (default: the last run with archived pages)")
    ),
    lockWait: lockWaitOption
  },
  (o) =>
    withSettings(o.config, (settings, catalogue) =>
      Effect.flatMap(parseLockWait(o.lockWait), (waitMs) => {
        const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
        return Effect.gen(function* () {
          const pipeline = yield* either(makeRegistry(catalogue.all, settings).get(o.pipeline))
          const summary = yield* reloadPipeline(pipeline, Option.getOrUndefined(o.run), settings.service.shapes)
          process.stdout.write(table([summary]) + "\nunits spent: 0 (reloaded from the raw archive)\n")
        }).pipe(Effect.provide(existingWritableWarehouse(path, lockWait(path, waitMs))))
      })
    )
).pipe(
  Command.withDescription(
    "Re-normalise a run's archived raw pages after a schema fix, buying nothing. Example: estate-etl reload plots-germany"
  )
)
