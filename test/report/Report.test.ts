/**
 * `report --out`: runs against the sandbox (one done, one stopped by the unit cap, one with a key
 * the service does not know, replace tables written three times), then the page opened in headless
 * Chromium with every request that would leave it blocked and recorded. Every chart is drawn (an
 * svg with a size and its marks), and the totals shown equal the ledger and bookkeeping read from
 * the DuckDB file directly (and the ledger equals the sandbox's own billing). The bill answers the
 * payer with the sandbox's own figures: the balance its account holds, the month's units it
 * counted, when the balance runs out at that rate. Rows of a replace table are counted once, a
 * charged run's bar shows under a 5,000-unit run cap, and the page fits two screens at 1280 px.
 * An empty warehouse gives a "no runs yet" page.
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
import { cli } from "../support/inProcessCli.js"
import { launchChromium, openFile } from "../support/chromium.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"
import { settingsFile } from "../support/cli.js"

/** Points for seller-leads (it has no default), as config/sandbox.json gives them. */
const SELLER_POINTS = `points=${JSON.stringify([
  { latitude: 40.42, longitude: -3.7 },
  { latitude: 52.52, longitude: 13.405 }
])}`

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

/** Chart ids and the marks each must draw (inside Plot's mark groups, not its axes). */
const CHARTS: ReadonlyArray<readonly [string, string]> = [
  ["balance", 'g[aria-label="dot"] circle'],
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

/** The sandbox account's balance before the runs: small enough that the forecast has a date. */
const BALANCE = 5_000
const DAY_MS = 86_400_000
/** Two screens of a 1280 x 1100 window. */
const TWO_SCREENS = 2200

describe("report", () => {
  let sandbox: Sandbox
  let browser: Browser
  let dir: string
  beforeAll(async () => {
    browser = await launchChromium()
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    sandbox.control.setBalance("key_default", BALANCE)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-report-"))
  })
  afterAll(async () => {
    await browser?.close()
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("answers how much is left and when it runs out, draws every chart offline, and its totals are the ledger's", async () => {
    // the default run cap (5,000 units), far above any of these runs
    const config = settingsFile(dir, sandbox, { budget: { dailyMaxUnits: 1000 } })
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
      [["run", "properties-by-id", "-p", `ids=[${known},999999999]`], [0]],
      // replace tables, rewritten whole by each run: counted once
      [["run", "references"], [0]],
      [["run", "references"], [0]],
      [["run", "references"], [0]],
      [["run", "seller-leads", "-p", SELLER_POINTS], [0]],
      [["run", "sourcing-search", "-p", "country=PT", "-p", "pageSize=50", "-p", "maxPages=2", "--sample"], [0]]
    ]
    const started = Date.now()
    for (const [args, codes] of runs) {
      const r = await cli([...args, "--config", config])
      expect(codes, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toContain(r.code)
    }
    const out = path.join(dir, "report", "report.html")
    const made = await cli(["report", "--config", config, "--out", out])
    expect(made.code, made.stderr).toBe(0)
    expect(made.stdout).toContain(`wrote ${out} (every run)`)
    const finished = Date.now()

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
    const { page, requests, blocked } = await openFile(browser, out, { width: 1280, height: 1100 })
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
      // one bar a run, each charged run's bar visible under the 5,000-unit cap (log scale: 1 unit is ~12 px, on a
      // linear axis to 5,000 it was 0.05 px), and its plan as a tick
      const bars = page.locator('svg[data-chart="units-per-run"] g[aria-label="bar"] rect')
      expect(await bars.count()).toBe(runs.length)
      const perRun = await readDuckDb(
        warehouse,
        `SELECT coalesce(sum(l.units), 0) AS units FROM _runs r LEFT JOIN _ledger l USING (run_id) GROUP BY r.run_id, r.started_at ORDER BY r.started_at, r.run_id`
      )
      const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("height"))))
      perRun.forEach((r, i) => {
        if (Number(r.units) >= 1) expect(heights[i], `run ${i + 1}: ${String(r.units)} units`).toBeGreaterThanOrEqual(10)
      })
      expect(await page.locator('svg[data-chart="units-per-run"] g[aria-label="tick"] line').count()).toBe(runs.length)
      expect(await page.locator('svg[data-chart="units-per-run"]').textContent()).toContain("run cap 5000 units")
      // the daily cap (1,000) is far above every day: a note, not a rule that flattens the bars
      expect(await page.locator('svg[data-chart="units-per-day"] g[aria-label="rule"] line').count()).toBe(1)
      expect(await page.locator('[data-section="units-per-day"] .caption').textContent()).toContain("far above every day")
      // legends of five series and "other" at most; only the kinds of losses that occurred
      for (const id of ["units-per-day", "rows-per-run"]) {
        const swatches = await page.locator(`[data-section="${id}"] [class$="-swatch"]`).count()
        expect(swatches, id).toBeGreaterThan(0)
        expect(swatches, id).toBeLessThanOrEqual(6)
      }
      expect(await page.locator('svg[data-chart="losses-per-run"] g[aria-label="cell"] rect').count()).toBe(runs.length)

      // the bill: the sandbox's own balance and billing
      const bill = async (key: string) => (await page.locator(`[data-bill="${key}"]`).getAttribute("data-value"))!
      const left = sandbox.control.getBalance("key_default")!
      expect(left).toBe(BALANCE - units)
      expect(Number(await bill("balance"))).toBe(left)
      expect(Number(await bill("month-units"))).toBe(units)
      expect(Number(await bill("month-eur"))).toBe(eurOf(units))
      // the ledger is minutes old: the rate is what it holds, a day
      expect(Number(await bill("per-day"))).toBe(units)
      expect(Number(await bill("days-left"))).toBe(Math.floor(left / units))
      const outOn = (at: number) => new Date(at + (left / units) * DAY_MS).toISOString().slice(0, 10)
      expect([outOn(started), outOn(finished)]).toContain(await bill("runs-out-on"))
      expect(await page.locator("#bill").textContent()).toContain("runs out on")

      // rows: a replace table counted once (its newest run), however many runs rewrote it
      const replaceTables = (await readDuckDb(warehouse, `SELECT table_name FROM _tables WHERE disposition = 'replace' ORDER BY 1`)).map(
        (r) => String(r.table_name)
      )
      expect(replaceTables.length).toBeGreaterThan(3)
      let current = 0
      for (const t of replaceTables) current += Number((await readDuckDb(warehouse, `SELECT count(*) AS n FROM "${t}"`))[0]!.n)
      const [written] = await readDuckDb(
        warehouse,
        `SELECT sum(CAST(value AS BIGINT)) AS n FROM _runs, json_each(rows_per_table) WHERE pipeline = 'references'`
      )
      const refRows = Number((await page.locator('tr[data-pipeline="references"] td[data-col="rows"]').textContent())!.replace(/,/g, ""))
      expect(refRows).toBe(current)
      expect(Number(written!.n)).toBe(3 * current)

      // two screens at 1280 px wide, for every table and run above
      const height = await page.evaluate(
        () => (globalThis as unknown as { document: { body: { scrollHeight: number } } }).document.body.scrollHeight
      )
      expect(height).toBeLessThanOrEqual(TWO_SCREENS)

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
