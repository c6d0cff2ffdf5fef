/**
 * Every documented exit code, from the real CLI process against a sandbox reached as a remote
 * service: 0 done, 2 bad input, 3 budget (resumable), 4 payment required, 5 authentication, 6
 * incomplete, 7 unexpected shape, 1 other (130 / 143: test/cli/signals.test.ts).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LOW_BALANCE_API_KEY, REVOKED_API_KEY } from "../../src/sandbox/Credentials.js"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { queryWarehouse } from "../support/queryWarehouse.js"
import { startTestSandbox, totalRequests } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const plots = { "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 3, sample: true } } }

describe("exit codes", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-cli-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const fresh = (extra: Record<string, unknown> = {}) => {
    const d = fs.mkdtempSync(path.join(dir, "run-"))
    return remoteConfig(d, sandbox, { pipelines: plots, ...extra })
  }

  it("0: done, with a summary on stdout", async () => {
    const r = await runCli(["run", "plots-germany", "--config", fresh()], sandboxEnv())
    expect(r.stderr.split("\n").filter((l) => l.startsWith("{")).length).toBeGreaterThan(0) // JSON lines off a terminal
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/plots-germany\s+done/)
  })

  it("2: bad input names the field and what is allowed, before any request", async () => {
    const before = sandbox.control.stats().requests
    const r = await runCli(["run", "plots-germany", "--config", fresh(), "--param", "pageSize=500"], sandboxEnv())
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/plots-germany\.pageSize/)
    expect(r.stderr).toMatch(/100/)
    const unknown = await runCli(["run", "no-such-pipeline", "--config", fresh()], sandboxEnv())
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/unknown pipeline "no-such-pipeline"; allowed: .*plots-germany/)
    expect(sandbox.control.stats().requests).toEqual(before)
  })

  it("3: the unit cap stops the run as paused; a later run resumes it (a plan over the cap is bad input, 2)", async () => {
    const config = fresh()
    const refused = await runCli(["run", "plots-germany", "--config", config, "--max-units", "2"], sandboxEnv())
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/--max-units: plots-germany plans 3 units, above the cap of 2/)
    const capped = await runCli(["run", "plots-germany", "--config", config, "--max-units", "2", "--until-cap"], sandboxEnv())
    expect(capped.code).toBe(3)
    expect(capped.stdout).toMatch(/plots-germany\s+paused/)
    const resumed = await runCli(["run", "plots-germany", "--config", config], sandboxEnv())
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toMatch(/done \(resumed\)/)
  })

  it("2: other parameters for an unfinished run are refused with the difference; --resume and --restart go on", async () => {
    const config = fresh()
    const paused = await runCli(["run", "plots-germany", "--config", config, "--max-units", "1", "--until-cap"], sandboxEnv())
    expect(paused.code).toBe(3)
    const refused = await runCli(["run", "plots-germany", "--config", config, "-p", "pageSize=10"], sandboxEnv())
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(
      /has other parameters \(pageSize: 20 -> 10\); --resume goes on with its saved parameters, --restart drops its checkpoints/
    )
    const resumed = await runCli(["run", "plots-germany", "--config", config, "-p", "pageSize=10", "--resume"], sandboxEnv())
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toMatch(/done \(resumed\)/)
    await runCli(["run", "plots-germany", "--config", config, "--max-units", "1", "--until-cap", "--full-refresh"], sandboxEnv())
    const restarted = await runCli(["run", "plots-germany", "--config", config, "-p", "pageSize=10", "--restart"], sandboxEnv())
    expect(restarted.code).toBe(0)
    expect(restarted.stdout).not.toMatch(/resumed/)
  })

  it("4: payment required prints the payment link", async () => {
    const r = await runCli(["run", "premises-search", "--config", fresh()], { ...sandboxEnv(), SVC_API_KEY: LOW_BALANCE_API_KEY })
    expect(r.code).toBe(4)
    expect(r.stdout + r.stderr).toMatch(/payment required.*https?:\/\/\S+/)
    // the stop says whether a rerun helps
    expect(r.stdout).toMatch(/payment required.*; the run is paused: a rerun after the top-up resumes from its checkpoints$/m)
  })

  it("4 in a set: the rest of the platform host's pipelines are not run, each named; the token host's still run", async () => {
    const r = await runCli(["run", "premises-search", "plots-germany", "references", "--config", fresh()], {
      ...sandboxEnv(),
      SVC_API_KEY: LOW_BALANCE_API_KEY
    })
    expect(r.code, r.stderr.slice(-1500)).toBe(4)
    expect(r.stdout).toMatch(/^premises-search +paused /m)
    expect(r.stdout).toMatch(/^references +done /m)
    expect(r.stdout).not.toMatch(/^plots-germany +(done|paused|failed|interrupted|incomplete) /m)
    expect(r.stdout).toContain(
      "plots-germany not run: premises-search ended paused (exit 4) on the platform host, which would end it the same way; a rerun runs it"
    )
  })

  it("5: a refused credential is an authentication failure, and the key is never printed", async () => {
    const r = await runCli(["run", "plots-germany", "--config", fresh()], { ...sandboxEnv(), SVC_API_KEY: REVOKED_API_KEY })
    expect(r.code).toBe(5)
    expect(r.stdout + r.stderr).not.toContain(REVOKED_API_KEY)
    expect(r.stdout).toMatch(/; fix the credentials \(SVC_API_KEY, SVC_EMAIL, SVC_PASSWORD\), then rerun: what was paid is reused$/m)
  })

  it("3: a service still failing after the retries pauses the run, and the stop says a rerun resumes", async () => {
    sandbox.control.setFaults("platform", { serverErrorRate: 1 })
    try {
      const sent = totalRequests(sandbox)
      const config = fresh({ service: { maxRetries: 1, retryBaseMs: 10, retryMaxMs: 20 } })
      const r = await runCli(["run", "plots-germany", "--config", config], sandboxEnv())
      expect(r.code, r.stderr.slice(-1500)).toBe(3)
      expect(r.stdout).toMatch(
        /failed with 50\d .*; the service still failed after the retries: the run is paused, and a rerun resumes from its checkpoints once it answers$/m
      )
      // the retry said so as it went: a warning line (JSON off a terminal) naming the failure and the wait
      const retried = r.stderr.split("\n").filter((l) => l.includes(`"type":"log"`) && l.includes("retry 1 of 1 in"))
      expect(retried).toHaveLength(1)
      expect(JSON.parse(retried[0]!)).toMatchObject({ level: "WARN", operation: "plot_search", retry: 1 })
      // the page that failed bought nothing, but its request and retry were sent, and count
      const finished = r.stderr.split("\n").find((l) => l.includes(`"type":"run_finished"`))!
      expect(JSON.parse(finished).totals).toMatchObject({ pages: 0, requests: 1, retries: 1 })
      expect(totalRequests(sandbox) - sent).toBe(2)
      const [rows] = await queryWarehouse(path.join(path.dirname(config), "warehouse.duckdb"), [`SELECT requests, retries FROM _runs`])
      expect(rows!.map((x) => [Number(x.requests), Number(x.retries)])).toEqual([[1, 1]])
    } finally {
      sandbox.control.setFaults("platform", {})
    }
  })

  it("6: a service that declares more than it lets be read ends incomplete, naming the slice and the numbers", async () => {
    // no next links: a cursor cannot pass its first page while the count says more remain
    const other = await startTestSandbox({ world: { properties: 2000 }, dialect: "no-next" })
    try {
      const d = fs.mkdtempSync(path.join(dir, "run-"))
      const config = remoteConfig(d, other, {
        pipelines: {
          "sourcing-search": { params: { places: [{ country: "ES" }], operation: "sale", pageSize: 20, maxPages: 10, sample: true } }
        }
      })
      const r = await runCli(["run", "sourcing-search", "--config", config], sandboxEnv())
      expect(r.code).toBe(6)
      expect(r.stdout).toMatch(/sourcing-search\s+incomplete/)
      expect(r.stdout).toMatch(/incomplete: sourcing-search slice ES: declared \d+, received 20, landed 20, rejected 0/)
    } finally {
      await other.close()
    }
  })

  it("7: a list answer of an unexpected shape stops paused, naming the shape setting", async () => {
    const other = await startTestSandbox({ world: { properties: 2000 }, dialect: "results-key" })
    try {
      const d = fs.mkdtempSync(path.join(dir, "run-"))
      const config = remoteConfig(d, other, {
        pipelines: {
          "sourcing-search": { params: { places: [{ country: "ES" }], operation: "sale", pageSize: 20, maxPages: 3, sample: true } }
        }
      })
      const r = await runCli(["run", "sourcing-search", "--config", config], sandboxEnv())
      expect(r.code).toBe(7)
      expect(r.stdout).toMatch(/sourcing-search\s+paused/)
      expect(r.stdout).toMatch(/UnexpectedShape: expected a list at "results".*set service\.shapes\.sourcing_search/)
    } finally {
      await other.close()
    }
  })

  it("1: records drifting past the reject ratio fail the run", async () => {
    await sandbox.control.setFaults("platform", { driftRate: 1 })
    try {
      const r = await runCli(["run", "plots-germany", "--config", fresh()], sandboxEnv())
      expect(r.code).toBe(1)
      expect(r.stdout).toMatch(/failed their schema/)
    } finally {
      await sandbox.control.setFaults("platform", {})
    }
  })
})
