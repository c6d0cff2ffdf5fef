/**
 * Another repository adopts estate-etl, the way README's "As a dependency of another repository"
 * tells it, with the same commands: `npm pack` this package (its dist/ built by the test run),
 * `npm init -y` and `npm install <tarball>` in an empty folder, `npx estate-etl init`, `npx
 * estate-etl run nightly` (the embedded sandbox, no flags), the example pipeline's own test
 * (`node --test`), `npx estate-etl new pipeline my-plots --from plots-germany`, `list`, `run
 * my-plots`, a make target of the fragment, and a broken module refused with one line (exit 2).
 *
 * One story in one test, in a copy of the install the adoption tests share (test/support/packedApp.ts:
 * the install is the slow part, so it is done once a build).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, expect, it } from "vitest"
import { copyOfPackedApp, expectCode, sh, withoutNpmNotices } from "../support/packedApp.js"

let dir: string | undefined

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

it("installs from the packed tarball, inits, runs nightly on the embedded sandbox, scaffolds and runs a pipeline", async () => {
  // npm pack (dist/ was built by the test run's globalSetup), npm init -y, npm install <tarball>
  const copy = await copyOfPackedApp()
  dir = copy.dir
  const app = copy.app
  for (const f of ["dist/bundle/main.js", "dist/bundle/index.mjs", "dist/src/index.d.ts", "dist/pipelines/index.js", "config/schema.json"])
    expect(copy.files).toContain(f)

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
