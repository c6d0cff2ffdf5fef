/**
 * A `run` command as others see it while it runs: the run-state file beside the warehouse
 * (`RunStateFile.ts`), rewritten when the warehouse is open, after each landed group of pages and
 * when each pipeline ends, and the metrics file (`PrometheusFile.ts`), rewritten with the run in
 * progress at most once a second. Both follow the run's progress events, so the runner itself
 * knows nothing of files; a write that fails is one warning line, never the run's ending.
 */
import { Effect, Layer } from "effect"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Progress, type RunEvent, type Totals } from "../pipeline/Progress.js"
import { messageOf } from "../shared/ErrorClass.js"
import { writeProgressMetrics } from "./PrometheusFile.js"
import type { RunInProgress } from "./RunFigures.js"
import { type CurrentRun, type PipelineEntry, RUN_STATE_FORMAT, type RunState, runStatePath, writeRunState } from "./RunStateFile.js"

export interface LiveRunOptions {
  readonly warehouse: string
  /** `run nightly` (names only, never parameters). */
  readonly command: string
  /** `sandbox (embedded)` or the service's URLs (`RunStateFile.displayUrl`). */
  readonly target: string
  /** The pipelines the command will run, in order. */
  readonly pipelines: ReadonlyArray<string>
  /** The metrics file to keep current while pipelines run (none: no such writes). */
  readonly metricsFile?: string | undefined
  /** Least time between two writes of the metrics file while a pipeline runs. Default 1000 ms. */
  readonly metricsEveryMs?: number | undefined
}

export interface LiveRun {
  /** Wraps the progress output: each event updates the state (and the files) first. */
  readonly progress: (inner: Layer.Layer<Progress>) => Layer.Layer<Progress>
  /** The command holds the warehouse: the first write. */
  readonly begin: Effect.Effect<void>
  /** A pipeline the command will not run, and why (one line). */
  readonly skip: (pipeline: string, reason: string) => Effect.Effect<void>
  /** The command ends with `exitCode`: the last write (`finished`); only once `begin` ran. */
  readonly end: (exitCode: number) => Effect.Effect<void>
}

const iso = (ms: number) => new Date(ms).toISOString()

