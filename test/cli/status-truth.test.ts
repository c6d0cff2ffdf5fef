/**
 * `status` tells the truth, through the CLI (its entry, `runCliMain`, in this process: what a
 * child process adds is the business of exit-codes and signals):
 * - units today from the ledger equal what today's runs record, even when the service repeats
 *   request ids across runs (a restarted sandbox did): a proxy in front of the platform host
 *   answers every run with the same ids `req-1`, `req-2`, ...;
 * - checkpoints are one line per pipeline (slices done / total, last update); `--verbose` lists all;
 * - read-only commands never create a warehouse: a path that does not exist is exit 2, one line;
 * - a warehouse of the previous format (ledger keyed by request id alone) still opens, reads
 *   read-only as it is, and is migrated by the next run.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { remoteConfig, sandboxEnv } from "../support/cli.js"
import { cli as runCli } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"
import { FORMAT_VERSION } from "../../src/load/Bookkeeping.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const plots = { "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 3, sample: true } } }
const references = {
  references: {
    params: {
      location_countries: ["ES", "PT", "DE"],
      source_location_ids: [18],
      points: [{ latitude: 40.4168, longitude: -3.7038 }],
      typeahead: [{ country: "ES", query: "Mad" }],
      zip_codes: [{ country_code: "ES", zip_code: "28001" }]
    }
  }
}

/** A pass-through proxy of the platform host that numbers request ids from 1 again whenever told. */
const startIdProxy = async (target: string) => {
  let counter = 0
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", target)
    const up = http.request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (r) => {
      const headers = { ...r.headers }
      if (headers["svc-request-id"] !== undefined) headers["svc-request-id"] = `req-${++counter}`
      res.writeHead(r.statusCode ?? 502, headers)
      r.pipe(res)
    })
    up.on("error", () => res.destroy())
    req.pipe(up)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reset: () => (counter = 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const json = (text: string) => JSON.parse(text) as any
const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "")

