/**
 * The commands and their options. Handlers load the settings, check every input before any
 * request, then hand over to the runner, the warehouse or the sandbox.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import { catalogue } from "../../pipelines/index.js"
import { loadSettings } from "../config/loadSettings.js"
import type { Settings } from "../config/Settings.js"
import { mergeWarehouses } from "../load/MergeWarehouses.js"
import { Warehouse } from "../load/Warehouse.js"
import { reloadPipeline } from "../pipeline/Reload.js"
import { resolveParams } from "../pipeline/Params.js"
import { planPipeline, unitCost } from "../pipeline/Planner.js"
import { Progress } from "../pipeline/Progress.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { exitCode } from "./CliState.js"
import { makeEnvironment } from "./Environment.js"
import { exportTables } from "./ExportCommand.js"
import { eur, jsonSafe, table } from "./Format.js"
import { exitCodeOfSummaries, printSummaries, runCommand } from "./RunCommand.js"
import { parseChoice, parseUnits } from "./Preflight.js"
import { resolveShard } from "./Shard.js"
import { alertsCommand, serveAlertsCommand } from "./AlertsCommands.js"
import { demoCommand, sandboxCommand } from "./SandboxCommands.js"

const config = Options.file("config").pipe(
  Options.withAlias("c"),
  Options.optional,
  Options.withDescription("Settings file (JSON). Default: config/sandbox.json when present")
)
const warehouse = Options.text("warehouse").pipe(Options.optional, Options.withDescription("DuckDB warehouse file (default from settings: data/warehouse.duckdb)"))
const names = Args.text({ name: "pipeline-or-set" }).pipe(Args.repeated)
const params = Options.text("param").pipe(
  Options.withAlias("p"),
  Options.repeated,
  Options.withDescription("Parameter override key=value (JSON values allowed; a.b=v nests; name:key=v for one pipeline)")
)
const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table"))

/** The settings, refused when they name a pipeline the catalogue does not have. */
const withSettings = <A, E, R>(path: Option.Option<string>, f: (settings: Settings) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(loadSettings(Option.getOrUndefined(path), { knownPipelines: catalogue.map((p) => p.name) }), f)

const either = <A, E>(e: Either.Either<A, E>) => Either.match(e, { onLeft: Effect.fail, onRight: Effect.succeed })

const list = Command.make("list", { config, json }, (o) =>
  withSettings(o.config, (settings) =>
    Effect.sync(() => {
      const rows = catalogue.map((p) => ({
        pipeline: p.name,
        host: p.host,
        operation: p.cost.operation,
        units_per_call: unitCost(p, settings.budget.costs),
        tables: p.tables.map((t) => t.name).join(", "),
        description: p.description
      }))
      if (o.json) return process.stdout.write(JSON.stringify({ pipelines: rows, sets: settings.sets }, null, 2) + "\n")
      process.stdout.write(table(rows) + "\n")
      for (const [set, members] of Object.entries(settings.sets)) process.stdout.write(`set ${set}: ${members.join(", ")}\n`)
    }))
).pipe(Command.withDescription("List the pipelines and sets. Example: estate-etl list"))

const plan = Command.make("plan", { config, names, params, json }, (o) =>
  withSettings(o.config, (settings) =>
    Effect.gen(function* () {
      const registry = makeRegistry(catalogue, settings)
      const pipelines = yield* either(registry.resolve(o.names))
      const plans = []
      for (const p of pipelines) {
        const ps = yield* either(resolveParams(p, settings.pipelines[p.name]?.params ?? {}, o.params))
        plans.push(yield* planPipeline(p, ps, settings.budget.costs))
      }
      const total = plans.reduce((s, p) => s + p.units, 0)
      if (o.json) process.stdout.write(JSON.stringify({ plans, units: total, eur: total * 0.04 }, null, 2) + "\n")
      else {
        process.stdout.write(table(plans.map((p) => ({
          pipeline: p.pipeline, slices: p.slices, requests: p.requests, pages: p.pages, units: p.units, eur: eur(p.units),
          exact: p.exact ? "yes" : "upper bound", note: p.note ?? ""
        }))) + `\ntotal: ${total} units (${eur(total)}), cap ${settings.budget.maxUnits}\n`)
      }
    }).pipe(Effect.provide(makeEnvironment({ settings, progress: Progress.Silent })))
  )
).pipe(Command.withDescription("Print requests, pages and units/EUR a run expects, calling nothing paid. Example: estate-etl plan nightly"))

const run = Command.make("run", {
  config, names, params, warehouse,
  maxUnits: Options.text("max-units").pipe(Options.optional, Options.withDescription("Units this invocation may spend, a whole number >= 0 (default: settings budget.maxUnits)")),
  untilCap: Options.boolean("until-cap").pipe(Options.withDescription("Start even when the plan exceeds --max-units; stop (resumable) at the cap")),
  fullRefresh: Options.boolean("full-refresh").pipe(Options.withDescription("Forget checkpoints and start over")),
  resume: Options.boolean("resume").pipe(Options.withDescription("Go on with an unfinished run's saved parameters, whatever is requested")),
  restart: Options.boolean("restart").pipe(Options.withDescription("Drop an unfinished run's checkpoints and start with the requested parameters")),
  shard: Options.text("shard").pipe(Options.optional, Options.withDescription("This machine's share i/n of fan-out pipelines (also SHARD or JOB_COMPLETION_INDEX + SHARD_COUNT)")),
  export: Options.text("export").pipe(Options.optional, Options.withDescription("Export the tables after the runs: parquet or arrow")),
  json
}, (o) =>
  withSettings(o.config, (settings) =>
    Effect.gen(function* () {
      const shard = yield* either(resolveShard(o.shard))
      const maxUnits = yield* Effect.transposeOption(Option.map(o.maxUnits, (t) => parseUnits(t)))
      const exportFormat = yield* Effect.transposeOption(Option.map(o.export, (t) => parseChoice(t, ["parquet", "arrow"], "--export")))
      const summaries = yield* runCommand(settings, makeRegistry(catalogue, settings), {
        names: o.names, params: o.params, maxUnits, untilCap: o.untilCap, fullRefresh: o.fullRefresh,
        resume: o.restart ? "restart" : o.resume ? "resume" : "auto",
        shard, warehouse: o.warehouse, export: exportFormat
      })
      if (o.json) process.stdout.write(JSON.stringify(summaries, null, 2) + "\n")
      else yield* printSummaries(summaries)
      exitCode.value = exitCodeOfSummaries(summaries)
    }))
).pipe(Command.withDescription(
  "Run pipelines or sets; an unfinished run resumes from its checkpoint. Examples: estate-etl run nightly; estate-etl run plots-germany --max-units 200 -p limit=50"
))

const status = Command.make("status", { config, warehouse, json }, (o) =>
  withSettings(o.config, (settings) =>
    Effect.gen(function* () {
      const w = yield* Warehouse
      const runs = yield* w.runs(20)
      const checkpoints = yield* w.query(`SELECT pipeline, key, done, CAST(updated_at AS VARCHAR) AS updated_at FROM _checkpoints ORDER BY pipeline, key`)
      const today = yield* w.unitsSpentSince(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`)
      if (o.json) return process.stdout.write(JSON.stringify({ runs, checkpoints, unitsToday: today }, (_k, v) => jsonSafe(v), 2) + "\n")
      process.stdout.write(table(runs.map((r) => ({
        run_id: r.runId, pipeline: r.pipeline, status: r.status, started: r.startedAt, pages: r.pages,
        requests: r.requests, retries: r.retries, planned: r.unitsPlanned, units: r.unitsCharged, error: r.error ?? ""
      }))) + "\n\n")
      process.stdout.write(table(checkpoints) + `\n\nunits spent today: ${today} (${eur(today)})\n`)
    }).pipe(Effect.provide(Warehouse.Default({ path: Option.getOrElse(o.warehouse, () => settings.warehouse) })))
  )
).pipe(Command.withDescription("Last runs, checkpoints and units spent today. Example: estate-etl status"))

const exportCmd = Command.make("export", {
  config, warehouse,
  tables: Args.text({ name: "table" }).pipe(Args.repeated),
  format: Options.text("format").pipe(Options.withDefault("parquet"), Options.withDescription("parquet (default) or arrow"))
}, (o) =>
  withSettings(o.config, (settings) =>
    Effect.flatMap(parseChoice(o.format, ["parquet", "arrow"], "--format"), (format) => exportTables({ output: settings.output, format, tables: o.tables })).pipe(
      Effect.tap((written) => Effect.sync(() => process.stdout.write(table(written) + "\n"))),
      Effect.provide(Warehouse.Default({ path: Option.getOrElse(o.warehouse, () => settings.warehouse) }))
    ))
).pipe(Command.withDescription("Write Parquet (default) or Arrow IPC files of the tables. Example: estate-etl export plots --format arrow"))

const query = Command.make("query", { config, warehouse, sql: Args.text({ name: "sql" }), json }, (o) =>
  withSettings(o.config, (settings) =>
    Effect.gen(function* () {
      const rows = yield* (yield* Warehouse).query(o.sql)
      process.stdout.write((o.json ? rows.map((r) => JSON.stringify(r, (_k, v) => jsonSafe(v))).join("\n") : table(rows)) + "\n")
    }).pipe(Effect.provide(Warehouse.Default({ path: Option.getOrElse(o.warehouse, () => settings.warehouse) }))))
).pipe(Command.withDescription(`Run SQL over the warehouse. Example: estate-etl query "SELECT country, count(*) FROM properties GROUP BY 1"`))

const reload = Command.make("reload", {
  config, warehouse,
  pipeline: Args.text({ name: "pipeline" }),
  run: Options.text("run").pipe(Options.optional, Options.withDescription("Run id to reload (default: the last run with archived pages)"))
}, (o) =>
  withSettings(o.config, (settings) =>
    Effect.gen(function* () {
      const pipeline = yield* either(makeRegistry(catalogue, settings).get(o.pipeline))
      const summary = yield* reloadPipeline(pipeline, Option.getOrUndefined(o.run))
      process.stdout.write(table([summary]) + "\nunits spent: 0 (reloaded from the raw archive)\n")
    }).pipe(Effect.provide(Warehouse.Default({ path: Option.getOrElse(o.warehouse, () => settings.warehouse) }))))
).pipe(Command.withDescription("Re-normalise a run's archived raw pages after a schema fix, buying nothing. Example: estate-etl reload plots-germany"))

const merge = Command.make("merge", {
  target: Args.text({ name: "target" }),
  sources: Args.text({ name: "shard-warehouse" }).pipe(Args.atLeast(1))
}, (o) =>
  Effect.gen(function* () {
    const summary = yield* mergeWarehouses(o.target, o.sources)
    process.stdout.write(table(Object.entries(summary.tables).map(([t, rows]) => ({ table: t, rows }))) + `\nmerged ${summary.sources} warehouses into ${o.target}\n`)
  })
).pipe(Command.withDescription("Combine shard warehouses into one (keys honoured, bookkeeping concatenated). Example: estate-etl merge data/warehouse.duckdb data/warehouse.shard-*.duckdb"))

export const commands = Command.make("estate-etl").pipe(
  Command.withDescription("Batch ETL of the real-estate data service into DuckDB and Parquet"),
  Command.withSubcommands([list, plan, run, status, exportCmd, reload, query, merge, alertsCommand, serveAlertsCommand, sandboxCommand, demoCommand])
)

