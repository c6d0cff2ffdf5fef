/** The options most commands share: where the settings and the warehouse are. */
import { Args, Options } from "@effect/cli"
import { Effect, Either, type Option } from "effect"
import type { Settings } from "../config/Settings.js"
import { type Catalogue, loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"

export const configOption = Options.file("config").pipe(
  Options.withAlias("c"),
  Options.optional,
  Options.withDescription("Settings file (JSON). Default: estate-etl.json, else config/sandbox.json, when present")
)

export const warehouseOption = Options.text("warehouse").pipe(
  Options.optional,
  Options.withDescription("DuckDB warehouse file (default from settings: data/warehouse.duckdb)")
)

/** Pipelines or sets by name, as `run` and `plan` take them. */
export const namesArg = Args.text({ name: "pipeline-or-set" }).pipe(Args.repeated)

export const paramsOption = Options.text("param").pipe(
  Options.withAlias("p"),
  Options.repeated,
  Options.withDescription("Parameter override key=value (JSON values allowed; a.b=v nests; name:key=v for one pipeline)")
)

export const jsonOption = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table"))

export const wideOption = Options.boolean("wide").pipe(
  Options.withDescription("Every column in full (default: cut to the terminal, at most 100 columns)")
)

/** The settings (flags, environment, .env, file, defaults) and their catalogue (built-ins and the user's modules); settings naming a pipeline it lacks are refused. */
export const withSettings = <A, E, R>(
  path: Option.Option<string>,
  f: (settings: Settings, catalogue: Catalogue, file: string | undefined) => Effect.Effect<A, E, R>
) => Effect.flatMap(loadCliSettingsAndCatalogue(path), (loaded) => f(loaded.settings, loaded.catalogue, loaded.file))

/** An Either as an Effect (its left the failure). */
export const either = <A, E>(e: Either.Either<A, E>) => Either.match(e, { onLeft: Effect.fail, onRight: Effect.succeed })
