/**
 * A copy of this checkout's code (`src/` and `pipelines/`) that a test may change, for tests of
 * what adding to the code does (a new built-in pipeline: its file and its catalogue line). The copy
 * lives under the repository's ignored `tmp/` folder, so its imports of `effect`, DuckDB and the
 * rest resolve to this checkout's `node_modules` (nothing installed, nothing linked), and the
 * checkout's own files are never touched.
 *
 * - `copyCheckout(prefix)`: the copy, with `addBuiltIn` (one file plus its import and its entry in
 *   the copy's `pipelines/index.ts`), `cli(args, env)` (the copy's CLI in this process, its output
 *   captured) and `remove()`.
 * - `typeErrors(files)`: what `tsc --strict` says about these files (a copy's included), checked
 *   with the checkout's tsconfig as `test/library/typed.test.ts` checks the library's usage, in a
 *   child process.
 */
import { Effect, Exit } from "effect"
import { captureOutput } from "./capture.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { execFile } from "node:child_process"
import { promisify } from "node:util"

const ROOT = path.resolve(import.meta.dirname, "../..")
const execFileAsync = promisify(execFile)

export interface CliRun {
  readonly code: number
  readonly output: string
}

export interface CheckoutCopy {
  /** The copy's root: `src/`, `pipelines/` as in this checkout. */
  readonly dir: string
  /**
   * A new built-in pipeline: `pipelines/<file>` with `source`, and in `pipelines/index.ts` its
   * import and its entry in the list, after `after`'s entry (default: last).
   */
  readonly addBuiltIn: (options: {
    readonly file: string
    readonly source: string
    readonly binding: string
    readonly after?: string
  }) => void
  /** `estate-etl <args>` of the copy, in this process, with `env` set meanwhile; output captured. */
  readonly cli: (args: ReadonlyArray<string>, env?: Record<string, string>) => Promise<CliRun>
  readonly remove: () => void
}

export const copyCheckout = (prefix: string): CheckoutCopy => {
  const parent = path.join(ROOT, "tmp")
  fs.mkdirSync(parent, { recursive: true })
  const dir = fs.mkdtempSync(path.join(parent, `${prefix}-`))
  for (const folder of ["src", "pipelines"]) fs.cpSync(path.join(ROOT, folder), path.join(dir, folder), { recursive: true })
  fs.copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"))

  const addBuiltIn: CheckoutCopy["addBuiltIn"] = ({ file, source, binding, after }) => {
    fs.writeFileSync(path.join(dir, "pipelines", file), source)
    const index = path.join(dir, "pipelines/index.ts")
    const text = fs.readFileSync(index, "utf8")
    const imports = [...text.matchAll(/^import .*\n/gm)]
    const lastImport = imports[imports.length - 1]!
    const importLine = `import ${binding} from "./${file.replace(/\.ts$/, ".js")}"\n`
    let withImport =
      text.slice(0, lastImport.index + lastImport[0].length) + importLine + text.slice(lastImport.index + lastImport[0].length)
    const list = /const builtIns = \[\n([\s\S]*?)\n\] as const/.exec(withImport)
    if (list === null) throw new Error("pipelines/index.ts: no `const builtIns = [...] as const` list")
    const entries = list[1]!.split("\n")
    const at = after === undefined ? entries.length : entries.findIndex((l) => l.trim() === `${after},` || l.trim() === after) + 1
    if (at === 0) throw new Error(`pipelines/index.ts: no entry ${after}`)
    // the list's last entry has no comma: give every entry one, the new one included
    const next = [...entries.slice(0, at), `  ${binding}`, ...entries.slice(at)].map((l, i, all) =>
      l.trim() === "" || l.trim().startsWith("//") || l.trim().endsWith(",") || i === all.length - 1 ? l : `${l},`
    )
    withImport = withImport.replace(list[1]!, next.join("\n"))
    fs.writeFileSync(index, withImport)
  }

  const cli: CheckoutCopy["cli"] = async (args, env = {}) => {
    const { runCliMain } = (await import(path.join(dir, "src/cli/Cli.ts"))) as typeof import("../../src/cli/Cli.js")
    const captured = captureOutput(env)
    try {
      const exit = await Effect.runPromiseExit(runCliMain(["node", "estate-etl", ...args]))
      return { code: Exit.isSuccess(exit) ? exit.value : -1, output: captured.all() }
    } finally {
      captured.restore()
    }
  }

  return { dir, addBuiltIn, cli, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/**
 * The checker `typeErrors` runs in a child process (`node -e`, from this checkout, so `typescript`
 * resolves here): a program over the files, with the checkout's compiler options, `strict`.
 */
const CHECKER = `
import ts from "typescript"
import * as path from "node:path"
const [tsconfig, typeRoots, ...files] = process.argv.slice(1)
const parsed = ts.getParsedCommandLineOfConfigFile(
  tsconfig,
  { noEmit: true, strict: true, typeRoots: [typeRoots] },
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} }
)
const program = ts.createProgram({ rootNames: files, options: parsed.options })
const roots = files.map((f) => program.getSourceFile(f))
const errors = [
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...roots.flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)])
]
  .filter((d) => d.category === ts.DiagnosticCategory.Error)
  .map((d) => {
    const where = d.file ? path.basename(d.file.fileName) + "(" + (d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1) + ")" : ""
    return where + ": TS" + d.code + " " + ts.flattenDiagnosticMessageText(d.messageText, " ")
  })
process.stdout.write(JSON.stringify(errors))
`

/**
 * `tsc --strict` over `files` (the types they use resolved as needed, the rest unchecked), with
 * this checkout's compiler options: each error as `file(line): TSnnnn message`. In a child
 * process: a program over the library's types takes seconds of CPU, which this test worker's
 * event loop (and vitest's calls to it) should not wait behind.
 */
export const typeErrors = async (files: ReadonlyArray<string>): Promise<Array<string>> => {
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--input-type=module", "-e", CHECKER, path.join(ROOT, "tsconfig.json"), path.join(ROOT, "node_modules/@types"), ...files],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }
  )
  return JSON.parse(stdout) as Array<string>
}
