/**
 * `estate-etl probe` as a user runs it (the CLI's entry, in this process, against a sandbox
 * speaking another reading of the spec): the table names what differs, `--write` writes the
 * settings that fit (never over an existing file without `--force`), a settings file that
 * `include`s them makes the nightly land, and the probe's paid answer is reused by that nightly
 * instead of bought again.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { remoteConfig, sandboxEnv } from "../support/cli.js"
import { cli } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

/** The CLI's entry in this process (test/support/inProcessCli.ts), without credentials unless given. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, options: { readonly cwd?: string } = {}) =>
  cli(args, env, options)

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const spent = (s: Sandbox) => Object.values(s.control.stats().unitsSpent).reduce((a, b) => a + b, 0)

describe("probe", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    // a service that keeps not-shown lists under `items`
    sandbox = await startTestSandbox({ world: { properties: 2000 }, dialect: "results-key" })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-probe-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("names the differences, writes the settings that fit, and the nightly including them lands with the probe's answer reused", async () => {
    const pipelines = { "sourcing-search": { params: { country: "PT", operation: "sale", pageSize: 50 } } }
    const config = remoteConfig(dir, sandbox, { pipelines, sets: { nightly: ["sourcing-search"] } })
    const before = spent(sandbox)
    const probed = path.join(dir, "probed.json")
    const r = await runCli(["probe", "--config", config, "--max-units", "5", "--write", probed], sandboxEnv())
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/probe: 1 pipeline\(s\) against http:\/\/127\.0\.0\.1:\d+, about 1 unit\(s\) \(up to 5\)/)
    expect(r.stdout).toMatch(/shape sourcing_search: records\s+results\s+items\s+differs/)
    expect(r.stdout).toMatch(/failed calls are not charged .* cannot check/)
    const fragment = JSON.parse(fs.readFileSync(probed, "utf8"))
    expect(fragment).toMatchObject({ service: { shapes: { sourcing_search: { results: "items" }, sourcing_next: { results: "items" } } } })
    const probeUnits = spent(sandbox) - before
    expect(probeUnits).toBeGreaterThan(0)
    expect(probeUnits).toBeLessThanOrEqual(5)

    // an existing file is never overwritten silently
    const again = await runCli(["probe", "--config", config, "--write", probed], sandboxEnv())
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/--write.*exists.*--force/)

    // the settings include the fragment: the nightly lands, reusing what the probe bought
    const settings = JSON.parse(fs.readFileSync(config, "utf8"))
    fs.writeFileSync(config, JSON.stringify({ ...settings, include: [path.basename(probed)] }, null, 2))
    const beforeRun = spent(sandbox)
    const run = await runCli(["run", "nightly", "--config", config, "--json"], sandboxEnv())
    expect(run.code, run.stderr).toBe(0)
    const [summary] = JSON.parse(run.stdout) as Array<{ status: string; totals: { pages: number; units: number } }>
    expect(summary!.status).toBe("done")
    // every page but those the probe bought (the search and its first cursor page)
    expect(spent(sandbox) - beforeRun).toBe(summary!.totals.pages - probeUnits)
    expect(summary!.totals.units).toBe(spent(sandbox) - beforeRun)
  }, 120_000)
})
