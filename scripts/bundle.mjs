/**
 * Bundles the compiled library and CLI (dist/src, from `tsc -p tsconfig.build.json`) into
 * dist/bundle/: `index.mjs` (the package's entry) and `main.mjs` (the CLI), sharing
 * chunks so a user's pipeline module that imports "estate-etl" gets the same module instances as
 * the CLI that loads it. Why: a process that loads a few hundred ES modules spends most of its
 * start resolving and opening them (measured: `estate-etl list` 1.8 s of CPU unbundled, 0.8 s
 * bundled). Lazy `import()`s stay lazy (their chunks load on use: the sandbox, the webhook
 * receiver). DuckDB's native bindings and apache-arrow stay external packages.
 *
 * DuckDB loads on first use (`src/load/DuckDbApi.ts`), and so do undici and fast-check (`lazyDependencies` below):
 * every command's module graph reaches both, and each cost a CLI process CPU even for `--version`,
 * a bad flag or `plan`. apache-arrow is imported only by an Arrow export (`src/export/Export.ts`),
 * for the same reason.
 *
 * `main.js`, the `estate-etl` bin, is `src/cli/bin.cjs`: it sizes libuv's threadpool before the ES
 * modules load, then imports `main.mjs`. The folder's own package.json makes its `.js` CommonJS.
 */
import { build } from "esbuild"
import * as fs from "node:fs"

/**
 * Some dependencies stay files of their own, required on first use, not code of a chunk every
 * process parses: undici (~1.1 MB of CommonJS that @effect/platform-node's HTTP client imports;
 * used when a command first builds an HTTP client), fast-check (~0.34 MB that effect's Schema
 * and Arbitrary import for property tests; never used by the toolkit) and yaml, toml and ini
 * (~0.41 MB that @effect/cli imports to parse option files; never used here). Measured on
 * `--version`: the chunks a process parses went from ~5.2 MB to ~3.8 MB with the first two, and
 * to ~3.45 MB with the parsers. Each is required from the package that depends on it
 * (`createRequire` of its resolved entry), so a nested install resolves too.
 *
 * The client module reads two of undici's exports, both inside functions; Schema and Arbitrary
 * read fast-check's inside functions only, and @effect/cli's file module each parser's `parse`
 * inside one. The packages' indexes re-export undici and fast-check (`Undici`, `FastCheck`),
 * which esbuild keeps (and evaluates) although nothing here reads them: the bundle's copies of the
 * indexes leave them out (a module importing them fails the build).
 */
