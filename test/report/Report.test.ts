/**
 * `report --out`: runs against the sandbox (one done, one stopped by the unit cap, one with a key
 * the service does not know), then the page opened in headless Chromium with every request that
 * would leave it blocked and recorded. Every chart is drawn (an svg with a size and its marks),
 * and the totals shown equal the ledger and bookkeeping read from the DuckDB file directly (and
 * the ledger equals the sandbox's own billing). An empty warehouse gives a "no runs yet" page.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Warehouse } from "../../src/load/Warehouse.js"
import { eurOf } from "../../src/service/CostGuard.js"
import { cli, settingsFile, totalUnits } from "../reliability/inProcess.js"
import { launchChromium, openFile } from "../support/chromium.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

/** Chart ids and the marks each must draw (inside Plot's mark groups, not its axes). */
const CHARTS: ReadonlyArray<readonly [string, string]> = [
  ["units-per-day", 'g[aria-label="bar"] rect'],
  ["units-per-pipeline", 'g[aria-label="bar"] rect'],
  ["units-per-run", 'g[aria-label="bar"] rect'],
  ["rows-per-run", 'g[aria-label="bar"] rect'],
  ["run-durations", 'g[aria-label="bar"] rect'],
  ["losses-per-run", 'g[aria-label="cell"] rect']
]

const readDuckDb = async (file: string, sql: string) => {
  const db = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" })
  const conn = await db.connect()
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

describe("report", () => {
  let sandbox: Sandbox
  let browser: Browser
  let dir: string
  beforeAll(async () => {
    browser = await launchChromium()
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-report-"))
  })
  afterAll(async () => {
    await browser?.close()
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("draws every chart offline, and its totals are the ledger's", async () => {
    const config = settingsFile(dir, sandbox, { budget: { maxUnits: 100, dailyMaxUnits: 1000 } })
    const warehouse = path.join(dir, "warehouse.duckdb")
    const known = sandbox.context.world.propertyIdOf(3)
    const runs: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<number>]> = [
      [["run", "plots-germany", "-p", "pageSize=20", "-p", "maxPages=3", "-p", 'criteria.regions=["Bayern"]'], [0]],
      // stopped by the cap: paused, resumable
      [["run", "plots-germany", "-p", "pageSize=5", "-p", "maxPages=20", "--max-units", "3", "--until-cap"], [3]],
      [
        ["run", "premises-search", "--max-units", "40", "--until-cap"],
        [0, 3]
      ],
      // one key the service does not know: _missing
      [["run", "properties-by-id", "-p", `ids=[${known},999999999]`], [0]]
    ]
    for (const [args, codes] of runs) {
      const r = await cli([...args, "--config", config])
      expect(codes, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toContain(r.code)
    }
    const out = path.join(dir, "report", "report.html")
    const made = await cli(["report", "--config", config, "--out", out])
    expect(made.code, made.stderr).toBe(0)
    expect(made.stdout).toContain(`wrote ${out}`)

    // ground truth: the DuckDB file, and the sandbox's own billing
    const [truth] = await readDuckDb(
      warehouse,
      `SELECT (SELECT coalesce(sum(units), 0) FROM _ledger) AS units, (SELECT count(*) FROM _runs) AS runs,
        (SELECT count(*) FROM _rejects) AS rejects, (SELECT count(*) FROM _missing) AS missing,
        (SELECT list(DISTINCT status ORDER BY status) FROM _runs) AS statuses`
    )
    const units = Number(truth!.units)
    expect(units).toBe(totalUnits(sandbox))
    expect(units).toBeGreaterThan(0)
    expect(Number(truth!.runs)).toBe(runs.length)
    expect(Number(truth!.missing)).toBeGreaterThanOrEqual(1)
    expect(truth!.statuses).toEqual(expect.arrayContaining(["done", "paused"]))

    const html = fs.readFileSync(out, "utf8")
    expect(html).not.toMatch(/<script|<link|@import|url\(|src=/i)
    const { page, requests, blocked } = await openFile(browser, out)
    try {
      expect(blocked).toEqual([])
      expect(requests.filter((u) => !u.startsWith("file://"))).toEqual([])
      for (const [id, marks] of CHARTS) {
        const svg = page.locator(`svg[data-chart="${id}"]`)
        expect(await svg.count(), id).toBe(1)
        const box = await svg.boundingBox()
        expect(box!.width, id).toBeGreaterThan(100)
        expect(box!.height, id).toBeGreaterThan(50)
        expect(await svg.locator(marks).count(), id).toBeGreaterThan(0)
      }
      // one bar a run; both caps drawn as rules (beside the zero line)
      expect(await page.locator('svg[data-chart="units-per-run"] g[aria-label="bar"] rect').count()).toBe(runs.length)
      expect(await page.locator('svg[data-chart="losses-per-run"] g[aria-label="cell"] rect').count()).toBe(3 * runs.length)
      for (const id of ["units-per-run", "units-per-day"]) {
        expect(await page.locator(`svg[data-chart="${id}"] g[aria-label="rule"] line`).count(), id).toBe(2)
      }
      expect(await page.locator('svg[data-chart="units-per-run"]').textContent()).toContain("run cap 100 units")
      expect(await page.locator('svg[data-chart="units-per-day"]').textContent()).toContain("daily cap 1000 units")

      const total = async (key: string) => (await page.locator(`#totals td[data-total="${key}"]`).textContent())!.replace(/,/g, "")
      expect(Number(await total("units"))).toBe(units)
      expect(await total("eur")).toBe(`EUR ${eurOf(units).toFixed(2)}`)
      expect(Number(await total("runs"))).toBe(Number(truth!.runs))
      expect(Number(await total("rejects"))).toBe(Number(truth!.rejects))
      expect(Number(await total("missing"))).toBe(Number(truth!.missing))
      const statuses = await page.locator("#runs tbody td:nth-child(3)").allTextContents()
      expect(statuses.sort()).toEqual((await readDuckDb(warehouse, `SELECT status FROM _runs`)).map((r) => String(r.status)).sort())
    } finally {
      await page.context().close()
    }
  })

  it("an empty warehouse gives a page saying no runs yet; a missing one is bad input", async () => {
    const empty = path.join(dir, "empty.duckdb")
    await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Warehouse, () => Effect.void),
        Warehouse.Default({ path: empty })
      )
    )
    const config = settingsFile(dir, sandbox, { warehouse: empty }, "empty.json")
    const out = path.join(dir, "empty.html")
    const made = await cli(["report", "--config", config, "--out", out])
    expect(made.code, made.stderr).toBe(0)
    const { page, blocked } = await openFile(browser, out)
    try {
      expect(blocked).toEqual([])
      expect(await page.locator("#no-runs").isVisible()).toBe(true)
      expect(await page.locator("#no-runs").textContent()).toContain("No runs yet")
      expect(await page.locator("svg[data-chart]").count()).toBe(0)
      expect(await page.locator('#totals td[data-total="units"]').textContent()).toBe("0")
    } finally {
      await page.context().close()
    }
    const missing = await cli(["report", "--config", config, "--warehouse", path.join(dir, "nowhere.duckdb"), "--out", out])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/warehouse: .*nowhere\.duckdb does not exist/)
  })
})
