/**
 * A run in progress, as `status` and `query` tell it from the run-state file
 * (`monitor/RunStateFile.ts`) while the run holds the warehouse: who, since when, the pipeline
 * running now with its slices, pages, rows, units, rate and ETA, the pipelines done and pending,
 * the last error. Text only; nothing here opens DuckDB.
 */
import * as os from "node:os"
import type { RunState } from "../monitor/RunStateFile.js"
import { grouped } from "./Format.js"
import { clock } from "./LockWait.js"

const ago = (iso: string, now: number) => {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  return s < 120 ? `${s}s ago` : `${Math.round(s / 60)}m ago`
}

const duration = (seconds: number) =>
  seconds < 90 ? `${seconds}s` : seconds < 5400 ? `${Math.round(seconds / 60)}m` : `${(seconds / 3600).toFixed(1)}h`

/** `PID 123` (and the host when it is another machine's). */
const pidOf = (s: RunState) => `PID ${s.pid}${s.host !== os.hostname() ? ` on host ${s.host}` : ""}`

/** One line of the pipeline running now: `plots-germany: 3 of 10 slices done, 7 pending; 45 pages of ~120, ...`. */
export const currentLine = (s: RunState): string | undefined => {
  const c = s.current
  if (c === undefined) return undefined
  const pages =
    c.expectedPages !== undefined && c.expectedPages >= c.pages
      ? `${grouped(c.pages)} pages of ~${grouped(c.expectedPages)}`
      : `${grouped(c.pages)} pages`
  return (
    `${c.pipeline}${c.resumed ? " (resumed)" : ""}: ${c.slices.done} of ${c.slices.total} slices done, ${c.slices.pending} pending; ` +
    `${pages}, ${grouped(c.rows)} rows, ${grouped(c.units)} units (plan ${grouped(c.plannedUnits)}), ${c.rate} req/s` +
    (c.etaSeconds !== undefined ? `, ETA ${duration(c.etaSeconds)}` : "")
  )
}

/** What `status` prints while a run holds the warehouse. */
export const liveText = (s: RunState, now: number = Date.now()): string => {
  const done = s.pipelines.filter((p) => p.state !== "pending" && p.state !== "running")
  const pending = s.pipelines.filter((p) => p.state === "pending").map((p) => p.name)
  const lines = [
    `running since ${clock(s.startedAt)}, ${pidOf(s)}: ${s.command} against ${s.target}`,
    `  now: ${currentLine(s) ?? "(between pipelines)"}`,
    ...(done.length > 0 ? [`  ended: ${done.map((p) => `${p.name} ${p.state === "skipped" ? "not run" : p.state}`).join(", ")}`] : []),
    ...(pending.length > 0 ? [`  pending: ${pending.join(", ")}`] : []),
    ...(s.lastError ? [`  last error: ${s.lastError}`] : []),
    `  updated ${ago(s.updatedAt, now)} (${s.warehouse}.run.json)`,
    "The run holds the warehouse: `status --watch` follows it; `status` shows the runs and checkpoints once it has ended."
  ]
  return lines.join("\n") + "\n"
}

/** One line per update for `status --watch`. */
export const watchLine = (s: RunState): string => `${clock(s.updatedAt)} ${currentLine(s) ?? `${s.command}: between pipelines`}`

/** How a run command that is no longer running ended, in one line. */
export const endedLine = (s: RunState, stale: boolean): string =>
  stale
    ? `${s.command} (${pidOf(s)}, started ${clock(s.startedAt)}) stopped without finishing: its process is gone since about ${clock(s.updatedAt)} (killed or crashed)` +
      `${s.current ? ` while ${s.current.pipeline} ran` : ""}; \`run\` resumes its unfinished pipelines`
    : `${s.command} (${pidOf(s)}) ended ${s.endedAt ? clock(s.endedAt) : ""} with exit code ${s.exitCode ?? "?"}`
