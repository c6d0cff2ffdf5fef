/**
 * Bundles the compiled library and CLI (dist/src, from `tsc -p tsconfig.build.json`) into
 * dist/bundle/: `index.mjs` (the package's entry) and `main.mjs` (the CLI), sharing
 * chunks so a user's pipeline module that imports "estate-etl" gets the same module instances as
 * the CLI that loads it. Why: a process that loads a few hundred ES modules spends most of its
 * start resolving and opening them (measured: `estate-etl list` 1.8 s of CPU unbundled, 0.8 s
 * bundled). Lazy `import()`s stay lazy (their chunks load on use: the sandbox, the webhook
 * receiver). DuckDB's native bindings and apache-arrow stay external packages.
 *
 * DuckDB loads on first use (`src/load/DuckDbApi.ts`), and so does undici (`lazyUndici` below):
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
 * undici (~1 MB of CommonJS that @effect/platform-node's HTTP client imports) is
 * evaluated when a command first builds an HTTP client, not in every process (~0.15 s of CPU).
 * The client module reads two of its exports, both inside functions. The package's index
 * re-exports undici as `Undici`, which esbuild keeps (and evaluates) although nothing here reads
 * it: the bundle's copy of the index leaves it out (a module importing it fails the build).
 */
const EAGER_UNDICI = 'import * as Undici from "../Undici.js";'
const LAZY_UNDICI = `let undici_;
const Undici = new Proxy({}, { get: (_, key) => (undici_ ??= require("undici"))[key] });`
const lazyUndici = {
  name: "lazy-undici",
  setup(b) {
    b.onLoad({ filter: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]internal[\\/]httpClientUndici\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, "utf8")
      const uses = new Set(text.replace(EAGER_UNDICI, "").match(/\bUndici\.\w+/g))
      const known = uses.size === 2 && uses.has("Undici.Agent") && uses.has("Undici.getGlobalDispatcher")
      if (!text.includes(EAGER_UNDICI) || !known)
        return { warnings: [{ text: "httpClientUndici.js changed: undici is loaded eagerly (update lazyUndici)" }] }
      return { contents: text.replace(EAGER_UNDICI, LAZY_UNDICI), loader: "js" }
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
  plugins: [lazyUndici],
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
