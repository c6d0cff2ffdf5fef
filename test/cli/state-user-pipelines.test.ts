/**
 * `state show`, `state reset` and `drop` know the user's own pipelines (`pipelineModules`) as every
 * other command does: their settings are accepted, their state shown, their tables dropped.
 * In process (the module imports this package's source, which only the test's loader reads).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readWarehouse } from "../support/chaos.js"
import { startTestSandbox } from "../support/sandbox.js"
import { cli } from "../support/inProcessCli.js"
import { settingsFile } from "../support/cli.js"

const INDEX = pathToFileURL(path.resolve(import.meta.dirname, "../../src/index.ts")).href

describe("state and drop of a user's pipeline", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  let config: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 300 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-user-state-"))
    fs.mkdirSync(path.join(dir, "pipelines"))
    fs.writeFileSync(
      path.join(dir, "pipelines", "my-plots.mjs"),
      `import { derivePipeline } from ${JSON.stringify(INDEX)}\n` +
        `export default derivePipeline("plots-germany", { name: "my-plots", params: { criteria: { regions: ["Bayern"] } } })\n`
    )
    config = settingsFile(dir, sandbox, {
      pipelineModules: [path.join(dir, "pipelines", "my-plots.mjs")],
      pipelines: { "my-plots": { params: { pageSize: 20, maxPages: 2, sample: true } } }
    })
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("shows its checkpoints and tables, resets it, and drops the tables it landed", async () => {
    const run = await cli(["run", "my-plots", "--config", config])
    expect(run.code, run.messages.join("\n")).toBe(0)
    const [landed] = await readWarehouse<{ n: bigint }>(path.join(dir, "warehouse.duckdb"), `SELECT count(*) AS n FROM plots`)
    expect(Number(landed!.n)).toBeGreaterThan(0)

    const shown = await cli(["state", "show", "my-plots", "--json", "--config", config])
    expect(shown.code, shown.messages.join("\n")).toBe(0)
    const state = JSON.parse(shown.stdout).pipelines[0]
    expect(state.pipeline).toBe("my-plots")
    expect(state.tables.map((t: { name: string }) => t.name).sort()).toEqual(["plot_agency_links", "plots"])
    expect(state.tables.find((t: { name: string }) => t.name === "plots").rows).toBe(Number(landed!.n))

    const reset = await cli(["state", "reset", "my-plots", "--config", config])
    expect(reset.code, reset.messages.join("\n")).toBe(0)
    const dropped = await cli(["drop", "my-plots", "--yes", "--config", config])
    expect(dropped.code, dropped.messages.join("\n")).toBe(0)
    expect(dropped.stdout).toMatch(/my-plots: dropped (plots, plot_agency_links|plot_agency_links, plots)/)
    const left = await readWarehouse<{ n: bigint }>(
      path.join(dir, "warehouse.duckdb"),
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_name IN ('plots', 'plot_agency_links')`
    )
    expect(Number(left[0]!.n)).toBe(0)
  })
})
