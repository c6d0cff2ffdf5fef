/**
 * `sandbox`: serves both simulated hosts on fixed ports until stopped.
 * `demo`: the first night of a new warehouse end to end against an in-process sandbox: the
 * `nightly` set (what changed) and the `weekly` set (the full pull) together, so every table of
 * the schedule lands; exports Parquet and prints rows per table and units spent.
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { Warehouse } from "../load/Warehouse.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { endWith } from "./CommandEnded.js"
import { eur, table } from "./Format.js"
import { exitCodeOfSummaries, printSummaries, runCommand } from "./RunCommand.js"

const config = Options.file("config").pipe(Options.withAlias("c"), Options.optional, Options.withDescription("Settings file (JSON)"))

export const sandboxCommand = Command.make("sandbox", {}, () =>
  // loaded only by this command: the other commands never pay for the simulator's code
  Effect.flatMap(
    Effect.promise(() => import("../sandbox/main.js")),
    (m) => m.serveSandbox()
  )
).pipe(
  Command.withDescription(
    "Serve the sandbox's platform and token hosts on fixed ports (SANDBOX_PLATFORM_PORT=8701, SANDBOX_API_PORT=8702) until stopped; SANDBOX_DIALECT, SANDBOX_SEED and SANDBOX_PROPERTIES choose its dialect and world. Example: estate-etl sandbox"
  )
)

/**
 * The demo's first night: the change-driven `nightly` set (alerts first, which properties-match
 * of the weekly set reads), then the `weekly` full pull; a pipeline in both runs once.
 */
export const DEMO_SETS = ["nightly", "weekly"] as const

export const demoCommand = Command.make(
  "demo",
  {
    config,
    set: Options.text("set").pipe(
      Options.withDefault(DEMO_SETS.join(",")),
      Options.withDescription(`Sets or pipelines to run, comma-separated (default ${DEMO_SETS.join(",")}: a first night lands everything)`)
    )
  },
  (o) =>
    Effect.gen(function* () {
      const { settings, catalogue, file } = yield* loadCliSettingsAndCatalogue(o.config)
      const summaries = yield* runCommand(
        { ...settings, service: { ...settings.service, target: "sandbox" } },
        makeRegistry(catalogue.all, settings),
        {
          names: o.set
            .split(",")
            .map((n) => n.trim())
            .filter((n) => n !== ""),
          params: [],
          maxUnits: Option.none(),
          untilCap: false,
          fullRefresh: false,
          shard: Option.none(),
          warehouse: Option.none(),
          export: Option.some("parquet"),
          settingsFile: file
        }
      )
      yield* printSummaries(summaries)
      const counts = yield* Effect.flatMap(Warehouse, (w) => w.tableCounts()).pipe(
        Effect.provide(Warehouse.Default({ path: settings.warehouse }))
      )
      const units = summaries.reduce((s, r) => s + r.totals.units, 0)
      process.stdout.write(`\n${table(Object.entries(counts).map(([t, rows]) => ({ table: t, rows })))}\n`)
      process.stdout.write(
        `\nunits spent: ${units} (${eur(units)}); warehouse ${settings.warehouse}; Parquet under ${settings.output}/parquet\n`
      )
      yield* endWith(exitCodeOfSummaries(summaries))
    })
).pipe(
  Command.withDescription(
    "Run a first night (the nightly and weekly sets) against an in-process sandbox and print a summary (what `make demo` runs). Example: estate-etl demo"
  )
)
