/**
 * `run`: one or several pipelines or named sets. Every pipeline's parameters are checked before
 * the first request; then each runs in turn against one warehouse, and a summary follows.
 * A budget, payment or authentication ending stops the remaining pipelines of its host (they would
 * end the same way; the other host's still run, each skipped one named in a line); a signal stops
 * them all; other failures let the rest run. The exit code is the first non-zero ending's.
 *
 * A warehouse another process holds (the webhook receiver's load, another command) is waited for,
 * up to `lockWaitMs` (`LockWait.ts`); meanwhile a marker tells the receiver to yield. Once the
 * warehouse is open, the run-state file and the metrics file follow the run (`monitor/LiveRun.ts`).
 */
import { Cause, Effect, Either, Exit, Layer, Option } from "effect"
import type { Settings } from "../config/Settings.js"
import { resolveParams, sampleRequested } from "../pipeline/Params.js"
import { runSettingsOf } from "../pipeline/RunSettings.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { Progress } from "../pipeline/Progress.js"
import type { Registry } from "../pipeline/Registry.js"
import { ExitCode } from "../pipeline/RunError.js"
import { runPipeline, type RunSummary } from "../pipeline/Runner.js"
import type { SandboxHandle } from "../sandbox/Sandbox.js"
import { makeEnvironment } from "../wiring/Environment.js"
import { eur, table } from "./Format.js"
import type { Shard } from "./Shard.js"
import { shardWarehouse } from "./Shard.js"
import { preflight } from "./Preflight.js"
import { exportTables } from "../export/Export.js"
import { makeMissingKeyTables, runNote } from "./KeyTables.js"
import { claimOutput } from "../export/OutputOwner.js"
import { writeRunMetrics } from "../monitor/PrometheusFile.js"
import { type Bill, readBill } from "../report/Bill.js"
import { recordBill, recordRun, telemetryConfig } from "../monitor/Telemetry.js"
import { exitCodeOf, messageOf } from "../shared/ErrorClass.js"
import { makeLiveRun } from "../monitor/LiveRun.js"
import { markWaiting } from "../monitor/RunStateFile.js"
import { DEFAULT_LOCK_WAIT_MS, lockWait } from "./LockWait.js"
import { checkRemote, pointedAt, printTarget, SANDBOX, targetShort } from "./Target.js"

export interface RunOptions {
  readonly names: ReadonlyArray<string>
  readonly params: ReadonlyArray<string>
  readonly maxUnits: Option.Option<number>
  readonly untilCap: boolean
  readonly fullRefresh: boolean
  /** The run is a sample: caps (`maxPages`) that cut it short are reported, not shortfalls. */
  readonly sample?: boolean | undefined
  /** Buy every paid answer again instead of reusing fresh archived ones. */
  readonly fresh?: boolean | undefined
  /** An unfinished run with other parameters: refuse (`auto`), go on with its own (`resume`) or start over (`restart`). */
  readonly resume?: "auto" | "resume" | "restart" | undefined
  readonly shard: Option.Option<Shard>
  readonly warehouse: Option.Option<string>
  readonly export: Option.Option<"parquet" | "arrow">
  readonly progress?: Layer.Layer<Progress> | undefined
  readonly sandbox?: SandboxHandle | undefined
  /** Prometheus text file to merge the runs' figures into at the end, however they ended (`monitor/PrometheusFile.ts`). */
  readonly metricsFile?: string | undefined
  /** A line for people about a pipeline that ran (e.g. its keys' table does not exist yet). */
  readonly onNote?: ((line: string) => void) | undefined
  /** How long to wait for a warehouse another process holds, ms. Default `DEFAULT_LOCK_WAIT` (30 s). */
  readonly lockWaitMs?: number | undefined
  /** The settings file read, for the run's first line (`undefined`: none found). */
  readonly settingsFile?: string | undefined
}

/** `--param name:key=value` applies to one pipeline; `--param key=value` to every one run. */
const paramsFor = (pipeline: Pipeline, overrides: ReadonlyArray<string>) =>
  overrides.flatMap((o) => {
    const m = /^([a-z0-9-]+):(.*)$/.exec(o)
    return m ? (m[1] === pipeline.name ? [m[2]!] : []) : [o]
  })

