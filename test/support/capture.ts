/**
 * An in-process CLI call's output: sets environment variables (undefined: unset), takes over
 * `process.stdout` / `process.stderr` writes and the console (which @effect/cli prints its own
 * validation errors through), and puts everything back with `restore()`. One mechanism for the
 * in-process CLI helpers (`inProcessCli.ts`: `cli` and `runExample`; `checkoutCopy.ts`).
 */
export interface CapturedOutput {
  /** What went to stdout (and console.log / console.info). */
  readonly stdout: () => string
  /** What went to stderr (and console.error / console.warn). */
  readonly stderr: () => string
  /** Both, in the order written. */
  readonly all: () => string
  readonly restore: () => void
}

export const captureOutput = (env: Record<string, string | undefined> = {}): CapturedOutput => {
  const saved = new Map<string, string | undefined>()
  for (const [k, v] of Object.entries(env)) {
    saved.set(k, process.env[k])
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  let stdout = ""
  let stderr = ""
  let all = ""
  const toOut = (s: string) => ((stdout += s), (all += s))
  const toErr = (s: string) => ((stderr += s), (all += s))
  const out = process.stdout.write
  const err = process.stderr.write
  const consoleSaved = { log: console.log, info: console.info, error: console.error, warn: console.warn }
  process.stdout.write = ((chunk: string | Uint8Array) => (toOut(String(chunk)), true)) as typeof process.stdout.write
  process.stderr.write = ((chunk: string | Uint8Array) => (toErr(String(chunk)), true)) as typeof process.stderr.write
  console.log = console.info = (...xs: Array<unknown>) => void toOut(xs.map(String).join(" ") + "\n")
  console.error = console.warn = (...xs: Array<unknown>) => void toErr(xs.map(String).join(" ") + "\n")
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    all: () => all,
    restore: () => {
      process.stdout.write = out
      process.stderr.write = err
      Object.assign(console, consoleSaved)
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    }
  }
}
