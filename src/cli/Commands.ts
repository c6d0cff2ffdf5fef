/**
 * The commands and their options. Handlers load the settings, check every input before any
 * request, then hand over to the runner, the warehouse or the sandbox.
 */
import { configOption, warehouseOption } from "./CommonOptions.js"
import { Args, Command, Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import { type Catalogue, loadCliSettingsAndCatalogue, originOf } from "../wiring/Catalogue.js"
import { durationMs, type Settings } from "../config/Settings.js"
import { mergeWarehouses } from "../load/MergeWarehouses.js"
import { Warehouse } from "../load/Warehouse.js"
import { reloadPipeline } from "../pipeline/Reload.js"
import { resolveParams } from "../pipeline/Params.js"
import { type Plan, planPipeline, unitCost } from "../pipeline/Planner.js"
import { planRefresh, refreshLine } from "../pipeline/RefreshPlan.js"
import { Progress } from "../pipeline/Progress.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { endWith } from "./CommandEnded.js"
import { makeEnvironment } from "../wiring/Environment.js"
import { exportTables } from "../export/Export.js"
import { exitCodesHelp } from "./ExitCodes.js"
import { makeMissingKeyTables, planNote } from "./KeyTables.js"
import { claimOutput } from "../export/OutputOwner.js"
import { existingWritableWarehouse, planWarehousePath, readOnlyWarehouse } from "./WarehouseAccess.js"
import { eur, table } from "./Format.js"
import { listEntryOf, listOutput } from "./ListOutput.js"
import { exitCodeOfSummaries, printSummaries, runCommand } from "./RunCommand.js"
import { parseChoice, parseUnits } from "./Preflight.js"
import { resolveShard } from "./Shard.js"
import { lockWait, lockWaitOption, parseLockWait } from "./LockWait.js"
import { queryCommand } from "./QueryCommand.js"
import { statusCommand } from "./StatusCommand.js"
import { alertsCommand, serveAlertsCommand } from "./AlertsCommands.js"
import { demoCommand, sandboxCommand } from "./SandboxCommands.js"
import { configCommand } from "./ConfigCommand.js"
import { initCommand } from "./InitCommand.js"
import { newCommand } from "./NewPipelineCommand.js"
import { stateCommands } from "./StateCommands.js"
import { reportCommand } from "./ReportCommand.js"
import { traceCommand } from "./TraceCommand.js"
import { probeCommand } from "./ProbeCommand.js"
import { eurOf } from "../service/CostGuard.js"
import { withTelemetry } from "../monitor/Telemetry.js"

const config = configOption
const warehouse = warehouseOption
const names = Args.text({ name: "pipeline-or-set" }).pipe(Args.repeated)
const params = Options.text("param").pipe(
  Options.withAlias("p"),
  Options.repeated,
  Options.withDescription("Parameter override key=value (JSON values allowed; a.b=v nests; name:key=v for one pipeline)")
)
const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table"))

/** The settings (flags, environment, .env, file, defaults) and their catalogue (built-ins and the user's modules); settings naming a pipeline it lacks are refused. */
const withSettings = <A, E, R>(
  path: Option.Option<string>,
  f: (settings: Settings, catalogue: Catalogue, file: string | undefined) => Effect.Effect<A, E, R>
) => Effect.flatMap(loadCliSettingsAndCatalogue(path), (loaded) => f(loaded.settings, loaded.catalogue, loaded.file))

const either = <A, E>(e: Either.Either<A, E>) => Either.match(e, { onLeft: Effect.fail, onRight: Effect.succeed })

const wide = Options.boolean("wide").pipe(
  Options.withDescription("Every column in full (default: cut to the terminal, at most 100 columns)")
)

const list = Command.make("list", { config, json, wide }, (o) =>
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

const plan = Command.make("plan", { config, names, params, json, lockWait: lockWaitOption }, (o) =>
  withSettings(o.config, (settings, catalogue) => {
    // never creates the warehouse: read-only when it exists, else keys from tables are "0 yet"
    const target = planWarehousePath(settings.warehouse)
    const lock = (waitMs: number) => (target.readOnly ? lockWait(target.path, waitMs) : {})
    const missingKeys = makeMissingKeyTables()
    return Effect.gen(function* () {
      const registry = makeRegistry(catalogue.all, settings)
      const pipelines = yield* either(registry.resolve(o.names))
      const plans: Array<Plan & { readonly keysPending?: boolean }> = []
      const observed = yield* Effect.flatMap(Warehouse, (w) => w.observedCosts())
      for (const p of pipelines) {
        const ps = yield* either(resolveParams(p, settings.pipelines[p.name]?.params ?? {}, o.params))
        missingKeys.take()
        const planned = yield* planPipeline(p, ps, settings.budget.costs, observed)
        const missing = missingKeys.take()
        const earlier = plans.map((q) => q.pipeline)
        plans.push(
          missing.length === 0
            ? planned
            : {
                ...planned,
                keysPending: true,
                note: [...missing.map((m) => planNote(m, earlier, catalogue.all)), ...(planned.note ? [planned.note] : [])].join("; ")
              }
        )
      }
      const total = plans.reduce((s, p) => s + p.units, 0)
      const pending = plans.filter((p) => p.keysPending).map((p) => p.pipeline)
      const refresh = yield* planRefresh(plans, { registry, settings, observed })
      // what a rerun reads from the raw archive instead of buying again (`budget.reuseWithin`)
      const within = durationMs(settings.budget.reuseWithin)
      const answers =
        within > 0 ? yield* Effect.flatMap(Warehouse, (w) => w.reusableAnswers(new Date(Date.now() - within).toISOString())) : []
      const reuse = plans.flatMap((p) => {
        const mine = new Map(answers.filter((a) => a.pipeline === p.pipeline).map((a) => [`${a.operation}\u0000${a.key}`, a.units]))
        const units = [...mine.values()].reduce((s, u) => s + u, 0)
        return mine.size > 0 ? [{ pipeline: p.pipeline, answers: mine.size, units }] : []
      })
      if (o.json) process.stdout.write(JSON.stringify({ plans, units: total, eur: eurOf(total), refresh, reuse }, null, 2) + "\n")
      else {
        process.stdout.write(
          table(
            plans.map((p) => ({
              pipeline: p.pipeline,
              slices: p.slices,
              requests: p.requests,
              pages: p.pages,
              units: p.units,
              eur: eur(p.units),
              "units/call": p.costSource === "unmetered" ? "" : `${p.unitsPerRequest} ${p.costSource}`,
              exact: p.keysPending ? "keys pending" : p.exact ? "yes" : "estimate",
              note: p.note ?? ""
            }))
          ) +
            `\ntotal: ${total} units (${eur(total)}), cap ${settings.budget.maxUnits}` +
            (pending.length > 0 ? `; not counted: ${pending.join(", ")} (keys known after an earlier pipeline runs)` : "") +
            "\n" +
            (refresh ? `${refreshLine(refresh)}\n` : "") +
            reuse
              .map(
                (r) =>
                  `reuse: ${r.pipeline}: ${r.answers} answer(s) bought within budget.reuseWithin (${settings.budget.reuseWithin}), ${r.units} units, are read from the raw archive at 0 units when a run asks the same again (--fresh buys them again)\n`
              )
              .join("") +
            plans.flatMap((p) => (p.costWarning ? [`warning: ${p.pipeline}: ${p.costWarning}\n`] : [])).join("")
        )
      }
    }).pipe((planned) =>
      Effect.flatMap(parseLockWait(o.lockWait), (waitMs) =>
        Effect.provide(
          planned,
          makeEnvironment({
            settings,
            progress: Progress.Silent,
            warehouse: target.path,
            readOnly: target.readOnly,
            onMissingKeyTable: missingKeys.record,
            lock: lock(waitMs)
          })
        )
      )
    )
  })
).pipe(
  Command.withDescription(
    "Print requests, pages and units/EUR a run expects, calling nothing paid and writing nothing (a source whose keys come from a table an earlier pipeline writes counts 0 keys until then, and says so). Example: estate-etl plan nightly"
  )
)

const run = Command.make(
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

const exportCmd = Command.make(
  "export",
  {
    config,
    warehouse,
    tables: Args.text({ name: "table" }).pipe(Args.repeated),
    format: Options.text("format").pipe(Options.withDefault("parquet"), Options.withDescription("parquet (default) or arrow")),
    history: Options.boolean("history").pipe(
      Options.withDescription("Also write every version of the history tables as <table>_history (default: their current rows only)")
    ),
    lockWait: lockWaitOption
  },
  (o) =>
    withSettings(o.config, (settings) =>
      Effect.flatMap(parseLockWait(o.lockWait), (waitMs) => {
        const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
        return Effect.gen(function* () {
          const format = yield* parseChoice(o.format, ["parquet", "arrow"], "--format")
          yield* claimOutput(settings.output, (yield* Warehouse).path)
          const written = yield* exportTables({ output: settings.output, format, tables: o.tables, history: o.history })
          process.stdout.write(table(written) + "\n")
        }).pipe(Effect.provide(readOnlyWarehouse(path, lockWait(path, waitMs))))
      })
    )
).pipe(
  Command.withDescription(
    "Write Parquet (default) or Arrow IPC files of the tables into the settings' output folder, which belongs to one warehouse (another warehouse's folder is refused). Example: estate-etl export plots --format arrow"
  )
)

const reload = Command.make(
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

const merge = Command.make(
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

export const commands = Command.make("estate-etl").pipe(
  Command.withDescription(
    `Batch ETL of the real-estate data service into DuckDB and Parquet. ${exitCodesHelp} Examples: estate-etl list; estate-etl plan nightly; estate-etl run nightly; estate-etl status`
  ),
  Command.withSubcommands([
    list,
    plan,
    probeCommand,
    run,
    statusCommand,
    traceCommand,
    exportCmd,
    reload,
    queryCommand,
    reportCommand,
    merge,
    ...stateCommands,
    alertsCommand,
    serveAlertsCommand,
    sandboxCommand,
    demoCommand,
    configCommand,
    initCommand,
    newCommand
  ])
)
