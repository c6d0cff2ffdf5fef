/**
 * `make bench`: the toolkit against the sandbox on loopback, one table of ratios, each figure
 * measured against a baseline of the same run (absolute times on shared machines are noisy,
 * ratios hold). `--full` runs the throughput and memory figures at 1,000,000 properties instead
 * of 200,000. The sandbox runs in its own process; every pipeline run is a fresh process.
 *
 * `--profile` also runs the small sourcing-search under `node --cpu-prof` and prints where its
 * main thread spends its time (see `ProfileSummary.ts`; the .cpuprofile opens in Chrome DevTools).
 *
 *   tsx bench/main.ts [--full] [--profile] [--out file.md]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { LEAN, memoryLines, sourcingRun, warehouseIn } from "./Memory.js"
import { placesFor } from "./Places.js"
import { runOnce, runScript, startSandboxProc } from "./Procs.js"
import { summarise } from "./ProfileSummary.js"
import { rateLimitUse } from "./RateLimit.js"
import { fmt, type Line, markdown } from "./Report.js"
import { spendAndPlan } from "./Spend.js"
import { type StageRates, stageLines } from "./Stages.js"
import { plotsThroughput, sourcingThroughput, timeSeriesThroughput } from "./Throughput.js"

const args = process.argv.slice(2)
const full = args.includes("--full")
const profile = args.includes("--profile")
const outAt = args.indexOf("--out")
const out = outAt >= 0 ? args[outAt + 1] : undefined

const LARGE = full ? 1_000_000 : 200_000
const SMALL = 20_000
const PLOTS = 20_000
const SERIES = 500
const NAIVE_ROWS = 4_000
const STAGE_ROWS = 40_000
const off = { quota: 0, windowSeconds: 1 }

const log = (s: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-bench-"))
const started = Date.now()
// about 65% of a world's properties are for sale; the chosen countries hold the run's N
const sandbox = await startSandboxProc({
  world: { properties: full ? 5_000_000 : 1_000_000, plots: PLOTS },
  rateLimit: { platform: off, token: off }
})
const lines: Array<Line> = []
let profileText = ""
try {
  const large = await placesFor(sandbox, LARGE)
  const small = await placesFor(sandbox, SMALL)
  log(`world ready; ${fmt(large.total)} properties in ${large.places.length} places, ${fmt(small.total)} in ${small.places.length}`)

  log(`1. throughput: sourcing-search ${fmt(large.total)} properties (floor, naive loader, end to end)`)
  const sourcing = await sourcingThroughput(sandbox, large, dir, NAIVE_ROWS)
  lines.push(...sourcing.lines)
  log(`   plots-germany (a world of ${fmt(PLOTS)} plots)`)
  const plots = await plotsThroughput(sandbox, dir)
  lines.push(...plots.lines)
  log(`   market-time-series fan-out of ${SERIES} location ids`)
  const series = await timeSeriesThroughput(sandbox, SERIES, dir)
  lines.push(...series.lines)

  log(`   stages of a page in one process (parse, normalize, commit), ${fmt(STAGE_ROWS)} properties`)
  lines.push(...stageLines(await runScript<StageRates>("Stages.ts", [String(STAGE_ROWS)]), sourcing.floorRate, sourcing.e2eRate))

  log(`2. memory: sourcing-search ${fmt(small.total)} properties in a fresh process`)
  const smallRun = await sourcingRun(sandbox, small, warehouseIn(dir, "memory-small"))
  lines.push(...memoryLines({ set: small, run: smallRun }, { set: large, run: sourcing.run }, "defaults"))
  log(`   the same two sizes with the lean profile (${LEAN.label})`)
  const leanSmall = await sourcingRun(sandbox, small, warehouseIn(dir, "memory-lean-small"), true)
  const leanLarge = await sourcingRun(sandbox, large, warehouseIn(dir, "memory-lean-large"), true)
  lines.push(...memoryLines({ set: small, run: leanSmall }, { set: large, run: leanLarge }, "lean"))

  if (profile) {
    const profDir = path.join(dir, "prof")
    await runOnce(
      {
        platformUrl: sandbox.platformUrl,
        apiUrl: sandbox.apiUrl,
        warehouse: warehouseIn(dir, "profiled"),
        pipeline: "sourcing-search",
        params: { places: small.places.map(({ country }) => ({ country })), operation: "sale", pageSize: 200 }
      },
      ["--cpu-prof", `--cpu-prof-dir=${profDir}`]
    )
    const file = fs
      .readdirSync(profDir)
      .map((f) => path.join(profDir, f))
      .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!
    const s = summarise(file, 15)
    profileText = [
      `main thread of sourcing-search ${fmt(small.total)} properties, ${fmt(s.total)} ms sampled, self time by file:`,
      ...s.byFile.map((l) => `${(l.share * 100).toFixed(1).padStart(5)}%  ${l.name}`)
    ].join("\n")
    fs.copyFileSync(file, path.join(os.tmpdir(), "estate-bench.cpuprofile"))
  }

  log("3. rate-limit use at 20 requests/s")
  lines.push(...(await rateLimitUse(sandbox, large, dir, { quota: 20, pages: 300 })))

  log("4. spend: a clean CLI run, then 5 SIGKILLs and a resume; 5. plan accuracy")
  lines.push(...(await spendAndPlan(sandbox, small, path.join(dir, "spend"), 5)))
  const exact = (name: string, r: { plannedRequests: number; requests: number }, exactPlan: boolean) => ({
    group: "plan",
    measure: `${name}: requests planned / made${exactPlan ? " (exact plan)" : " (upper bound)"}`,
    value: `${fmt(r.plannedRequests)} planned`,
    baseline: `${fmt(r.requests)} made`,
    ratio: r.plannedRequests / r.requests,
    target: "within 5%",
    met: Math.abs(r.plannedRequests / r.requests - 1) <= 0.05
  })
  lines.push(exact("market-time-series", series.run, series.run.planExact), exact("plots-germany", plots.run, plots.run.planExact))
} finally {
  await sandbox.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

const table = markdown(lines)
const header = `estate-etl bench, ${new Date().toISOString()}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, ${full ? "--full" : "default"} sizes, ${fmt((Date.now() - started) / 1000)} s`
const text = `${header}\n\n${table}\n${profileText ? `\n${profileText}\n(profile kept at ${path.join(os.tmpdir(), "estate-bench.cpuprofile")})\n` : ""}`
process.stdout.write(`\n${text}`)
if (out) fs.writeFileSync(out, text)
