/**
 * Runs CLI invocations in this process (`runCliMain`), capturing what they write to stdout and
 * stderr, with the sandbox's credentials in the environment: the cheap way to try many inputs
 * and faults (a child process costs 2-3 s of start-up each).
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { runCliMain } from "../../src/cli/Cli.js"
import { sandboxEnv } from "../support/cli.js"

// one place for each: the credentials, the settings writer and the sandbox's totals
export { sandboxEnv, settingsFile } from "../support/cli.js"
export { totalRequests, totalUnits } from "../support/sandbox.js"

export interface Captured {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** stdout and stderr without the JSON progress lines and blank lines: what a person reads. */
  readonly messages: ReadonlyArray<string>
}

let queue: Promise<unknown> = Promise.resolve()

/** One invocation (arguments after the program name); invocations never overlap. */
export const cli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = sandboxEnv()): Promise<Captured> => {
  const next = queue.then(() => capture(args, env))
  queue = next.catch(() => undefined)
  return next
}

const capture = async (args: ReadonlyArray<string>, env: Record<string, string | undefined>): Promise<Captured> => {
  const saved = new Map<string, string | undefined>()
  for (const [k, v] of Object.entries({ SVC_PLATFORM_URL: "", SVC_API_URL: "", ...env })) {
    saved.set(k, process.env[k])
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  let stdout = ""
  let stderr = ""
  const out = process.stdout.write
  const err = process.stderr.write
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write
  // @effect/cli prints its own validation errors through the console
  const consoleSaved = { log: console.log, info: console.info, error: console.error, warn: console.warn }
  console.log = console.info = (...xs: Array<unknown>) => void (stdout += xs.map(String).join(" ") + "\n")
  console.error = console.warn = (...xs: Array<unknown>) => void (stderr += xs.map(String).join(" ") + "\n")
  try {
    const code = await Effect.runPromise(runCliMain(["node", "estate-etl", ...args]))
    return { code, stdout, stderr, messages: (stdout + "\n" + stderr).split("\n").filter((l) => l.trim() !== "" && !l.startsWith("{")) }
  } finally {
    process.stdout.write = out
    process.stderr.write = err
    Object.assign(console, consoleSaved)
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

/** A stack trace line, as Node prints them: never shown to a user. */
export const STACK_LINE = /^\s+at\s.+(\(|:\d+:\d+)/m

/** With RELIABILITY_FIGURES_DIR set, writes `<dir>/<name>.json` (figures for docs/RELIABILITY.md). */
export const writeFigures = (name: string, figures: unknown) => {
  const dir = process.env.RELIABILITY_FIGURES_DIR
  if (!dir) return
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ at: new Date().toISOString(), ...(figures as object) }, null, 2))
}
