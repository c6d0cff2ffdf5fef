/**
 * Landing groups as a run makes them, through the real CLI against the sandbox, read from its JSON
 * progress lines (`group_landed`): a fan-out of one small answer per key lands 256 answers a
 * transaction by default (was 32), `duckdb.groupPages` and `duckdb.groupRecords` bound a group
 * from the settings, and every answer lands whatever the groups.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { queryWarehouse } from "../support/queryWarehouse.js"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

interface Landed {
  readonly pages: number
  readonly records: number
}

/** The groups a run landed, in order: pages and records of each (from the cumulative totals). */
const groupsOf = (stderr: string): Array<Landed> => {
  let before = 0
  const out: Array<Landed> = []
  for (const line of stderr.split("\n")) {
    if (!line.includes('"group_landed"')) continue
    const e = JSON.parse(line) as { pages: number; totals: { records: number } }
    out.push({ pages: e.pages, records: e.totals.records - before })
    before = e.totals.records
  }
  return out
}

describe("landing groups", () => {
  let sandbox: Sandbox
  let dir: string
  let ids: Array<number>
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 3000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-groups-"))
    ids = sandbox.context.world.locations.slice(0, 300).map((l) => l.location_id)
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /** market-time-series over the first `n` locations into a new warehouse, with `duckdb` settings; its groups. */
  const run = async (n: number, duckdb: Record<string, unknown>) => {
    const d = fs.mkdtempSync(path.join(dir, "run-"))
    const params = {
      location_ids: ids.slice(0, n),
      types: ["apartment"],
      business_type: "sale",
      data_points: ["avg_price"],
      date_interval: "month",
      date_range: { min: "2026-01-07", max: "2026-05-20" }
    }
    // no part-full group lands on a timer: the groups are the bounds' alone, however slow the machine
    const config = remoteConfig(d, sandbox, {
      duckdb: { groupWaitMs: 600_000, ...duckdb },
      pipelines: { "market-time-series": { params } }
    })
    const r = await runCli(["run", "market-time-series", "--config", config], sandboxEnv())
    expect(r.code, r.stderr.slice(-2000)).toBe(0)
    const [rows] = await queryWarehouse(path.join(d, "warehouse.duckdb"), ["SELECT count(*) AS n FROM market_time_series_requests"])
    return { groups: groupsOf(r.stderr), requests: Number(rows![0]!.n) }
  }

  it("a fan-out of small answers lands 256 a transaction by default, every answer landed", async () => {
    const { groups, requests } = await run(300, {})
    expect(groups.map((g) => g.pages)).toEqual([256, 44])
    expect(requests).toBe(300)
  })

  it("duckdb.groupPages bounds a group's pages, duckdb.groupRecords its records", async () => {
    const byPages = await run(60, { groupPages: 25 })
    expect(byPages.groups.map((g) => g.pages)).toEqual([25, 25, 10])
    expect(byPages.requests).toBe(60)

    const bound = 100
    const byRecords = await run(60, { groupRecords: bound })
    expect(byRecords.requests).toBe(60)
    expect(byRecords.groups.reduce((n, g) => n + g.pages, 0)).toBe(60)
    // every group but the last closed at the record bound (its pages are far below the page bound)
    expect(byRecords.groups.length).toBeGreaterThan(1)
    for (const g of byRecords.groups.slice(0, -1)) {
      expect(g.records).toBeGreaterThanOrEqual(bound)
      expect(g.pages).toBeLessThan(60)
    }
  })
})