export const runCommand = (settings: Settings, registry: Registry, options: RunOptions) =>
  Effect.gen(function* () {
    const shard = Option.getOrUndefined(options.shard)
    const path = Option.getOrElse(options.warehouse, () => (shard ? shardWarehouse(settings.warehouse, shard) : settings.warehouse))
    // off a terminal the run's lines are JSON, as its progress
    const json = !process.stderr.isTTY
    const command = `run ${options.names.join(" ")}`
    const pointed = options.sandbox ? SANDBOX : pointedAt(settings)
    const pipelines = yield* Either.match(registry.resolve(options.names), { onLeft: Effect.fail, onRight: Effect.succeed })
    const resolved: Array<{ pipeline: Pipeline; params: unknown; sample: boolean }> = []
    for (const pipeline of pipelines) {
      const fromSettings = settings.pipelines[pipeline.name]?.params ?? {}
      const overrides = paramsFor(pipeline, options.params)
      const params = yield* Either.match(resolveParams(pipeline, fromSettings, overrides), {
        onLeft: Effect.fail,
        onRight: Effect.succeed
      })
      resolved.push({ pipeline, params, sample: options.sample === true || sampleRequested(fromSettings, overrides) })
    }
    // a remote run checks its credentials before anything is written
    if (!options.sandbox) yield* checkRemote(settings, pipelines)
    yield* preflight({ warehouse: path, output: settings.output, metricsFile: options.metricsFile })
    // exporting into a folder another warehouse exports into is refused before anything is sent
    if (Option.isSome(options.export)) yield* claimOutput(settings.output, path)
    // bad input is one line; a run that goes ahead says first where it is pointed
    yield* printTarget({ command, pointed, settingsFile: options.settingsFile, warehouse: path, json })
    const missingKeys = makeMissingKeyTables()
    const live = makeLiveRun({
      warehouse: path,
      command,
      target: targetShort(pointed),
      pipelines: resolved.map((r) => r.pipeline.name),
      metricsFile: options.metricsFile
    })
    // while this run waits for the warehouse, its marker asks the webhook receiver to yield
    let unmark = () => {}
    const env = makeEnvironment({
      settings,
      warehouse: path,
      maxUnits: Option.getOrUndefined(options.maxUnits),
      progress: live.progress(options.progress ?? Progress.Auto),
      sandbox: options.sandbox,
      onMissingKeyTable: missingKeys.record,
      lock: lockWait(path, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, {
        json,
        onHeld: () => Effect.sync(() => (unmark = markWaiting(path)))
      })
    })
    // the runs that ended so far, for the metrics file even when a later pipeline cannot start
    const summaries: Array<RunSummary> = []
    // the bill (balance, month, forecast) as of the last pipeline's end, for the metrics file
    const bill: { current: Bill | undefined } = { current: undefined }
    // the OTLP exporter gets the bill's gauges too
    const telemetry = telemetryConfig() !== undefined
    const readBillNow = Effect.suspend(() => readBill({ now: new Date(), dailyCap: settings.budget.dailyMaxUnits })).pipe(
      Effect.tap((b) => Effect.sync(() => (bill.current = b))),
      Effect.catchAll((e) => Effect.sync(() => process.stderr.write(`warning: could not read the bill for the metrics: ${messageOf(e)}\n`)))
    )
    return yield* Effect.gen(function* () {
      yield* live.begin
      unmark()
      // the host whose budget, payment or credentials ended a pipeline: the ending of that host's rest too
      const hostStopped = new Map<Pipeline["host"], RunSummary>()
      for (const { pipeline, params, sample } of resolved) {
        const stopper = hostStopped.get(pipeline.host)
        if (stopper !== undefined) {
          options.onNote?.(
            `${pipeline.name} not run: ${stopper.pipeline} ended ${stopper.status} (exit ${stopper.exitCode}) on the ${pipeline.host} host, which would end it the same way; a rerun runs it`
          )
          continue
        }
        // a step whose input did not land whole is not run: it would pay for what it cannot know
        const unlanded = summaries.filter((s) => pipeline.readsFrom?.includes(s.pipeline) && s.status !== "done")
        if (unlanded.length > 0) {
          options.onNote?.(
            `${pipeline.name} not run: it reads what ${unlanded.map((s) => `${s.pipeline} lands, and ${s.pipeline} ended ${s.status}`).join("; ")}; a rerun runs it once that lands`
          )
          continue
        }
        missingKeys.take()
        const summary = yield* runPipeline({
          pipeline,
          params,
          fullRefresh: options.fullRefresh,
          resume: options.resume,
          maxUnits: Option.getOrElse(options.maxUnits, () => settings.budget.maxUnits),
          untilCap: options.untilCap,
          shard: pipeline.shardable === false ? undefined : shard,
          ...runSettingsOf(settings),
          sample,
          fresh: options.fresh === true
        })
        summaries.push(summary)
        // the metrics file holds each pipeline's ending as soon as it ends, not only at the command's end
        if (options.metricsFile !== undefined || telemetry) yield* readBillNow
        if (options.metricsFile !== undefined) yield* publishMetrics(options.metricsFile, [summary], bill.current)
        yield* recordRun(summary)
        if (telemetry && bill.current !== undefined) yield* recordBill(bill.current)
        for (const m of missingKeys.take()) options.onNote?.(runNote(pipeline.name, m, registry.all))
        const code = summary.exitCode
        if (summary.status === "interrupted") break
        if (code === ExitCode.Budget || code === ExitCode.Payment || code === ExitCode.Authentication)
          hostStopped.set(pipeline.host, summary)
      }
      // a run that failed or was stopped exports nothing: its error line stays the one that names
      // the real cause (a full disk while archiving, say), not a later export's
      if (Option.isSome(options.export) && !summaries.some((s) => s.status === "interrupted" || s.status === "failed")) {
        yield* exportTables({ output: settings.output, format: options.export.value, tables: [] })
      }
      return summaries
    }).pipe(
      Effect.onExit((exit) =>
        live.end(
          Exit.match(exit, {
            onSuccess: exitCodeOfSummaries,
            onFailure: (cause) => Option.match(Cause.failureOption(cause), { onNone: () => ExitCode.Other, onSome: exitCodeOf })
          })
        )
      ),
      Effect.provide(env),
      Effect.ensuring(Effect.sync(() => unmark())),
      Effect.ensuring(
        options.metricsFile === undefined
          ? Effect.void
          : Effect.suspend(() => publishMetrics(options.metricsFile!, summaries, bill.current))
      )
    )
  })

