/** The options most commands share: where the settings and the warehouse are. */
import { Options } from "@effect/cli"

export const configOption = Options.file("config").pipe(
  Options.withAlias("c"),
  Options.optional,
  Options.withDescription("Settings file (JSON). Default: estate-etl.json, else config/sandbox.json, when present")
)

export const warehouseOption = Options.text("warehouse").pipe(
  Options.optional,
  Options.withDescription("DuckDB warehouse file (default from settings: data/warehouse.duckdb)")
)
