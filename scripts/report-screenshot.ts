/**
 * The README's picture of the spend report: a few runs against a local sandbox whose account
 * holds 2,000 units (one run stopped by the unit cap, one with a key the service does not know,
 * the replace tables of `references` written twice), `report`, and a screenshot of the page's top
 * at 1280 px wide in headless Chromium (Debian's `chromium`, as the report test uses it): the
 * balance, the month, when the balance runs out, the totals and the first charts.
 *
 *   npx tsx scripts/report-screenshot.ts [docs/img/report.png]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cli, settingsFile } from "../test/reliability/inProcess.js"
import { launchChromium, openFile } from "../test/support/chromium.js"
import { startTestSandbox } from "../test/support/sandbox.js"

const target = path.resolve(process.argv[2] ?? "docs/img/report.png")

const RUNS: ReadonlyArray<ReadonlyArray<string>> = [
  ["run", "plots-germany", "-p", "pageSize=20", "-p", "maxPages=4", "-p", 'criteria.regions=["Bayern","Hessen"]', "--sample"],
  ["run", "seller-leads"],
  ["run", "premises-search", "--max-units", "40", "--until-cap"],
  [
    "run",
    "plots-germany",
    "-p",
    "pageSize=5",
    "-p",
    "maxPages=30",
    "-p",
    'criteria={"regions":["Nordrhein-Westfalen"]}',
    "--max-units",
    "6",
    "--until-cap"
  ],
  ["run", "sourcing-search", "-p", "pageSize=50", "-p", "maxPages=3", "--sample"],
  ["run", "references"],
  ["run", "seller-leads"],
  ["run", "references"]
]

/** The sandbox account's balance before the runs: small enough that the forecast has a date. */
const BALANCE = 2_000

const main = async () => {
  const sandbox = await startTestSandbox({ world: { properties: 20_000 } })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-report-shot-"))
  const browser = await launchChromium()
  sandbox.control.setBalance("key_default", BALANCE)
  try {
    const config = settingsFile(dir, sandbox, {
      budget: { maxUnits: 150, dailyMaxUnits: 300 },
      pipelines: JSON.parse(fs.readFileSync("config/sandbox.json", "utf8")).pipelines
    })
    const ids = [3, 5, 8, 13, 21].map((i) => sandbox.context.world.propertyIdOf(i))
    for (const args of [...RUNS, ["run", "properties-by-id", "-p", `ids=[${[...ids, 999999999].join(",")}]`]]) {
      const r = await cli([...args, "--config", config])
      process.stdout.write(`${r.code}  ${args.join(" ")}\n`)
    }
    const page = process.env.REPORT_HTML ?? path.join(dir, "report.html")
    const made = await cli(["report", "--config", config, "--out", page])
    if (made.code !== 0) throw new Error(`report ended ${made.code}: ${made.stderr}`)
    const opened = await openFile(browser, page, { width: 1280, height: 1100 })
    if (opened.blocked.length > 0) throw new Error(`the page asked for ${opened.blocked.join(", ")}`)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    // the top of the page: the bill, the totals, the balance and units per day, units per run against the run cap
    const bottom = await opened.page.locator('[data-section="units-per-run"]').evaluate((e) => e.getBoundingClientRect().bottom)
    await opened.page.screenshot({ path: target, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 } })
    const height = await opened.page.evaluate(
      () => (globalThis as unknown as { document: { body: { scrollHeight: number } } }).document.body.scrollHeight
    )
    process.stdout.write(`${made.stdout}page height ${height} px at 1280 wide\nwrote ${target}\n`)
  } finally {
    await browser.close()
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