export const makeLiveRun = (options: LiveRunOptions): LiveRun => {
  const file = runStatePath(options.warehouse)
  const every = options.metricsEveryMs ?? 1000
  const started = Date.now()
  let begun = false
  let warned = false
  let metricsAt = 0
  let pipelines: Array<PipelineEntry> = options.pipelines.map((name) => ({ name, state: "pending" }))
  let current: CurrentRun | undefined
  let lastError: string | undefined
  let ended: { readonly at: number; readonly exitCode: number } | undefined

  const state = (): RunState => ({
    format: RUN_STATE_FORMAT,
    state: ended ? "finished" : "running",
    pid: process.pid,
    host: os.hostname(),
    command: options.command,
    target: options.target,
    warehouse: nodePath.resolve(options.warehouse),
    startedAt: iso(started),
    updatedAt: iso(Date.now()),
    ...(ended ? { endedAt: iso(ended.at), exitCode: ended.exitCode } : {}),
    pipelines,
    ...(current ? { current } : {}),
    ...(lastError ? { lastError } : {})
  })

  const guarded = (what: string, f: () => void) => {
    try {
      f()
    } catch (e) {
      if (warned) return
      warned = true
      process.stderr.write(`warning: could not write ${what}: ${messageOf(e)}; the run goes on\n`)
    }
  }
  const write = () => {
    if (begun) guarded(`the run-state file ${file}`, () => writeRunState(file, state()))
  }
  const writeMetrics = (force: boolean) => {
    const metrics = options.metricsFile
    if (metrics === undefined || current === undefined || !begun) return
    const now = Date.now()
    if (!force && now - metricsAt < every) return
    metricsAt = now
    const run: RunInProgress = {
      pipeline: current.pipeline,
      resumed: current.resumed,
      plannedUnits: current.plannedUnits,
      totals: totalsOf(current)
    }
    guarded(`the metrics file ${metrics}`, () => writeProgressMetrics(metrics, run, now))
  }
  const setEntry = (name: string, entry: Omit<PipelineEntry, "name">) => {
    const known = pipelines.some((p) => p.name === name)
    pipelines = known ? pipelines.map((p) => (p.name === name ? { name, ...entry } : p)) : [...pipelines, { name, ...entry }]
  }

  const observe = (event: RunEvent) => {
    switch (event.type) {
      case "run_started": {
        setEntry(event.pipeline, { state: "running", runId: event.runId })
        current = {
          pipeline: event.pipeline,
          runId: event.runId,
          resumed: event.resumed,
          startedAt: iso(Date.now()),
          slices: { total: event.slices, done: 0, pending: event.slices },
          pages: 0,
          expectedPages: event.planned.pages,
          records: 0,
          rows: 0,
          rejects: 0,
          units: 0,
          plannedUnits: event.planned.units,
          requests: 0,
          retries: 0,
          throttled: 0,
          elapsedSeconds: 0,
          rate: 0
        }
        write()
        writeMetrics(true)
        return
      }
      case "page_committed":
        if (current?.runId === event.runId) current = { ...current, ...figures(event.totals) }
        return
      case "group_landed":
        if (current?.runId !== event.runId) return
        current = {
          ...current,
          ...figures(event.totals),
          slices: { total: event.slices.total, done: event.slices.done, pending: Math.max(0, event.slices.total - event.slices.done) }
        }
        write()
        writeMetrics(false)
        return
      case "run_finished":
        setEntry(event.pipeline, {
          state: event.status as PipelineEntry["state"],
          runId: event.runId,
          ...(event.error ? { error: event.error } : {})
        })
        if (event.error) lastError = `${event.pipeline}: ${event.error}`
        if (current?.runId === event.runId) current = undefined
        write()
        return
    }
  }

  return {
    progress: (inner) =>
      Layer.effect(
        Progress,
        Effect.map(Progress, (p) => ({
          emit: (event: RunEvent) =>
            Effect.zipRight(
              Effect.sync(() => observe(event)),
              p.emit(event)
            )
        }))
      ).pipe(Layer.provide(inner)),
    begin: Effect.sync(() => {
      begun = true
      write()
    }),
    skip: (pipeline, reason) =>
      Effect.sync(() => {
        setEntry(pipeline, { state: "skipped", error: reason })
        write()
      }),
    end: (exitCode) =>
      Effect.sync(() => {
        if (!begun || ended) return
        ended = { at: Date.now(), exitCode }
        current = undefined
        write()
      })
  }
}

/** The figures of a `CurrentRun` from the run's totals. */
const figures = (t: Totals) => {
  const seconds = t.elapsedMs / 1000
  const eta =
    t.expectedPages !== undefined && t.pages > 0 && t.pages < t.expectedPages
      ? Math.round(((t.expectedPages - t.pages) * t.elapsedMs) / t.pages / 1000)
      : undefined
  return {
    pages: t.pages,
    ...(t.expectedPages !== undefined ? { expectedPages: t.expectedPages } : {}),
    records: t.records,
    rows: t.rows,
    rejects: t.rejects,
    units: t.units,
    requests: t.requests,
    retries: t.retries,
    throttled: t.throttled,
    elapsedSeconds: Math.round(seconds * 10) / 10,
    rate: seconds > 0 ? Math.round((t.requests / seconds) * 10) / 10 : 0,
    etaSeconds: eta
  }
}

const totalsOf = (c: CurrentRun): Totals => ({
  pages: c.pages,
  records: c.records,
  rows: c.rows,
  rejects: c.rejects,
  units: c.units,
  requests: c.requests,
  retries: c.retries,
  throttled: c.throttled,
  elapsedMs: c.elapsedSeconds * 1000,
  expectedPages: c.expectedPages
})
