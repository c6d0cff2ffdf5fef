/**
 * Waiting for a warehouse another process holds. DuckDB's lock is per process and not blocking:
 * while a run, the webhook receiver's spool load or another command has the file open, an open
 * fails at once. Commands therefore try again, backing off, for `--lock-wait` (default 30 s: many
 * times what a receiver's load takes), with one line on stderr saying who holds it and for how
 * long they wait; beyond it, the one-line `Locked` error, exit 2.
 *
 * Who holds it is read from the run-state file (`monitor/RunStateFile.ts`): a run names its
 * command and start; anything else (or a run that has not written its file yet) is named by its
 * PID and, where the system shows it (`/proc`), its command line.
 */
import { Options } from "@effect/cli"
import { Duration, Effect, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import type { OpenOptions } from "../load/Database.js"
import type { WarehouseError } from "../load/WarehouseError.js"
import { type RunState, viewRunState } from "../monitor/RunStateFile.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { redactText } from "../shared/Redaction.js"

/** What `--lock-wait` is when not given. */
export const DEFAULT_LOCK_WAIT = "30s"

export const lockWaitOption = Options.text("lock-wait").pipe(
  Options.optional,
  Options.withDescription(`How long to wait for a warehouse another process holds: 30s, 2m, 0 (default ${DEFAULT_LOCK_WAIT})`)
)

const UNITS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const

/** A duration in ms (`500ms`, `30s`, `2m`, `1h`; a bare number is seconds; `0`); `undefined` when it is none. */
export const lockWaitMs = (text: string): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim())
  return m === null ? undefined : Math.round(Number(m[1]) * UNITS[(m[2] ?? "s") as keyof typeof UNITS])
}

export const DEFAULT_LOCK_WAIT_MS = lockWaitMs(DEFAULT_LOCK_WAIT)!

/** `--lock-wait`, or `fallback` when not given, in ms; anything but a duration is bad input. */
export const parseLockWait = (text: Option.Option<string>, fallback: string = DEFAULT_LOCK_WAIT): Effect.Effect<number, InvalidInput> => {
  const raw = Option.getOrElse(text, () => fallback)
  const ms = lockWaitMs(raw)
  return ms === undefined
    ? Effect.fail(new InvalidInput({ field: "--lock-wait", detail: `a duration such as 30s, 2m or 0 (got "${raw}")` }))
    : Effect.succeed(ms)
}

export const clock = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$/, "Z")

/** `a run (run nightly, PID 123, since 2026-11-26 02:30:01Z)`. */
export const runText = (s: RunState) =>
  `a run (${s.command}, PID ${s.pid}${s.host !== os.hostname() ? ` on ${s.host}` : ""}, since ${clock(s.startedAt)})`

/** Who holds the warehouse at `warehouse`, in words: the run of the run-state file when it is that PID, else the PID. */
export const holderOf = (warehouse: string, pid: number | undefined): { readonly text: string; readonly run: RunState | undefined } => {
  const view = viewRunState(warehouse)
  if (view.kind === "live" && (pid === undefined || view.state.pid === pid)) return { text: runText(view.state), run: view.state }
  if (pid === undefined) return { text: "another process", run: undefined }
  const command = commandLineOf(pid)
  return { text: `PID ${pid} (${command ?? "the webhook receiver's spool load or another command"})`, run: undefined }
}

/**
 * A process's command line from `/proc` (Linux), shortened: the CLI as `estate-etl <args>`, at most
 * 100 characters, anything like a credential redacted; undefined where the system does not show it.
 */
const commandLineOf = (pid: number): string | undefined => {
  try {
    const args = fs
      .readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a !== "")
    if (args.length === 0) return undefined
    const cli = args.findIndex((a) => /(?:^|\/)(?:main\.js|bin\.cjs|estate-etl)$/.test(a))
    const words = cli >= 0 ? ["estate-etl", ...args.slice(cli + 1)] : [nodePath.basename(args[0]!), ...args.slice(1)]
    // one line, whatever the arguments hold (a script given with -e has newlines)
    const text = redactText(words.join(" ").replace(/\s+/g, " ").trim())
    return text.length > 100 ? `${text.slice(0, 99)}…` : text
  } catch {
    return undefined
  }
}

const seconds = (ms: number) => (!Number.isFinite(ms) ? "its end" : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`)

/**
 * Open options that wait `waitMs` for the warehouse at `warehouse`, saying once on stderr who
 * holds it (a JSON line when `json`, as a run's progress is off a terminal). `onHeld` runs first
 * and may refuse to wait (fail), or note the wait (a run leaves its waiting marker).
 */
export const lockWait = (
  warehouse: string,
  waitMs: number,
  options: {
    readonly json?: boolean | undefined
    readonly onHeld?: ((holder: ReturnType<typeof holderOf>, e: WarehouseError) => Effect.Effect<void, WarehouseError>) | undefined
  } = {}
): Pick<OpenOptions, "lockTimeout" | "onLocked"> => ({
  lockTimeout: Number.isFinite(waitMs) ? Duration.millis(waitMs) : Duration.infinity,
  onLocked: (e) =>
    Effect.gen(function* () {
      const holder = holderOf(warehouse, e.holderPid)
      if (options.onHeld) yield* options.onHeld(holder, e)
      const line = `waiting for the warehouse ${e.path ?? warehouse}: ${holder.text} holds it; up to ${seconds(waitMs)} (${Number.isFinite(waitMs) ? "--lock-wait" : "--wait"})`
      process.stderr.write(
        options.json
          ? JSON.stringify({
              at: new Date().toISOString(),
              type: "waiting",
              warehouse: e.path ?? warehouse,
              holderPid: e.holderPid,
              seconds: Number.isFinite(waitMs) ? waitMs / 1000 : null,
              message: line
            }) + "\n"
          : `${line}\n`
      )
    })
})
