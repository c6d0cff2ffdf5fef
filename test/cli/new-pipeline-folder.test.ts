/**
 * `new pipeline` writes beside the settings file, and says so: with the settings in `config/`
 * (as this repository keeps them), the module, its test and every command it prints are under
 * `config/pipelines/`, and `list` (the default modules: `pipelines/*.mjs` beside the settings) shows the new pipeline.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cli } from "../support/inProcessCli.js"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-new-folder-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("new pipeline beside a settings file in a folder", () => {
  it("writes config/pipelines/ and prints only paths there", async () => {
    const config = path.join(dir, "config", "estate.json")
    fs.mkdirSync(path.dirname(config), { recursive: true })
    fs.writeFileSync(config, JSON.stringify({ warehouse: "../data/w.duckdb" }))
    const r = await cli(["new", "pipeline", "my-plots", "--from", "plots-germany", "--config", config])
    expect(r.code, r.stderr).toBe(0)
    const folder = path.join(dir, "config", "pipelines")
    expect(fs.readdirSync(folder).sort()).toEqual(["my-plots.mjs", "my-plots.test.mjs"])
    expect(r.stdout).toContain(`its test: node --test ${path.join(folder, "*.test.mjs")}`)
    expect(r.stdout).toContain(`node --test ${path.join(folder, "my-plots.test.mjs")}`)
    // every path it names is in the folder it wrote
    const named = r.stdout.match(/\S*pipelines\/\S*/g) ?? []
    expect(named.length).toBeGreaterThanOrEqual(4)
    for (const p of named) expect(p.replace(/;$/, ""), r.stdout).toMatch(new RegExp(`^${folder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`))
    const list = await cli(["list", "--json", "--config", config])
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout).pipelines.find((p: { pipeline: string }) => p.pipeline === "my-plots")).toBeDefined()
  })
})
