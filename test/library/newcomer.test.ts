/**
 * A newcomer's repository, made as README's "In your own repository" tells it: `npm init -y`
 * (CommonJS), this package installed from its packed tarball (`npm pack` of the built dist/), `tsx`
 * and `typescript` beside it. There:
 *
 * - README's `tsconfig.json` (strict, no `skipLibCheck`) type-checks README's library block and the
 *   notebook recipe with `tsc` and no error: the package's public declarations, and every library
 *   declaration they reach (Observable Plot's, which import d3's), compile as a newcomer compiles;
 * - each notebook recipe runs as written (`npx tsx notebook.mts`, `node notebook.mjs`, `node
 *   notebook.cjs`) against the embedded sandbox, in the CommonJS repository and again after `npm
 *   pkg set type=module`; a `notebook.ts` runs only in the second, as README says.
 *
 * One install for all of it, shared with test/cli/adopt.test.ts (test/support/packedApp.ts), copied.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, expect, it } from "vitest"
import { copyOfPackedApp, expectCode, sh as run, type Outcome } from "../support/packedApp.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
let dir: string | undefined

/** Runs a command line of README as a shell would split it (no quoting in these). */
const sh = (line: string, cwd: string, timeoutMs = 180_000): Promise<Outcome> => {
  const [command, ...args] = line.split(/\s+/)
  return run(command!, args, cwd, timeoutMs)
}

const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
const section = (title: string) => README.slice(README.indexOf(title))
/** The first fenced block of `lang` in `text`. */
const block = (text: string, lang: string) => new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(text)![1]!

/** README's "In your own repository": its commands, the .mts/.mjs recipe, the .cjs one, the tsconfig. */
const recipe = () => {
  const own = section("**In your own repository.**")
  const after = (marker: string) => own.slice(own.indexOf(marker))
  const commands = block(own, "sh")
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "")
  return {
    commands,
    esm: block(after("`notebook.mts`"), "ts"),
    cjs: block(after("`notebook.cjs`:"), "js"),
    tsconfig: block(own, "json")
  }
}

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

it("a new CommonJS and ESM repository type-checks the library strictly and runs every notebook recipe as written", async () => {
  const { commands, esm, cjs, tsconfig } = recipe()
  expect(commands).toEqual([
    "npm install --save-dev tsx typescript",
    "npx tsx notebook.mts",
    "node notebook.mjs",
    "node notebook.cjs",
    "npx tsc -p ."
  ])
  const options = (JSON.parse(tsconfig) as { compilerOptions: Record<string, unknown> }).compilerOptions
  expect(options.strict).toBe(true)
  expect(options).not.toHaveProperty("skipLibCheck")

  // npm pack, npm init -y, npm install <tarball> and README's install line (at this checkout's
  // versions): the install the adoption tests share, copied
  const copy = await copyOfPackedApp()
  dir = copy.dir
  const app = copy.app
  expect(JSON.parse(fs.readFileSync(path.join(app, "package.json"), "utf8")).type ?? "commonjs").toBe("commonjs")
  for (const name of ["estate-etl", "tsx", "typescript"]) expect(fs.existsSync(path.join(app, "node_modules", name))).toBe(true)

  // strict tsc, no skipLibCheck: README's library block and the recipe, with README's tsconfig
  fs.writeFileSync(path.join(app, "tsconfig.json"), tsconfig)
  fs.writeFileSync(path.join(app, "library.mts"), block(section("### From a script or notebook"), "ts"))
  fs.writeFileSync(path.join(app, "notebook.mts"), esm)
  const tsc = await sh(commands[4]!, app, 300_000)
  expectCode(tsc, 0, commands[4]!)
  expect(tsc.stdout + tsc.stderr).toBe("")
  fs.rmSync(path.join(app, "library.mts")) // compiled only: it reads a nightly warehouse

  fs.writeFileSync(path.join(app, "notebook.mjs"), esm)
  fs.writeFileSync(path.join(app, "notebook.cjs"), cjs)
  fs.writeFileSync(path.join(app, "notebook.ts"), esm)
  const runAll = async (kind: string) => {
    for (const line of commands.slice(1, 4)) {
      const r = await sh(line, app)
      expectCode(r, 0, `${kind}: ${line}`)
      expect(r.stdout, `${kind}: ${line}`).toMatch(/^done \d+ plots; the first: \S+/m)
    }
  }
  await runAll("CommonJS repository")
  // a .ts file is CommonJS here: top-level await does not run
  const asTs = await sh("npx tsx notebook.ts", app)
  expect(asTs.code).not.toBe(0)

  expectCode(await sh("npm pkg set type=module", app), 0, "npm pkg set type=module")
  await runAll("ESM repository")
  const asTsEsm = await sh("npx tsx notebook.ts", app)
  expectCode(asTsEsm, 0, "ESM repository: npx tsx notebook.ts")
}, 900_000)
