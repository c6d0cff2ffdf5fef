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
import { captureOutput } from "../support/capture.js"

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

/** One invocation (arguments after the program name), in `cwd` if given; invocations never overlap. */
export const cli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined> = sandboxEnv(),
  options: { readonly cwd?: string } = {}
): Promise<Captured> => {
  const next = queue.then(() => capture(args, env, options.cwd))
  queue = next.catch(() => undefined)
  return next
}

const capture = async (args: ReadonlyArray<string>, env: Record<string, string | undefined>, cwd?: string): Promise<Captured> => {
  const captured = captureOutput({ SVC_PLATFORM_URL: "", SVC_API_URL: "", ...env })
  const before = process.cwd()
  try {
    if (cwd !== undefined) process.chdir(cwd)
    const code = await Effect.runPromise(runCliMain(["node", "estate-etl", ...args]))
    const [stdout, stderr] = [captured.stdout(), captured.stderr()]
    return { code, stdout, stderr, messages: (stdout + "\n" + stderr).split("\n").filter((l) => l.trim() !== "" && !l.startsWith("{")) }
  } finally {
    process.chdir(before)
    captured.restore()
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
