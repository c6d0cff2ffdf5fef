/**
 * `plan --warehouse` prices from that warehouse's history, before or after the subcommand, as
 * README's flags say of every command; without it, the settings' warehouse (here none yet: a place
 * never read is one page until its count says more).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cli } from "../support/inProcessCli.js"
import { settingsFile } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

const places = `places=${JSON.stringify([{ country: "PT" }])}`

describe("plan --warehouse", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 4000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-plan-wh-"))
  })
  afterAll(async () => {
    await sandbox?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("reads the warehouse it names, before or after the subcommand", async () => {
    const config = settingsFile(dir, sandbox)
    const other = path.join(dir, "other.duckdb")
    const run = await cli(["run", "sourcing-search", "-p", places, "-p", "pageSize=50", "--warehouse", other, "--config", config, "--json"])
    expect(run.code, run.stderr).toBe(0)
    const records = JSON.parse(run.stdout)[0].totals.records as number
    const unitsOf = async (args: ReadonlyArray<string>) => {
      const r = await cli(args)
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout).units as number
    }
    const plan = ["plan", "sourcing-search", "-p", places, "-p", "pageSize=10", "--config", config, "--json"]
    expect(await unitsOf([...plan, "--warehouse", other])).toBe(Math.ceil(records / 10))
    expect(await unitsOf(["--warehouse", other, ...plan])).toBe(Math.ceil(records / 10))
    // the settings' warehouse has no history: one page for the place
    expect(await unitsOf(plan)).toBe(1)
  })

  it("prices what a paused run has left: the pages its resume reads", async () => {
    const config = settingsFile(dir, sandbox, { warehouse: path.join(dir, "paused.duckdb") }, "paused.json")
    const args = ["sourcing-search", "-p", places, "-p", "pageSize=10", "--config", config]
    const paused = await cli(["run", ...args, "--max-units", "3", "--until-cap", "--json"])
    expect(paused.code, paused.stderr).toBe(3)
    const [stopped] = JSON.parse(paused.stdout) as Array<{ runId: string; totals: { pages: number }; expected: { pages: number } }>
    expect(stopped!.totals.pages).toBe(3)
    const planned = await cli(["plan", ...args, "--json"])
    expect(planned.code, planned.stderr).toBe(0)
    const [plan] = JSON.parse(planned.stdout).plans as Array<{ units: number; note: string }>
    const left = stopped!.expected.pages - 3
    expect(plan!.units).toBe(left)
    expect(plan!.note).toContain(
      `resumes its unfinished run ${stopped!.runId} with that run's parameters: 3 page(s) read, about ${left} left`
    )
    const resumed = await cli(["run", ...args, "--json"])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout)[0].totals.units).toBe(left)
  })
})
