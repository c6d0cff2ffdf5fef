/**
 * The run-state file: what a `run` command is doing, beside the warehouse it holds
 * (`<warehouse>.run.json`), for the commands that cannot open the warehouse meanwhile (DuckDB's
 * lock is per process: while a run holds the file, another process cannot open it, even
 * read-only). `status` reads it and says "running since ..., PID ...", `status --watch` follows it,
 * `query` names the run it would wait for, and the webhook receiver's loader yields to it.
 *
 * Written only by the process that holds the warehouse: once it is open, after every landed group
 * of pages and when each pipeline ends, and a last time (`finished`) when the command ends. Each
 * write goes to a temporary file in the same folder, then a rename, so a reader sees the old state
 * or the new one, never half a file. A run that is still waiting for the lock writes a marker of
 * its own instead (`<warehouse>.run-wait.<pid>`, removed when the wait ends), so it never
 * overwrites the state of the run that holds the file.
 *
 * It never holds a secret: pipeline names, run ids, counts, times, the service's URLs without user
 * or query, and the error lines the run prints (which never carry credentials).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { writeAtomically } from "./PrometheusFile.js"
import { pidAlive } from "../shared/ProcessAlive.js"

/** The version of the file's shape; a reader refuses other versions as unreadable. */
export const RUN_STATE_FORMAT = 1

/** A pipeline of the command: waiting its turn, running, ended (its `_runs.status`), or not run. */
export type PipelineState = "pending" | "running" | "done" | "paused" | "failed" | "incomplete" | "interrupted" | "skipped"

export interface PipelineEntry {
  readonly name: string
  readonly state: PipelineState
  readonly runId?: string | undefined
  /** Why it ended short, or why it was not run (`skipped`): one line. */
  readonly error?: string | undefined
}

/** The pipeline running now, as of its last landed group of pages. */
export interface CurrentRun {
  readonly pipeline: string
  readonly runId: string
  readonly resumed: boolean
  readonly startedAt: string
  readonly slices: { readonly total: number; readonly done: number; readonly pending: number }
  readonly pages: number
  /** Pages the plan (refined by first pages) expects, when it knows. */
  readonly expectedPages?: number | undefined
  readonly records: number
  readonly rows: number
  readonly rejects: number
  readonly units: number
  readonly plannedUnits: number
  readonly requests: number
  readonly retries: number
  /** Answers 429 among the requests. */
  readonly throttled: number
  readonly elapsedSeconds: number
  /** Requests a second since the pipeline started. */
  readonly rate: number
  /** Seconds left at the pace so far, when the expected pages are known. */
  readonly etaSeconds?: number | undefined
}

export interface RunState {
  readonly format: typeof RUN_STATE_FORMAT
  /** `running` while the command holds the warehouse; `finished` once it let go. */
  readonly state: "running" | "finished"
  readonly pid: number
  readonly host: string
  /** The command as given, without parameters: `run nightly`. */
  readonly command: string
  /** Where it is pointed: `sandbox (embedded)` or the service's URLs. */
  readonly target: string
  /** The warehouse file (absolute). */
  readonly warehouse: string
  readonly startedAt: string
  readonly updatedAt: string
  readonly endedAt?: string | undefined
  readonly exitCode?: number | undefined
  readonly pipelines: ReadonlyArray<PipelineEntry>
  readonly current?: CurrentRun | undefined
  /** The last error line of the command (a pipeline that ended short), `pipeline: message`. */
  readonly lastError?: string | undefined
}

/** The run-state file of the warehouse at `warehouse`. */
export const runStatePath = (warehouse: string) => `${nodePath.resolve(warehouse)}.run.json`

const WAIT_MARK = ".run-wait."

/** The marker a run waiting for the warehouse at `warehouse` leaves while it waits. */
export const waitMarkerPath = (warehouse: string, pid: number = process.pid) => `${nodePath.resolve(warehouse)}${WAIT_MARK}${pid}`

export const writeRunState = (file: string, state: RunState): void => writeAtomically(file, JSON.stringify(state, null, 2) + "\n")

/** The state in `file`; `undefined` when there is none, or it cannot be read (a reader then knows nothing). */
export const readRunState = (file: string): RunState | undefined => {
  try {
    const json = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<RunState> | null
    if (json === null || json.format !== RUN_STATE_FORMAT || typeof json.pid !== "number" || !Array.isArray(json.pipelines))
      return undefined
    return json as RunState
  } catch {
    return undefined
  }
}

/**
 * Whether process `pid` of `host` still runs: `undefined` on another host (a warehouse on a shared
 * folder), where this machine cannot tell.
 */
export const processAlive = (pid: number, host: string = os.hostname()): boolean | undefined =>
  host !== os.hostname() ? undefined : pidAlive(pid)

/** What the run-state file says about the warehouse now. */
export type RunStateView =
  /** No file (nothing has run since this version), or an unreadable one. */
  | { readonly kind: "none" }
  /** A run command that ended (`finished`), or that is gone (`stale`: killed or crashed while running). */
  | { readonly kind: "finished"; readonly state: RunState }
  | { readonly kind: "stale"; readonly state: RunState }
  /** A run command whose process runs (or runs on another host): it holds the warehouse, or is about to let go. */
  | { readonly kind: "live"; readonly state: RunState; readonly elsewhere: boolean }

export const viewRunState = (warehouse: string): RunStateView => {
  const state = readRunState(runStatePath(warehouse))
  if (state === undefined) return { kind: "none" }
  if (state.state === "finished") return { kind: "finished", state }
  const alive = processAlive(state.pid, state.host)
  return alive === false ? { kind: "stale", state } : { kind: "live", state, elsewhere: alive === undefined }
}

/** PIDs of the runs waiting for the warehouse at `warehouse` now (markers of processes gone are removed). */
export const waitingRuns = (warehouse: string): Array<number> => {
  const absolute = nodePath.resolve(warehouse)
  const dir = nodePath.dirname(absolute)
  const prefix = `${nodePath.basename(absolute)}${WAIT_MARK}`
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((n) => n.startsWith(prefix))
  } catch {
    return []
  }
  return names.flatMap((name) => {
    const pid = Number(name.slice(prefix.length))
    if (!Number.isSafeInteger(pid) || pid <= 0) return []
    if (processAlive(pid) !== false) return [pid]
    fs.rmSync(nodePath.join(dir, name), { force: true })
    return []
  })
}

/** Leaves the marker of a run waiting for the warehouse; the returned function removes it. */
export const markWaiting = (warehouse: string): (() => void) => {
  const file = waitMarkerPath(warehouse)
  try {
    fs.writeFileSync(file, `${new Date().toISOString()}\n`)
  } catch {
    // a folder the run cannot write fails the run later, with its own message
    return () => undefined
  }
  return () => fs.rmSync(file, { force: true })
}

/** A service URL without user, password, query or fragment (what the state file and the first line show). */
export const displayUrl = (url: string): string => {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`
  } catch {
    return "(not a URL)"
  }
}
