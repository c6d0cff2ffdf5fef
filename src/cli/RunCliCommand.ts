/** `run`: the CLI's options for a run of pipelines or sets; the run itself is `RunCommand.ts`. */
import {
  configOption as config,
  warehouseOption as warehouse,
  namesArg as names,
  paramsOption as params,
  jsonOption as json,
  withSettings,
  either
} from "./CommonOptions.js"
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { makeRegistry } from "../pipeline/Registry.js"
import { endWith } from "./CommandEnded.js"
import { exitCodeOfSummaries, printSummaries, runCommand } from "./RunCommand.js"
import { parseChoice, parseUnits } from "./Preflight.js"
import { resolveShard } from "./Shard.js"
import { lockWait, lockWaitOption, parseLockWait } from "./LockWait.js"
import { withTelemetry } from "../monitor/Telemetry.js"

export const runCliCommand = Command.make(
  "run",
  {
    config,
    names,
    params,
    warehouse,
    maxUnits: Options.text("max-units").pipe(
      Options.optional,
      Options.withDescription("Units this invocation may spend, a whole number >= 0 (default: settings budget.maxUnits)")
    ),
    untilCap: Options.boolean("until-cap").pipe(
      Options.withDescription("Start even when the plan exceeds --max-units; stop (resumable) at the cap")
    ),
    fullRefresh: Options.boolean("full-refresh").pipe(Options.withDescription("Forget checkpoints and start over")),
    sample: Options.boolean("sample").pipe(
      Options.withDescription("A sample: a read cut by maxPages is reported, not incomplete (exit 6); also -p sample=true")
    ),
    fresh: Options.boolean("fresh").pipe(
      Options.withDescription("Buy every paid answer again instead of reusing the archived ones of the last budget.reuseWithin (12h)")
    ),
    resume: Options.boolean("resume").pipe(
      Options.withDescription("Go on with an unfinished run's saved parameters, whatever is requested")
    ),
    restart: Options.boolean("restart").pipe(
      Options.withDescription("Drop an unfinished run's checkpoints and start with the requested parameters")
    ),
    shard: Options.text("shard").pipe(
      Options.optional,
      Options.withDescription("This machine's share i/n of fan-out pipelines (also SHARD or JOB_COMPLETION_INDEX + SHARD_COUNT)")
    ),
    export: Options.text("export").pipe(Options.optional, Options.withDescription("Export the tables after the runs: parquet or arrow")),
    metricsFile: Options.text("metrics-file").pipe(
      Options.optional,
      Options.withDescription(
        "Prometheus text file kept current while it runs (node_exporter textfile collector; default: settings metricsFile)"
      )
    ),
    lockWait: lockWaitOption,
    json
  },
  (o) =>
    withSettings(o.config, (settings, catalogue, file) =>
      Effect.gen(function* () {
        const lockWaitMs = yield* parseLockWait(o.lockWait)
        const shard = yield* either(resolveShard(o.shard))
        const maxUnits = yield* Effect.transposeOption(Option.map(o.maxUnits, (t) => parseUnits(t)))
        const exportFormat = yield* Effect.transposeOption(Option.map(o.export, (t) => parseChoice(t, ["parquet", "arrow"], "--export")))
        const notes: Array<string> = []
        const summaries = yield* runCommand(settings, makeRegistry(catalogue.all, settings), {
          names: o.names,
          params: o.params,
          maxUnits,
          untilCap: o.untilCap,
          fullRefresh: o.fullRefresh,
          sample: o.sample,
          fresh: o.fresh,
          resume: o.restart ? "restart" : o.resume ? "resume" : "auto",
          shard,
          warehouse: o.warehouse,
          export: exportFormat,
          metricsFile: Option.getOrElse(o.metricsFile, () => settings.metricsFile),
          onNote: (line) => notes.push(line),
          lockWaitMs,
          settingsFile: file
        })
        if (o.json) {
          process.stdout.write(JSON.stringify(summaries, null, 2) + "\n")
          for (const n of notes) process.stderr.write(JSON.stringify({ at: new Date().toISOString(), type: "note", message: n }) + "\n")
        } else {
          yield* printSummaries(summaries)
          for (const n of notes) process.stdout.write(`${n}\n`)
        }
        yield* endWith(exitCodeOfSummaries(summaries))
      }).pipe(withTelemetry)
    )
).pipe(
  Command.withDescription(
    "Run pipelines or sets; an unfinished run resumes from its checkpoint. Examples: estate-etl run nightly; estate-etl run plots-germany --max-units 200 -p pageSize=50; estate-etl run market-time-series --shard 1/2 --warehouse data/warehouse.shard-1.duckdb"
  )
)
