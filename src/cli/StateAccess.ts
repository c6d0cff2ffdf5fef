/**
 * What the `state` commands and `drop` share (`StateCommands.ts`, `StateTransferCommands.ts`):
 * their `--config` and `--warehouse` options, the pipeline argument checked against the catalogue
 * and the warehouse (with "did you mean"), and how they open the warehouse: after the checks, and
 * refused in one line while a run holds it.
 */
import { Args, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { closest } from "../config/Suggest.js"
import { Warehouse } from "../load/Warehouse.js"
import { WarehouseError } from "../load/WarehouseError.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { existingWritableWarehouse, readOnlyWarehouse } from "./WarehouseAccess.js"

export const config = Options.file("config").pipe(Options.withAlias("c"), Options.optional, Options.withDescription("Settings file (JSON)"))
export const warehouse = Options.text("warehouse").pipe(
  Options.optional,
  Options.withDescription("DuckDB warehouse file (default from settings: data/warehouse.duckdb)")
)
export const pipelineArg = Args.text({ name: "pipeline" })

/** The pipelines of the catalogue: the built-ins and the user's own (`pipelineModules`). */
export type Pipelines = ReadonlyArray<Pipeline<any, any>>

export const tablesOf = (pipelines: Pipelines, name: string) => pipelines.find((p) => p.name === name)?.tables.map((t) => t.name) ?? []

/** `name` when it is a pipeline of the catalogue or one the warehouse holds state of. */
export const knownPipeline = (pipelines: Pipelines, name: string, inWarehouse: ReadonlyArray<string>) => {
  const known = [...new Set([...pipelines.map((p) => p.name), ...inWarehouse])]
  if (known.includes(name)) return Effect.succeed(name)
  const best = closest(name, known)
  return Effect.fail(
    new InvalidInput({
      field: "pipeline",
      detail: `unknown pipeline "${name}"${best ? `; did you mean ${best}?` : ""}; allowed: ${known.join(", ")}`
    })
  )
}

/**
 * Opens the warehouse of the settings (or `--warehouse`) for `f`, given the catalogue the settings
 * load (the user's pipeline modules too); `check` runs before the warehouse is opened. A run
 * holding the warehouse is refused.
 */
export const withWarehouse = <A, E, R>(
  command: string,
  o: { readonly config: Option.Option<string>; readonly warehouse: Option.Option<string> },
  write: boolean,
  f: (pipelines: Pipelines) => Effect.Effect<A, E, R>,
  check: (pipelines: Pipelines) => Effect.Effect<unknown, InvalidInput> = () => Effect.void
) =>
  Effect.flatMap(loadCliSettingsAndCatalogue(o.config), ({ settings, catalogue }) => {
    const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
    return Effect.zipRight(
      check(catalogue.all),
      f(catalogue.all).pipe(
        Effect.provide(write ? existingWritableWarehouse(path) : readOnlyWarehouse(path)),
        Effect.mapError((e) =>
          e instanceof WarehouseError && e.reason === "Locked"
            ? new WarehouseError({
                ...e,
                detail: `${command}: ${e.detail.replace(/; wait for it.*$/, "")}, probably a run; nothing was read or changed; try again when it has finished`
              })
            : e
        )
      )
    )
  })
