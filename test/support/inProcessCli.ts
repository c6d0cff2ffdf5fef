/**
 * Runs the CLI in this process (`runCliMain`), capturing what it writes: `cli(args)` for the
 * suites that try many inputs, faults and commands, `runExample(line)` for command lines as a shell
 * would pass them (every example of the help, every recipe of the docs). A child process costs
 * about a second of CPU to start; what it adds (colour off a terminal, exit through `main.js`,
 * signals, a pipe's buffer, another process holding the warehouse) is checked by the suites that
 * spawn the CLI (`cli.ts`).
 */
import { Effect, Exit, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { runCliMain } from "../../src/cli/Cli.js"
import { sandboxEnv } from "./cli.js"
import { captureOutput } from "./capture.js"

/** Commands that serve until stopped: they pass when still serving after a few seconds. */
export const SERVING = ["sandbox", "serve-alerts"]

/** Words of a command line as a POSIX shell splits them: quotes kept together, `*` expanded in `cwd`. */
export const shellWords = (line: string, cwd: string): Array<string> => {
  const words: Array<{ text: string; quoted: boolean }> = []
  let current: { text: string; quoted: boolean } | undefined
  let quote: string | undefined
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else current!.text += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      current ??= { text: "", quoted: true }
      current.quoted = true
    } else if (/\s/.test(ch)) {
      if (current) words.push(current)
      current = undefined
    } else {
      current ??= { text: "", quoted: false }
      current.text += ch
    }
  }
  if (current) words.push(current)
  return words.flatMap(({ text, quoted }) => {
    if (quoted || !text.includes("*")) return [text]
    const dir = path.dirname(text)
    const pattern = new RegExp(`^${path.basename(text).split("*").map(escapeRegExp).join(".*")}$`)
    const found = fs.existsSync(path.join(cwd, dir)) ? fs.readdirSync(path.join(cwd, dir)).filter((f) => pattern.test(f)) : []
    return found.length > 0 ? found.sort().map((f) => path.join(dir, f)) : [text]
  })
}
const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")

export interface Ran {
  readonly code: number | "serving"
  readonly output: string
}

/** Runs one example in this process, in `cwd`, capturing what it writes. */
export const runExample = async (example: string, cwd: string, env: Record<string, string>): Promise<Ran> => {
  const words = shellWords(example, cwd)
  const settings: Record<string, string> = { ...env }
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split("=")
    settings[name!] = value.join("=")
  }
  expect(words[0], example).toBe("estate-etl")
  const captured = captureOutput(settings)
  const before = process.cwd()
  process.chdir(cwd)
  try {
    const fiber = Effect.runFork(runCliMain(["node", ...words]))
    const serving = SERVING.includes(words[1]!)
    const exit = await Effect.runPromise(
      serving
        ? Fiber.await(fiber).pipe(Effect.timeoutTo({ duration: "4 seconds", onSuccess: (e) => e, onTimeout: () => undefined }))
        : Fiber.await(fiber)
    )
    if (exit === undefined) {
      await Effect.runPromise(Fiber.interrupt(fiber))
      return { code: "serving", output: captured.all() }
    }
    return { code: Exit.isSuccess(exit) ? exit.value : -1, output: captured.all() }
  } finally {
    process.chdir(before)
    captured.restore()
  }
}

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
