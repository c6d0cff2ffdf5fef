/** `list`: the pipelines (built-in and the user's) and the sets. */
import { configOption as config, jsonOption as json, wideOption as wide, withSettings } from "./CommonOptions.js"
import { Command } from "@effect/cli"
import { Effect } from "effect"
import { originOf } from "../wiring/Catalogue.js"
import { listEntryOf, listOutput } from "./ListOutput.js"

export const listCommand = Command.make("list", { config, json, wide }, (o) =>
  withSettings(o.config, (settings, catalogue) =>
    Effect.sync(() =>
      process.stdout.write(
        listOutput(
          settings,
          catalogue.all.map((p) => listEntryOf(p, originOf(catalogue, p.name))),
          o
        )
      )
    )
  )
).pipe(Command.withDescription("List the pipelines and sets. Examples: estate-etl list; estate-etl list --wide"))
