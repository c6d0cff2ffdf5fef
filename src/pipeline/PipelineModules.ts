/**
 * A repository's own pipeline modules: which files (`settings.pipelineModules`, else the
 * `pipelines/` folder beside the settings file) and what they export. A file that cannot be
 * found, read, imported or that exports no pipeline fails with one `InvalidInput` line naming it
 * (exit 2), before anything is sent.
 *
 * Modules are JavaScript (`.mjs`, `.js`): Node imports them as they are. A TypeScript module
 * (`.ts`, `.mts`) is imported only when this Node strips types itself
 * (`process.features.typescript`, Node 22.18+); otherwise it is refused with what to do instead.
 */
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { pathToFileURL } from "node:url"
import { InvalidInput } from "../shared/InvalidInput.js"
import { isPipeline, type Pipeline } from "./Pipeline.js"

const JAVASCRIPT = /\.(mjs|js)$/
const TYPESCRIPT = /\.(ts|mts)$/
/** Skipped by globs and by the `pipelines/` folder: tests beside their pipeline, declarations. */
const NOT_A_PIPELINE = /\.(test|spec)\.[^.]+$|\.d\.[mc]?ts$/
const GLOB = /[*?]/

/** A module file: its absolute path and how messages show it (relative to the working directory when inside it). */
export interface ModuleFile {
  readonly path: string
  readonly shown: string
}

const shown = (path: string): string => {
  const rel = nodePath.relative(process.cwd(), path)
  return rel !== "" && !rel.startsWith("..") && !nodePath.isAbsolute(rel) ? rel : path
}
const fileOf = (path: string): ModuleFile => ({ path, shown: shown(path) })

/** Whether this Node imports TypeScript by stripping its types. */
export const nodeStripsTypes = (): boolean => Boolean((process.features as { typescript?: unknown }).typescript)

const isDirectory = (p: string) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false

const globRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]")}$`
  )

/** The module files of a folder (or a file-name glob in it), sorted, tests and declarations left out. */
const filesIn = (dir: string, accept: (name: string) => boolean): Array<ModuleFile> =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && accept(e.name) && !NOT_A_PIPELINE.test(e.name))
    .map((e) => e.name)
    .sort()
    .map((name) => fileOf(nodePath.join(dir, name)))

/**
 * The module files the settings name: `pipelineModules` entries (paths or file-name globs,
 * relative to `baseDir`, the settings file's folder), or, when the settings say nothing and
 * come from a file (`discover`), the `*.mjs` / `*.js` files of `<baseDir>/pipelines/`.
 */
export const moduleFiles = (
  entries: ReadonlyArray<string> | undefined,
  baseDir: string,
  options: { readonly discover: boolean; readonly field: string }
): Effect.Effect<ReadonlyArray<ModuleFile>, InvalidInput> =>
  Effect.suspend(() => {
    if (entries === undefined) {
      const dir = nodePath.join(baseDir, "pipelines")
      return Effect.succeed(options.discover && isDirectory(dir) ? filesIn(dir, (n) => JAVASCRIPT.test(n)) : [])
    }
    const out: Array<ModuleFile> = []
    const refuse = (entry: string, detail: string) =>
      Effect.fail(
        new InvalidInput({ field: options.field, detail: `${JSON.stringify(entry)}: ${detail} (relative to ${shown(baseDir) || "."})` })
      )
    for (const entry of entries) {
      const path = nodePath.resolve(baseDir, entry)
      const dir = nodePath.dirname(path)
      const name = nodePath.basename(path)
      let found: Array<ModuleFile>
      if (GLOB.test(nodePath.dirname(entry))) return refuse(entry, "only the file name may hold * or ?")
      if (GLOB.test(name)) {
        if (!isDirectory(dir)) return refuse(entry, `no folder ${shown(dir)}`)
        const pattern = globRegExp(name)
        found = filesIn(dir, (n) => pattern.test(n) && (JAVASCRIPT.test(n) || TYPESCRIPT.test(n)))
        if (found.length === 0) return refuse(entry, "matches no module file")
      } else {
        if (!fs.existsSync(path)) return refuse(entry, "no such file")
        found = [fileOf(path)]
      }
      for (const f of found) if (!out.some((o) => o.path === f.path)) out.push(f)
    }
    return Effect.succeed(out)
  })

/**
 * The user's module files for settings read from `settingsPath` (module paths are relative to its
 * folder, and only a file's folder is searched for a `pipelines/` folder), or given as an object
 * (`undefined`: relative to the working directory, no search).
 */
