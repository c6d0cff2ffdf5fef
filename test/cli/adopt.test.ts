/**
 * Another repository adopts estate-etl, the way README's "As a dependency of another repository"
 * tells it, with the same commands: `npm pack` this package (its dist/ built by the test run),
 * `npm init -y` and `npm install <tarball>` in an empty folder, `npx estate-etl init`, `npx
 * estate-etl run nightly` (the embedded sandbox, no flags), the example pipeline's own test
 * (`node --test`), `npx estate-etl new pipeline my-plots --from plots-germany`, `list`, `run
 * my-plots`, a make target of the fragment, and a broken module refused with one line (exit 2).
 *
 * One story in one test: the install is the slow part (the dependencies come from the npm cache
 * or the registry), so it is done once.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
let dir: string | undefined

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The environment of a user's shell: no npm variables of the test run, no service URLs. */
const userEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)))
  for (const k of ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "SVC_PLATFORM_URL", "SVC_API_URL", "NODE_OPTIONS"]) delete env[k]
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" }
}

const sh = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs = 120_000): Promise<Outcome> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** Fails with the command's output when it did not exit `code`. */
const expectCode = (o: Outcome, code: number, what: string) => {
  if (o.code !== code) throw new Error(`${what}: exit ${o.code}, expected ${code}\n--- stdout\n${o.stdout}\n--- stderr\n${o.stderr}`)
}

/** npm's own notices (a user config it does not know, ...) are not the command's output. */
const withoutNpmNotices = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^npm (warn|notice)/.test(l))
    .join("\n")

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

it("installs from the packed tarball, inits, runs nightly on the embedded sandbox, scaffolds and runs a pipeline", async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-adopt-"))
  const app = path.join(dir, "app")
  fs.mkdirSync(app)

  // npm pack (dist/ was built by the test run's globalSetup)
  const pack = await sh("npm", ["pack", "--json", "--pack-destination", dir], ROOT)
  expectCode(pack, 0, "npm pack")
  const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>
  const tarball = path.join(dir, packed[0]!.filename)
  const files = packed[0]!.files.map((f) => f.path)
  for (const f of ["dist/bundle/main.js", "dist/bundle/index.mjs", "dist/src/index.d.ts", "dist/pipelines/index.js", "config/schema.json"])
    expect(files).toContain(f)

  expectCode(await sh("npm", ["init", "-y"], app), 0, "npm init -y")
  expectCode(
    await sh("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], app, 480_000),
    0,
    "npm install <tarball>"
  )

  // init: lists what it wrote
  const init = await sh("npx", ["estate-etl", "init"], app)
  expectCode(init, 0, "npx estate-etl init")
  for (const f of [
    "estate-etl.json",
    "config/remote.example.json",
    "estate-etl.mk",
    "pipelines/price-drops.mjs",
    "pipelines/price-drops.test.mjs",
    ".env.example"
  ]) {
    expect(init.stdout).toContain(`wrote ${f}`)
    expect(fs.existsSync(path.join(app, f))).toBe(true)
  }
  expect(fs.readFileSync(path.join(app, ".env.example"), "utf8")).toMatch(/^SVC_API_KEY=$/m)

  // the nightly set, no flags: estate-etl.json, the embedded sandbox, the example pipeline among built-ins
  const nightly = await sh("npx", ["estate-etl", "run", "nightly"], app, 180_000)
  expectCode(nightly, 0, "npx estate-etl run nightly")
  for (const p of ["plots-germany", "price-drops"]) expect(nightly.stdout).toMatch(new RegExp(`^${p}\\s+done`, "m"))
  // the week's full pull (make weekly's command): the slow-changing references come with it
  const weekly = await sh("npx", ["estate-etl", "run", "weekly", "--full-refresh"], app, 180_000)
  expectCode(weekly, 0, "npx estate-etl run weekly --full-refresh")
  for (const p of ["references", "plots-germany", "price-drops", "market-analysis"])
    expect(weekly.stdout).toMatch(new RegExp(`^${p}\\s+done`, "m"))
  const counts = await sh(
    "npx",
    [
      "estate-etl",
      "query",
      "select (select count(*) from price_drops) as drops, (select count(*) from plots) as plots, (select count(*) from reference_locations) as locations",
      "--json"
    ],
    app
  )
  expectCode(counts, 0, "npx estate-etl query")
  const landed = JSON.parse(withoutNpmNotices(counts.stdout)) as Record<string, number>
  expect(landed.drops).toBeGreaterThan(0)
  expect(landed.plots).toBeGreaterThan(0)
  expect(landed.locations).toBeGreaterThan(0)

  // the example's own test passes as written
  const example = await sh(process.execPath, ["--test", "pipelines/price-drops.test.mjs"], app, 120_000)
  expectCode(example, 0, "node --test pipelines/price-drops.test.mjs")
  expect(example.stdout).toMatch(/# pass 1/)

  // a new pipeline from a built-in: list shows it, run lands rows
  const scaffold = await sh("npx", ["estate-etl", "new", "pipeline", "my-plots", "--from", "plots-germany"], app)
  expectCode(scaffold, 0, "npx estate-etl new pipeline my-plots --from plots-germany")
  expect(scaffold.stdout).toContain("wrote pipelines/my-plots.mjs")
  expect(fs.existsSync(path.join(app, "pipelines/my-plots.test.mjs"))).toBe(true)
  const list = await sh("npx", ["estate-etl", "list", "--json"], app)
  expectCode(list, 0, "npx estate-etl list --json")
  const listed = JSON.parse(withoutNpmNotices(list.stdout)) as { pipelines: Array<{ pipeline: string; from: string }> }
  expect(listed.pipelines.filter((p) => p.from !== "built-in").map((p) => [p.pipeline, p.from])).toEqual([
    ["my-plots", "pipelines/my-plots.mjs"],
    ["price-drops", "pipelines/price-drops.mjs"]
  ])
  const mine = await sh("npx", ["estate-etl", "run", "my-plots", "--json"], app, 120_000)
  expectCode(mine, 0, "npx estate-etl run my-plots")
  const [summary] = JSON.parse(withoutNpmNotices(mine.stdout)) as Array<{ pipeline: string; status: string; totals: { rows: number } }>
  expect(summary).toMatchObject({ pipeline: "my-plots", status: "done" })
  expect(summary!.totals.rows).toBeGreaterThan(0)

  // the Makefile fragment's targets run the installed CLI
  const status = await sh("make", ["-s", "-f", "estate-etl.mk", "status"], app)
  expectCode(status, 0, "make -f estate-etl.mk status")
  expect(status.stdout).toMatch(/my-plots\s+done/)

  // a module that does not parse: every command refuses, one line naming the file, exit 2
  fs.writeFileSync(
    path.join(app, "pipelines/broken.mjs"),
    'import { definePipeline } from "estate-etl"\nexport default definePipeline({,})\n'
  )
  const broken = await sh("npx", ["estate-etl", "list"], app)
  expectCode(broken, 2, "npx estate-etl list with a broken module")
  expect(withoutNpmNotices(broken.stderr)).toMatch(/^error: pipelines\/broken\.mjs: cannot be imported: SyntaxError: .+ \(line 2\)$/)
}, 900_000)