/** Merges the runs into the metrics file; a failure is a warning line, never the run's ending. */
const publishMetrics = (file: string, summaries: ReadonlyArray<RunSummary>, bill?: Bill | undefined) =>
  Effect.sync(() => {
    if (summaries.length === 0) return
    try {
      writeRunMetrics(file, summaries, Date.now(), bill)
    } catch (e) {
      process.stderr.write(`warning: could not write the metrics file ${file}: ${messageOf(e)}\n`)
    }
  })

/** The end-of-run summary for people. */
export const printSummaries = (summaries: ReadonlyArray<RunSummary>) =>
  Effect.sync(() => {
    const rows = summaries.map((s) => ({
      pipeline: s.pipeline,
      status: s.status + (s.resumed ? " (resumed)" : ""),
      pages: s.totals.pages,
      rows: s.totals.rows,
      rejects: s.totals.rejects,
      missing: s.completeness.missing,
      requests: s.totals.requests,
      retries: s.totals.retries,
      units: s.totals.units,
      planned: s.plan.units,
      // the plan once first pages told the record counts (cursor and offset sources)
      expected: Math.round(s.expected.units * 100) / 100,
      eur: eur(s.totals.units),
      seconds: (s.totals.elapsedMs / 1000).toFixed(1)
    }))
    process.stdout.write(table(rows) + "\n")
    for (const s of summaries) {
      if (s.error) process.stdout.write(`${s.pipeline}: ${s.error}\n`)
      for (const cap of s.completeness.caps.slice(0, 3)) process.stdout.write(`cap: ${cap}\n`)
      if (s.completeness.caps.length > 3)
        process.stdout.write(`cap: ${s.pipeline}: ${s.completeness.caps.length - 3} more capped slices (see _slices)\n`)
      for (const line of s.completeness.caughtUp.slice(0, 3)) process.stdout.write(`caught up: ${line}\n`)
      const closed = Object.entries(s.closed ?? {}).filter(([, n]) => n > 0)
      if (closed.length > 0)
        process.stdout.write(
          `${s.pipeline}: a complete full pull closed what the service no longer lists: ${closed.map(([t, n]) => `${t} ${n}`).join(", ")} (_is_current false)\n`
        )
      if (s.completeness.missing > 0)
        process.stdout.write(`${s.pipeline}: ${s.completeness.missing} key(s) unknown to the service (see _missing)\n`)
    }
  })

export const exitCodeOfSummaries = (summaries: ReadonlyArray<RunSummary>): ExitCode =>
  summaries.find((s) => s.exitCode !== ExitCode.Done)?.exitCode ?? ExitCode.Done