/** A module-level `binding` that requires `pkg` (resolved from the package `from`) when first read. */
const lazyRequire = (binding, pkg, from) => `let ${binding}_;
const ${binding} = new Proxy({}, { get: (_, key) => (${binding}_ ??= __createRequire(require.resolve("${from}"))("${pkg}"))[key] });`
const EAGER_UNDICI = 'import * as Undici from "../Undici.js";'
const LAZY_UNDICI = lazyRequire("Undici", "undici", "@effect/platform-node")
/** effect's modules that import fast-check, with the line that does */
const EAGER_FAST_CHECK = { "Schema.js": 'import * as fastCheck_ from "./FastCheck.js";', "Arbitrary.js": 'import * as FastCheck from "./FastCheck.js";' }
/** @effect/cli's parsers of option files (never used here), each with the line that imports it */
const EAGER_FILE_PARSERS = [
  ['import * as Ini from "ini";', "Ini", "ini"],
  ['import * as Toml from "toml";', "Toml", "toml"],
  ['import * as Yaml from "yaml";', "Yaml", "yaml"]
]
const lazyDependencies = {
  name: "lazy-dependencies",
  setup(b) {
    b.onLoad({ filter: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]internal[\\/]httpClientUndici\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, "utf8")
      const uses = new Set(text.replace(EAGER_UNDICI, "").match(/\bUndici\.\w+/g))
      const known = uses.size === 2 && uses.has("Undici.Agent") && uses.has("Undici.getGlobalDispatcher")
      if (!text.includes(EAGER_UNDICI) || !known)
        return { warnings: [{ text: "httpClientUndici.js changed: undici is loaded eagerly (update lazyDependencies)" }] }
      return { contents: text.replace(EAGER_UNDICI, LAZY_UNDICI), loader: "js" }
    })
    b.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/](Schema|Arbitrary)\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, "utf8")
      const line = EAGER_FAST_CHECK[args.path.split(/[\\/]/).at(-1)]
      if (!text.includes(line)) return { warnings: [{ text: `${args.path} changed: fast-check is bundled (update lazyDependencies)` }] }
      const name = line.includes("fastCheck_") ? "fastCheck_" : "FastCheck"
      return { contents: text.replace(line, lazyRequire(name, "fast-check", "effect")), loader: "js" }
    })
    b.onLoad({ filter: /[\\/]@effect[\\/]cli[\\/]dist[\\/]esm[\\/]internal[\\/]files\.js$/ }, (args) => {
      let text = fs.readFileSync(args.path, "utf8")
      for (const [line, binding, pkg] of EAGER_FILE_PARSERS) {
        if (!text.includes(line)) return { warnings: [{ text: `${args.path} changed: ${pkg} is bundled (update lazyDependencies)` }] }
        text = text.replace(line, lazyRequire(binding, pkg, "@effect/cli"))
      }
      return { contents: text, loader: "js" }
    })
    b.onLoad({ filter: /[\\/]node_modules[\\/]effect[\\/]dist[\\/]esm[\\/]index\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, "utf8")
      return { contents: text.replace('export * as FastCheck from "./FastCheck.js";', ""), loader: "js" }
    })
    b.onLoad({ filter: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]index\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, "utf8")
      return { contents: text.replace('export * as Undici from "./Undici.js";', ""), loader: "js" }
    })
  }
}

const out = "dist/bundle"
fs.rmSync(out, { recursive: true, force: true })
await build({
  entryPoints: { index: "dist/src/index.js", main: "dist/src/cli/main.js" },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  external: ["@duckdb/*", "apache-arrow"],
  plugins: [lazyDependencies],
  // CommonJS dependencies inside the bundle may call require() for Node's own modules
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: "linked",
  logLevel: "warning"
})

fs.copyFileSync("src/cli/bin.cjs", `${out}/main.js`)
fs.chmodSync(`${out}/main.js`, 0o755)
fs.writeFileSync(`${out}/package.json`, JSON.stringify({ type: "commonjs" }) + "\n")

// the command tree for `--help` without building the command line (src/cli/FastPath.ts)
const { commands } = await import("../dist/src/cli/Commands.js")
const { commandTree } = await import("../dist/src/cli/CommandTree.js")
const { snapshotOf, HELP_SNAPSHOT } = await import("../dist/src/cli/HelpSnapshot.js")
const tree = commandTree(commands)
if (tree) fs.writeFileSync(`${out}/${HELP_SNAPSHOT}`, JSON.stringify(snapshotOf(tree)))

// the built-in pipelines as `list` shows them, so the fast path imports no pipeline (src/cli/ListSnapshot.ts)
const { builtInPipelines } = await import("../dist/src/wiring/Catalogue.js")
const { listEntryOf } = await import("../dist/src/cli/ListOutput.js")
const { LIST_SNAPSHOT } = await import("../dist/src/cli/FastPath.js")
fs.writeFileSync(`${out}/${LIST_SNAPSHOT}`, JSON.stringify(builtInPipelines.map((p) => listEntryOf(p, "built-in"))))

// the empty warehouse a new warehouse file starts from, so a process's first creation copies it
// instead of DuckDB building it (src/load/WarehouseFile.ts)
const { Effect } = await import("effect")
const { writeWarehouseTemplate, TEMPLATE_DIR } = await import("../dist/src/load/WarehouseFile.js")
await Effect.runPromise(writeWarehouseTemplate(TEMPLATE_DIR))