export const settingsModuleFiles = (
  pipelineModules: ReadonlyArray<string> | undefined,
  settingsPath: string | undefined
): Effect.Effect<ReadonlyArray<ModuleFile>, InvalidInput> =>
  moduleFiles(pipelineModules, settingsPath === undefined ? process.cwd() : nodePath.dirname(nodePath.resolve(settingsPath)), {
    discover: settingsPath !== undefined,
    field: `${settingsPath ?? "settings"}: pipelineModules`
  })

/**
 * The line of a syntax error: an import's `SyntaxError` does not say where it is (Node prints the
 * place only for an uncaught one), so `node --check` reads the file once more, on this path only.
 */
const syntaxErrorLine = (path: string): string | undefined => {
  const checked = spawnSync(process.execPath, ["--check", path], { encoding: "utf8", timeout: 10_000 })
  return /:(\d+)\r?\n/.exec(checked.stderr ?? "")?.[1]
}

/** An import failure as one line, with a hint for the usual causes. */
const importFailure = (file: ModuleFile, error: unknown): string => {
  // an Error, or (from some loaders) an error-like object
  const e: { name: string; message: string; stack?: string | undefined } =
    typeof error === "object" && error !== null && typeof (error as Error).message === "string"
      ? { name: String((error as Error).name ?? "Error"), message: (error as Error).message, stack: (error as Error).stack }
      : { name: "Error", message: String(error) }
  const first = (e.message.split("\n").find((l) => l.trim() !== "") ?? "").trim()
  const line = e.name === "SyntaxError" ? syntaxErrorLine(file.path) : undefined
  const hint = /Cannot use import statement outside a module|require is not defined in ES module/.test(first)
    ? ` (name it .mjs, or set "type": "module" in package.json)`
    : /Cannot find (package|module) 'estate-etl'/.test(first)
      ? " (install estate-etl in this repository: npm install estate-etl)"
      : ""
  return `cannot be imported: ${e.name}: ${first}${line ? ` (line ${line})` : ""}${hint}`
}

/** The `type` of the package.json nearest to `path` (`commonjs` when none says otherwise). */
const packageType = (path: string): string => {
  for (let dir = nodePath.dirname(path); ; dir = nodePath.dirname(dir)) {
    const pkg = nodePath.join(dir, "package.json")
    if (fs.existsSync(pkg)) {
      try {
        return String((JSON.parse(fs.readFileSync(pkg, "utf8")) as { type?: unknown }).type ?? "commonjs")
      } catch {
        return "commonjs"
      }
    }
    if (nodePath.dirname(dir) === dir) return "commonjs"
  }
}

const ESM_SYNTAX = /^[ \t]*(import[ \t]*[\w{*"']|export[ \t])/m

/**
 * A `.js` module written with `import`/`export` in a package that is not `"type": "module"`:
 * Node would fail on it, or load it only after printing a warning on every command, so it is
 * refused up front with the fix.
 */
const esmInCommonJs = (path: string): boolean =>
  path.endsWith(".js") && packageType(path) !== "module" && ESM_SYNTAX.test(fs.readFileSync(path, "utf8"))

/**
 * The pipelines a module file exports: its default export, which must be a pipeline when there is
 * one, and any named export made with `definePipeline` (each once).
 */
export const importPipelines = (file: ModuleFile): Effect.Effect<ReadonlyArray<Pipeline>, InvalidInput> => {
  const refuse = (detail: string) => Effect.fail(new InvalidInput({ field: file.shown, detail }))
  if (TYPESCRIPT.test(file.path) && !nodeStripsTypes())
    return refuse(
      `Node ${process.versions.node} cannot import TypeScript; write the module as .mjs or .js (JSDoc types), or compile it to JavaScript`
    )
  if (!JAVASCRIPT.test(file.path) && !TYPESCRIPT.test(file.path)) return refuse("not a JavaScript module: use a .mjs or .js file")
  if (esmInCommonJs(file.path))
    return refuse(`uses import/export but its package.json is not "type": "module"; name it .mjs, or set "type": "module" in package.json`)
  return Effect.tryPromise({
    try: () => import(pathToFileURL(file.path).href) as Promise<Record<string, unknown>>,
    catch: (error) => new InvalidInput({ field: file.shown, detail: importFailure(file, error) })
  }).pipe(
    Effect.flatMap((ns) => {
      const found: Array<Pipeline> = []
      if (ns.default !== undefined) {
        if (!isPipeline(ns.default))
          return refuse(`its default export is not a pipeline made with definePipeline (got ${typeof ns.default})`)
        found.push(ns.default)
      }
      for (const [k, v] of Object.entries(ns)) if (k !== "default" && isPipeline(v) && !found.includes(v)) found.push(v)
      return found.length > 0
        ? Effect.succeed(found)
        : refuse(`exports no pipeline: export default definePipeline({...}) (or derivePipeline(...)) from "estate-etl"`)
    })
  )
}
