/**
 * What the example scripts share: their options and the few lines that make a module both a
 * function (tests import `main`) and a script (`npx tsx examples/<name>.ts [outDir]`).
 *
 * Run as scripts, they use the settings of `ESTATE_ETL_CONFIG` (a file path) or else
 * `config/sandbox.json`; with no service configured (`service.target: "sandbox"`, the default)
 * the library starts an embedded sandbox for the session and stops it at the end.
 */
import * as nodePath from "node:path"
import { pathToFileURL } from "node:url"
import type { SandboxHandle, SessionOptions } from "../src/index.js"

export interface ExampleOptions {
  /** Folder the example writes its files to (created when missing). */
  readonly outDir: string
  /** A running sandbox to use (tests); default: what the settings say. */
  readonly sandbox?: SandboxHandle | undefined
  /** Settings object or file; default `ESTATE_ETL_CONFIG`, then `config/sandbox.json`. */
  readonly settings?: SessionOptions["settings"]
  /** Where the printed lines go. Default stdout. */
  readonly print?: ((line: string) => void) | undefined
}

/** The example's `print`. */
export const printer = (options: ExampleOptions) => options.print ?? ((line: string) => void process.stdout.write(line + "\n"))

/** Session options of an example run: memory warehouse, its sandbox and settings. */
export const sessionOptions = (options: ExampleOptions): SessionOptions => ({
  into: "memory",
  sandbox: options.sandbox,
  settings: options.settings ?? process.env.ESTATE_ETL_CONFIG,
  progress: options.sandbox ? "silent" : "auto"
})

/** Runs `main` when the module is the script node was started with. */
export const runIfScript = <A>(moduleUrl: string, main: (options: ExampleOptions) => Promise<A>) => {
  const script = process.argv[1]
  if (script === undefined || pathToFileURL(nodePath.resolve(script)).href !== moduleUrl) return
  const outDir = process.argv[2] ?? nodePath.join("data", "examples")
  main({ outDir }).catch((e: unknown) => {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  })
}
