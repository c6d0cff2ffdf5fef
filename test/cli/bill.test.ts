/**
 * The bill outside the report: `status` prints it in three lines (balance, month to date,
 * forecast) and in `--json`, a run's metrics file carries it as account-level gauges, all with the
 * sandbox's own figures (its account's balance, its billing counter). `report --since` /
 * `--month` bound the page to a period, and bad values are one line naming the flag and the
 * format it takes, exit 2.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseFamilies } from "../../src/monitor/PrometheusFile.js"
import { eurOf } from "../../src/service/CostGuard.js"
import { cli } from "../support/inProcessCli.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"
import { settingsFile } from "../support/cli.js"

/** Points for seller-leads (it has no default), as config/sandbox.json gives them. */
const SELLER_POINTS = `points=${JSON.stringify([
  { latitude: 40.42, longitude: -3.7 },
  { latitude: 52.52, longitude: 13.405 }
])}`

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const BALANCE = 1_000
const DAY_MS = 86_400_000

describe("the bill in status, the metrics file and report's period", () => {
  let sandbox: Sandbox
  let dir: string
  let config: string
  const metrics = () => path.join(dir, "metrics", "estate_etl.prom")
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    sandbox.control.setBalance("key_default", BALANCE)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-bill-"))
    config = settingsFile(dir, sandbox, { budget: { dailyMaxUnits: 50 } })
    for (const args of [
      ["run", "plots-germany", "-p", "pageSize=20", "-p", "maxPages=3", "--sample", "--metrics-file", metrics()],
      ["run", "seller-leads", "-p", SELLER_POINTS, "--metrics-file", metrics()]
    ]) {
      const r = await cli([...args, "--config", config])
      expect(r.code, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0)
    }
  }, 120_000)
  afterAll(async () => {
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("status: balance, month to date and forecast, from the sandbox's own balance and billing", async () => {
    const units = totalUnits(sandbox)
    const left = sandbox.control.getBalance("key_default")!
    expect(units).toBeGreaterThan(0)
    expect(left).toBe(BALANCE - units)
    const month = new Date().toISOString().slice(0, 7)
    const text = await cli(["status", "--config", config])
    expect(text.code, text.stderr).toBe(0)
    const lines = text.stdout.split("\n")
    const at = lines.findIndex((l) => l.startsWith("balance: "))
    expect(lines[at]).toMatch(new RegExp(`^balance: ${left.toLocaleString("en")} units \\(EUR ${eurOf(left).toFixed(2)}\\) left, as of `))
    // the ledger is younger than a week: the change counts from the balance before its first charge
    expect(lines[at]).toContain(`; -${units} units over the last 7 days`)
    expect(lines[at + 1]).toBe(`month to date (${month}): ${units} units, EUR ${eurOf(units).toFixed(2)}`)
    const days = Math.floor(left / units)
    const outOn = new Date(Date.now() + (left / units) * DAY_MS).toISOString().slice(0, 10)
    expect(lines[at + 2]).toMatch(/^forecast: /)
    expect(lines[at + 2]).toContain(`${units} units a day (last 1 day), ${Math.round((units / 50) * 100)}% of the daily cap of 50`)
    expect(lines[at + 2]).toContain(`the balance runs out on ${outOn} (in ${days} days)`)

    const json = await cli(["status", "--config", config, "--json"])
    expect(json.code, json.stderr).toBe(0)
    const bill = JSON.parse(json.stdout).bill
    expect(bill.balance.units).toBe(left)
    expect(bill.weekChange).toBe(-units)
    expect(bill.month).toMatchObject({ month, units, toDate: true })
    expect(bill.forecast).toMatchObject({ perDay: units, dailyCap: 50, runsOutOn: outOn })
  })

  it("the metrics file carries the balance, the month and the days left", () => {
    const units = totalUnits(sandbox)
    const left = sandbox.control.getBalance("key_default")!
    const families = parseFamilies(fs.readFileSync(metrics(), "utf8"))
    const value = (name: string) => {
      const f = families.find((x) => x.name === name)
      expect(f?.samples, name).toHaveLength(1)
      expect(f!.samples[0]!.labels).toEqual({})
      return f!.samples[0]!.value
    }
    expect(value("estate_etl_units_remaining")).toBe(left)
    expect(value("estate_etl_units_month_to_date")).toBe(units)
    expect(value("estate_etl_eur_month_to_date")).toBe(eurOf(units))
    expect(value("estate_etl_forecast_units_per_day")).toBe(units)
    expect(value("estate_etl_forecast_days_left")).toBeCloseTo(left / units, 6)
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/MONITORING.md"), "utf8")
    for (const f of families.filter((x) => !x.samples.some((s) => s.labels.pipeline !== undefined)))
      expect(doc, f.name).toContain(`\`${f.name}\``)
  })

  it("report --since and --month bound the period; bad values name the flag and its format (exit 2)", async () => {
    const out = path.join(dir, "report.html")
    const today = new Date().toISOString().slice(0, 10)
    const since = await cli(["report", "--config", config, "--out", out, "--since", today])
    expect(since.code, since.stderr).toBe(0)
    expect(since.stdout).toContain(`(since ${today}): 2 runs, ${totalUnits(sandbox)} units`)
    const now = new Date()
    const previous = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7)
    const before = await cli(["report", "--config", config, "--out", out, "--month", previous])
    expect(before.code, before.stderr).toBe(0)
    expect(before.stdout).toContain(`(${previous}): 0 runs, 0 units`)
    expect(before.stdout).toContain(`month (${previous}): 0 units, EUR 0.00`)
    expect(fs.readFileSync(out, "utf8")).toContain(`Runs ${previous}`)

    const bad: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["--month", "2026-13"], /--month: "2026-13" is not a month; give it as YYYY-MM, e\.g\. 2026-11/],
      [["--month", "november"], /--month: "november" is not a month; give it as YYYY-MM/],
      [["--since", "27.11.2026"], /--since: "27\.11\.2026" is not a day; give a UTC date as YYYY-MM-DD/],
      [["--since", "2026-02-30"], /--since: "2026-02-30" is not a day/],
      [["--since", "2999-01-01"], /--since: 2999-01-01 is in the future; give a UTC date up to today as YYYY-MM-DD/],
      [["--since", today, "--month", previous], /--since: give --since YYYY-MM-DD or --month YYYY-MM, not both/]
    ]
    for (const [flags, message] of bad) {
      const r = await cli(["report", "--config", config, "--out", out, ...flags])
      expect(r.code, flags.join(" ")).toBe(2)
      expect(r.stderr, flags.join(" ")).toMatch(message)
      expect(r.stderr.trim().split("\n"), flags.join(" ")).toHaveLength(1)
    }
  })
})