describe("status is the truth", () => {
  let sandbox: Sandbox
  let proxy: Awaited<ReturnType<typeof startIdProxy>>
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    proxy = await startIdProxy(sandbox.platformUrl)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-status-"))
  })
  afterAll(async () => {
    await proxy.close()
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("units today from the ledger equal the units of today's runs when two runs get the same request ids", async () => {
    const d = fs.mkdtempSync(path.join(dir, "ledger-"))
    const config = remoteConfig(d, sandbox, { pipelines: plots, service: { platformUrl: proxy.url } })
    for (let i = 0; i < 2; i++) {
      proxy.reset() // the second run is answered with the first one's request ids
      // --fresh: the second run buys its pages again instead of reusing the first run's answers
      const r = await runCli(["run", "plots-germany", "--config", config, "--fresh"], sandboxEnv())
      expect(r.code, r.stderr).toBe(0)
    }
    const runs = await runCli([
      "query",
      "--config",
      config,
      "--json",
      "SELECT count(*) AS runs, sum(units_charged) AS units, (SELECT count(DISTINCT request_id) FROM _ledger) AS ids FROM _runs"
    ])
    expect(runs.code, runs.stderr).toBe(0)
    const q = json(runs.stdout)
    expect(q).toMatchObject({ runs: 2, ids: 3 }) // the same three ids in both runs
    expect(q.units).toBe(6)
    const status = await runCli(["status", "--config", config, "--json"])
    expect(status.code, status.stderr).toBe(0)
    const s = json(status.stdout)
    expect(s.unitsToday).toBe(q.units)
    expect(s.unitsOfTodaysRuns).toBe(q.units)
    const text = await runCli(["status", "--config", config])
    expect(text.stdout).toMatch(/units spent today: 6 \(EUR 0\.24\)/)
    expect(text.stdout).not.toMatch(/^note:/m)
  }, 180_000)

  it("checkpoints: one line per pipeline (slices done / total, last update); --verbose lists every slice", async () => {
    const d = fs.mkdtempSync(path.join(dir, "checkpoints-"))
    const config = remoteConfig(d, sandbox, { pipelines: { ...plots, ...references } })
    for (const p of ["references", "plots-germany"]) expect((await runCli(["run", p, "--config", config], sandboxEnv())).code).toBe(0)
    const slices = Number(
      json(
        (await runCli(["query", "--config", config, "--json", "SELECT count(*) AS n FROM _checkpoints WHERE pipeline = 'references'"]))
          .stdout
      ).n
    )
    expect(slices).toBeGreaterThan(5)
    const short = await runCli(["status", "--config", config])
    expect(short.code, short.stderr).toBe(0)
    const perPipeline = (out: string, p: string) => lines(out).filter((l) => l.startsWith(`${p} `))
    expect(perPipeline(short.stdout, "references")).toHaveLength(1)
    expect(perPipeline(short.stdout, "references")[0]).toMatch(
      new RegExp(`^references\\s+${slices} / ${slices}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`)
    )
    expect(perPipeline(short.stdout, "plots-germany")).toHaveLength(1)
    const verbose = await runCli(["status", "--config", config, "--verbose"])
    expect(verbose.code, verbose.stderr).toBe(0)
    expect(perPipeline(verbose.stdout, "references")).toHaveLength(1 + slices)
    const asJson = json((await runCli(["status", "--config", config, "--json"])).stdout)
    expect(asJson.checkpoints).toContainEqual(expect.objectContaining({ pipeline: "references", done: slices, total: slices }))
  }, 180_000)

  it("read-only commands never create a warehouse: a path that does not exist exits 2 with one line naming it", async () => {
    const d = fs.mkdtempSync(path.join(dir, "missing-"))
    const config = remoteConfig(d, sandbox, { pipelines: plots })
    const typo = path.join(d, "typo.duckdb")
    for (const args of [["status"], ["query", "SELECT 1"], ["export"], ["reload", "plots-germany"]]) {
      const r = await runCli([...args, "--config", config, "--warehouse", typo])
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2)
      expect(lines(r.stderr)).toHaveLength(1)
      expect(r.stderr).toContain(typo)
      expect(r.stderr).toMatch(/does not exist/)
    }
    // the settings' warehouse too (status after a fresh clone, before anything ran)
    const fresh = await runCli(["status", "--config", config])
    expect(fresh.code).toBe(2)
    expect(fresh.stderr).toContain(path.join(d, "warehouse.duckdb"))
    expect(fs.readdirSync(d).filter((f) => f.includes(".duckdb"))).toEqual([])
  }, 180_000)

  it("a warehouse of the previous format (ledger keyed by request id) reads as it is and is migrated by the next run", async () => {
    const d = fs.mkdtempSync(path.join(dir, "format1-"))
    const file = path.join(d, "warehouse.duckdb")
    const config = remoteConfig(d, sandbox, { pipelines: plots, service: { platformUrl: proxy.url } })
    proxy.reset()
    expect((await runCli(["run", "plots-germany", "--config", config], sandboxEnv())).code).toBe(0)
    // back to format 1: the ledger keyed by request_id alone (every other table is the same)
    const db = await DuckDBInstance.create(file)
    const conn = await db.connect()
    await conn.run(`CREATE TABLE _ledger_v1 (request_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL,
      operation VARCHAR NOT NULL, units DOUBLE NOT NULL, "at" TIMESTAMP NOT NULL)`)
    await conn.run(`INSERT INTO _ledger_v1 SELECT request_id, run_id, pipeline, operation, units, "at" FROM _ledger`)
    await conn.run(`DROP TABLE _ledger`)
    await conn.run(`ALTER TABLE _ledger_v1 RENAME TO _ledger`)
    // nor format 4's columns (the balance of a charge, a run's full-pull plan)
    await conn.run(`ALTER TABLE _runs DROP COLUMN units_full`)
    await conn.run(`UPDATE _meta SET value = '1' WHERE key = 'format_version'`)
    conn.closeSync()
    db.closeSync()
    const before = await runCli(["status", "--config", config])
    expect(before.code, before.stderr).toBe(0)
    // read as it is: the old ledger kept no balance
    expect(before.stdout).toContain("balance: not reported yet")
    expect(
      json((await runCli(["query", "--config", config, "--json", "SELECT value FROM _meta WHERE key = 'format_version'"])).stdout)
    ).toEqual({ value: "1" })
    proxy.reset() // req-1.. again: the new run's charges, kept beside the first run's
    const run = await runCli(["run", "plots-germany", "--config", config, "--fresh"], sandboxEnv())
    expect(run.code, run.stderr).toBe(0)
    const after = await runCli([
      "query",
      "--config",
      config,
      "--json",
      "SELECT (SELECT value FROM _meta WHERE key = 'format_version') AS version, (SELECT count(*) FROM _ledger) AS charges, (SELECT count(*) FROM _ledger WHERE request_id = 'req-1') AS first"
    ])
    expect(json(after.stdout)).toEqual({ version: String(FORMAT_VERSION), charges: 6, first: 2 })
    // migrated: the new run's charges carry the balance the service reported
    const status = json((await runCli(["status", "--config", config, "--json"])).stdout)
    expect(status.bill.balance.units).toBe(sandbox.control.getBalance("key_default"))
  }, 180_000)
})
