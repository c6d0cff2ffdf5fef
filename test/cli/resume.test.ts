/**
 * Crash safety from the outside: a real CLI process killed with SIGKILL mid-run, then resumed,
 * ends with the same rows as a clean run, no duplicates, and no committed page paid twice; a
 * second run against a warehouse in use waits within --lock-wait, is then refused clearly and corrupts nothing.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { collect, remoteConfig, runCli, sandboxEnv, spawnCli } from "../support/cli.js"
import { startTestSandbox, totalUnits as unitsSpent } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const pipelines = { "sourcing-search": { params: { country: "ES", operation: "sale", pageSize: 25, maxPages: 1000, sample: true } } }

const readWarehouse = async (file: string, sql: string) => {
  const db = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" })
  const conn = await db.connect()
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJS()
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

/** Starts a run and SIGKILLs it once `pages` pages were committed (read from its JSON lines). */
const killAfterPages = (args: Array<string>, pages: number) =>
  new Promise<number>((resolve) => {
    const child = spawnCli(args, sandboxEnv())
    let seen = 0
    let buffer = ""
    child.stderr!.on("data", (d) => {
      buffer += d
      const lines = buffer.split("\n")
      buffer = lines.pop()!
      for (const l of lines) if (l.includes('"page_committed"')) seen++
      if (seen >= pages && child.exitCode === null && !child.killed) child.kill("SIGKILL")
    })
    child.on("close", () => resolve(seen))
  })

describe("crash and resume from the CLI", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    // every response a little slow, so the run is long enough to be killed in the middle
    sandbox = await startTestSandbox({ world: { properties: 6000 }, faults: { platform: { slowRate: 1, slowMs: 40 } } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-resume-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("SIGKILL mid-run, then resume: same rows as a clean run, no duplicates, no committed page paid twice", async () => {
    const cleanDir = fs.mkdtempSync(path.join(dir, "clean-"))
    const clean = remoteConfig(cleanDir, sandbox, { pipelines })
    const before = unitsSpent(sandbox)
    const c = await runCli(["run", "sourcing-search", "--config", clean], sandboxEnv())
    expect(c.code).toBe(0)
    const cleanUnits = unitsSpent(sandbox) - before

    const crashDir = fs.mkdtempSync(path.join(dir, "crash-"))
    const crash = remoteConfig(crashDir, sandbox, { pipelines })
    const start = unitsSpent(sandbox)
    const kills = 2
    for (let k = 0; k < kills; k++) {
      const seen = await killAfterPages(["run", "sourcing-search", "--config", crash], 4)
      expect(seen).toBeGreaterThanOrEqual(4)
    }
    const resumed = await runCli(["run", "sourcing-search", "--config", crash], sandboxEnv())
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toMatch(/done \(resumed\)/)
    const crashUnits = unitsSpent(sandbox) - start

    const sql = `SELECT count(*) AS n, count(DISTINCT id) AS d, sum(hash(id, price_eur, location_id, type)) AS h FROM sourcing_properties`
    const [a] = await readWarehouse(path.join(cleanDir, "warehouse.duckdb"), sql)
    const [b] = await readWarehouse(path.join(crashDir, "warehouse.duckdb"), sql)
    expect(b).toEqual(a)
    expect(b!.n).toBe(b!.d)
    // the ledger holds each committed page once; what a kill lost in flight is at most one page each
    const [ledger] = await readWarehouse(
      path.join(crashDir, "warehouse.duckdb"),
      `SELECT sum(units) AS u, count(*) AS c, count(DISTINCT request_id) AS d FROM _ledger`
    )
    expect(ledger!.c).toBe(ledger!.d)
    expect(Number(ledger!.u)).toBe(cleanUnits)
    expect(crashUnits).toBeLessThanOrEqual(cleanUnits + kills)
  })

  it("a second run on a warehouse in use waits up to --lock-wait, then is refused with a clear message, and corrupts nothing", async () => {
    const d = fs.mkdtempSync(path.join(dir, "lock-"))
    const config = remoteConfig(d, sandbox, { pipelines })
    sandbox.control.setFaults("platform", { slowRate: 1, slowMs: 250 }) // a long first run
    const first = spawnCli(["run", "sourcing-search", "--config", config], sandboxEnv())
    const firstDone = collect(first)
    // wait until the first run holds the warehouse (its first page is committed)
    await new Promise<void>((resolve) => first.stderr!.on("data", (x) => String(x).includes("page_committed") && resolve()))
    // it waits for the holder up to --lock-wait (default 30 s), then gives up clearly
    const second = await runCli(["run", "sourcing-search", "--config", config, "--lock-wait", "1s"], sandboxEnv())
    expect(second.code, second.stderr).toBe(2)
    expect(second.stderr).toMatch(/in use|locked/i)
    // the first run held long enough: the rest of it at the file's pace
    sandbox.control.setFaults("platform", { slowRate: 1, slowMs: 40 })
    const r = await firstDone
    expect(r.code).toBe(0)
    const [row] = await readWarehouse(
      path.join(d, "warehouse.duckdb"),
      `SELECT count(*) AS n, count(DISTINCT id) AS d FROM sourcing_properties`
    )
    expect(row!.n).toBe(row!.d)
    expect(Number(row!.n)).toBeGreaterThan(0)
  })
})
