/**
 * `estate-etl list` at the cold start (`src/cli/ListSnapshot.ts`) prints what the full command
 * prints: the same pipelines (the build's snapshot against the catalogue), the same costs and sets
 * from the user's settings, the same refusal of bad settings; and the user's own pipeline modules
 * send it to the full command. `--config=<file>` is a form the fast path leaves to the full command
 * line, so each case runs both forms of the compiled CLI and compares them.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtInPipelines } from "../../src/wiring/Catalogue.js"
import { runCli } from "../support/cli.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const BUNDLE = path.join(ROOT, "dist/bundle")

const both = async (config: string, flags: ReadonlyArray<string>) => {
  const [fast, full] = await Promise.all([runCli(["list", ...flags, "--config", config]), runCli(["list", ...flags, `--config=${config}`])])
  return { fast, full }
}

describe("list's fast path", () => {
  let dir: string
  let copy: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-list-fast-"))
    // a copy of the bundle beside the original (so it finds node_modules) whose snapshot says so
    copy = path.join(ROOT, "dist", `bundle-list-test-${process.pid}`)
    fs.cpSync(BUNDLE, copy, { recursive: true, filter: (f) => !f.endsWith(".map") })
  })
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.rmSync(copy, { recursive: true, force: true })
  })

  it("prints the full command's output with the user's costs and sets, from a snapshot of every built-in", async () => {
    const config = path.join(dir, "costs.json")
    fs.writeFileSync(
      config,
      JSON.stringify({ budget: { costs: { plot_search: 3 } }, sets: { nightly: ["plots-germany", "sourcing-search"] } })
    )
    const json = await both(config, ["--json"])
    expect(json.fast.code, json.fast.stderr).toBe(0)
    expect(json.fast.stdout).toBe(json.full.stdout)
    const listed = JSON.parse(json.fast.stdout) as { pipelines: Array<{ pipeline: string; units_per_call: number; from: string }> }
    expect(listed.pipelines.map((p) => p.pipeline)).toEqual(builtInPipelines.map((p) => p.name))
    expect(listed.pipelines.find((p) => p.pipeline === "plots-germany")!.units_per_call).toBe(3)
    const text = await both(config, ["--wide"])
    expect(text.fast.stdout).toBe(text.full.stdout)
    expect(text.fast.stdout).toContain("set nightly: plots-germany, sourcing-search")
  })

  it("answers from the snapshot the build wrote", async () => {
    const file = path.join(copy, "list-snapshot.json")
    const entries = JSON.parse(fs.readFileSync(file, "utf8")) as Array<{ description: string }>
    entries[0]!.description = "from the snapshot"
    fs.writeFileSync(file, JSON.stringify(entries))
    const main = path.join(copy, "main.js")
    const { execFileSync } = await import("node:child_process")
    const run = (args: ReadonlyArray<string>) => execFileSync(process.execPath, [main, ...args], { cwd: dir, encoding: "utf8" })
    expect(JSON.parse(run(["list", "--json"])).pipelines[0].description).toBe("from the snapshot")
    // without a snapshot the full command answers, with the catalogue's own text
    fs.rmSync(file)
    expect(JSON.parse(run(["list", "--json"])).pipelines[0].description).toBe(builtInPipelines[0]!.description)
  })

  it("leaves the user's pipeline modules to the full command", async () => {
    const repo = path.join(dir, "repo")
    fs.mkdirSync(path.join(repo, "pipelines"), { recursive: true })
    fs.writeFileSync(
      path.join(repo, "pipelines", "my-plots.mjs"),
      `import { derivePipeline } from ${JSON.stringify(path.join(BUNDLE, "index.mjs"))}\n` +
        `export default derivePipeline("plots-germany", { name: "my-plots", params: { criteria: { regions: ["Bayern"] } } })\n`
    )
    const config = path.join(repo, "estate-etl.json")
    fs.writeFileSync(config, JSON.stringify({ sets: { mine: ["my-plots"] } }))
    const json = await both(config, ["--json"])
    expect(json.fast.code, json.fast.stderr).toBe(0)
    expect(json.fast.stdout).toBe(json.full.stdout)
    const mine = (JSON.parse(json.fast.stdout) as { pipelines: Array<{ pipeline: string; from: string }> }).pipelines.at(-1)!
    expect(mine).toMatchObject({ pipeline: "my-plots", from: expect.stringContaining("my-plots.mjs") })
  })

  it("refuses settings naming an unknown pipeline as the full command does", async () => {
    const config = path.join(dir, "unknown.json")
    fs.writeFileSync(config, JSON.stringify({ sets: { nightly: ["plots-germny"] } }))
    const { fast, full } = await both(config, [])
    expect(fast.code).toBe(2)
    expect(fast.stderr).toBe(full.stderr)
    expect(fast.stderr).toContain("plots-germany")
  })
})
