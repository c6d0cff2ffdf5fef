/**
 * `make bench`: the toolkit against the sandbox on loopback, one table of ratios, each figure
 * measured against a baseline of the same run (absolute times on shared machines are noisy,
 * ratios hold). The sandbox runs in its own process; every measured run is a fresh process.
 *
 * The sourcing-search figures of issue 18 (`Rounds.ts`): the floor, the hand-written loader, the
 * same loader with the toolkit's guarantees written in by hand (`GuardedLoader.ts`: what the
 * guarantees cost on their own) and the installed CLI alternate over `--rounds` rounds (default 3), each measured from outside its
 * process (CPU and peak RSS from the kernel, wall from spawn: process start counted), at 200,000
 * properties; `--full` adds runs at 1,000,000 properties for the RSS growth. Cold start
 * (`ColdStart.ts`): `--help` and `list` against `node -e 0`. plots-germany and market-time-series
 * (`Throughput.ts`) alternate with their floors over the rounds too, timed by the run. Lines marked
 * "stage alone" measure one stage in one process and carry no target.
 *
 * `--profile` also runs the small sourcing-search under `node --cpu-prof` and prints where its
 * main thread spends its time (see `ProfileSummary.ts`; the .cpuprofile opens in Chrome DevTools).
 *
 * `--only a,b` runs only the named parts (cold, rounds, memory, plots, series, stages, rate, spend;
 * `plan` lines follow plots and series): e.g. `--only rate` for the rate-limit rounds alone.
 *
 * `--busy 0,2` sets the rate-limit rounds (processes spinning a core beside each; default 0, then 2).
 *
 *   make bench BENCH_ARGS="[--full] [--rounds n] [--profile] [--only parts] [--busy n,m] [--out file.md]"
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { haveTime } from "./ChildRun.js"
import { coldStartLines } from "./ColdStart.js"
import { warehouseIn } from "./Memory.js"
import { placesFor } from "./Places.js"
import { runOnce, runScript, startSandboxProc } from "./Procs.js"
import { summarise } from "./ProfileSummary.js"
import { rateLimitLines, rateLimitRounds } from "./RateLimit.js"
import { fmt, type Line, markdown } from "./Report.js"
import { benchSettings, CLI, roundLines, sourcingRounds, toolkitRun } from "./Rounds.js"
import { spendAndPlan } from "./Spend.js"
import { type StageRates, stageLines } from "./Stages.js"
import { plotsThroughput, timeSeriesThroughput } from "./Throughput.js"
import { spread } from "./ChildRun.js"

const args = process.argv.slice(2)
const full = args.includes("--full")
const profile = args.includes("--profile")
const outAt = args.indexOf("--out")
const out = outAt >= 0 ? args[outAt + 1] : undefined
const roundsAt = args.indexOf("--rounds")
const ROUNDS = roundsAt >= 0 ? Math.max(1, Number(args[roundsAt + 1])) : 3
const PARTS = ["cold", "rounds", "memory", "plots", "series", "stages", "rate", "spend"] as const
const onlyAt = args.indexOf("--only")
const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? "").split(",").map((s) => s.trim())) : undefined
for (const p of only ?? [])
  if (!(PARTS as ReadonlyArray<string>).includes(p)) throw new Error(`--only: no part "${p}" (${PARTS.join(", ")})`)
/** `--busy 0,2`: the rate-limit rounds, as processes spinning a core beside each (default: 0, then 2). */
const busyAt = args.indexOf("--busy")
const BUSY = busyAt >= 0 ? (args[busyAt + 1] ?? "").split(",").map(Number) : [0, 2]
const runs = (part: (typeof PARTS)[number]) => only === undefined || only.has(part)

const LARGE = 200_000
const HUGE = 1_000_000
const SMALL = 20_000
const PLOTS = 20_000
const SERIES = 500
const STAGE_ROWS = 40_000
/** Pages of each rate-limit round: ~30 s at 20/s, so start and end weigh little. */
const RATE_PAGES = 600
const COLD_ROUNDS = 7
const off = { quota: 0, windowSeconds: 1 }

const log = (s: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${s}\n`)

if (!haveTime()) throw new Error("the bench measures children with GNU time: install it (Debian: apt-get install time)")
if (!fs.existsSync(CLI)) throw new Error(`no ${CLI}: build the CLI first (npm run build; make bench does)`)
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")
const loadBefore = load()
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-bench-"))
const started = Date.now()
// about 65% of a world's properties are for sale; the chosen countries hold the run's N
const sandbox = await startSandboxProc({
  world: { properties: full ? 5_000_000 : 1_000_000, plots: PLOTS },
  rateLimit: { platform: off, token: off }
})
const loads: Array<string> = [loadBefore]
const lines: Array<Line> = []
let profileText = ""
try {
  const large = await placesFor(sandbox, LARGE)
  const small = await placesFor(sandbox, SMALL)
  const huge = full && runs("memory") ? await placesFor(sandbox, HUGE) : undefined
  log(`world ready; ${fmt(large.total)} properties in ${large.places.length} places, ${fmt(small.total)} in ${small.places.length}`)

  if (runs("cold")) {
    log(`1. cold start: --help and list against node -e 0, ${COLD_ROUNDS} rounds`)
    lines.push(...(await coldStartLines(COLD_ROUNDS)))
  }

  let e2eMedian = NaN
  let floorMedian = NaN
  let rss200k = NaN
  if (runs("rounds") || runs("memory") || runs("stages")) {
    log(
      `2. sourcing-search ${fmt(large.total)} properties: floor, hand-written loader (without and with the guarantees), toolkit; ${ROUNDS} rounds`
    )
    const rounds = await sourcingRounds(sandbox, large, dir, ROUNDS, log)
    loads.push(load())
    lines.push(...roundLines(large, rounds))
    e2eMedian = spread(rounds.toolkit.map((m) => (m.rows * 1000) / m.wallMs)).median
    floorMedian = spread(rounds.floor.map((m) => (m.rows * 1000) / m.wallMs)).median
    rss200k = spread(rounds.toolkit.map((m) => m.peakRssMb)).median
  }

  if (runs("memory")) log(`3. memory: the toolkit at ${fmt(small.total)}${huge ? ` and ${fmt(huge.total)}` : ""} properties`)
  const settings = benchSettings(sandbox, dir)
  // a run's peak RSS moves by ~10 MB from run to run, so the 1,000,000 figure is a median too
  const growth = async (set: typeof small, target: string, limit: number | undefined, count: number) => {
    const peaks: Array<number> = []
    for (let i = 0; i < count; i++) {
      const m = await toolkitRun(settings, set, warehouseIn(dir, `memory-${set.total}-${i}`))
      log(`   ${fmt(set.total)}: ${fmt(m.wallMs)} ms wall, ${fmt(m.cpuMs)} ms cpu, ${fmt(m.peakRssMb)} MB peak RSS`)
      peaks.push(m.peakRssMb)
    }
    const rss = spread(peaks)
    lines.push({
      group: "memory",
      measure: `defaults (no flags): peak RSS ${fmt(set.total)} properties${count > 1 ? `, ${count} runs` : ""} / ${fmt(large.total)} (the median above)`,
      value: count > 1 ? `${fmt(rss.median)} MB (${fmt(rss.min)}-${fmt(rss.max)})` : `${fmt(rss.median)} MB`,
      baseline: `${fmt(rss200k)} MB`,
      ratio: rss.median / rss200k,
      target,
      met: limit === undefined ? undefined : rss.median / rss200k <= limit,
      why: "two transient peaks, whichever is higher in a run: the toolkit's checkpoints (+10-116 MB: each gets 1280MB so that it cannot fail, a checkpoint short of memory being fatal in DuckDB, and a room read from the tables failed with long values) and the run's finish, which adds its 1,000,000 keys to its slices' members at the landing limit (+15-75 MB); the stream itself rises from ~280 to ~315 MB outside V8 (heap 56-67 MB, array buffers 8-23 MB throughout: native memory); docs/BENCHMARKS.md, the 1,034,151-property pull"
    })
  }
  if (runs("memory")) await growth(small, "", undefined, 1)
  if (huge) await growth(huge, "<= 1.10", 1.1, ROUNDS)

  if (runs("plots") || runs("series"))
    log(`4. plots-germany (a world of ${fmt(PLOTS)} plots) and a market-time-series fan-out of ${SERIES}`)
  const plotsResult = runs("plots") ? await plotsThroughput(sandbox, dir, ROUNDS, log) : undefined
  const plots = plotsResult?.run
  lines.push(...(plotsResult?.lines ?? []))
  const series = runs("series") ? await timeSeriesThroughput(sandbox, SERIES, dir, ROUNDS, log) : undefined
  lines.push(...(series?.lines ?? []))

  if (runs("stages")) {
    log(`5. stages of a page in one process (parse, normalize, commit), ${fmt(STAGE_ROWS)} properties`)
    lines.push(...stageLines(await runScript<StageRates>("Stages.ts", [String(STAGE_ROWS)]), floorMedian, e2eMedian))
  }

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

  if (runs("rate")) {
    log(`6. rate-limit use at 20 requests/s, ${RATE_PAGES} pages: quiet, then with two busy processes beside it`)
    lines.push(
      ...rateLimitLines(
        await rateLimitRounds(
          sandbox,
          large,
          dir,
          {
            quota: 20,
            pages: RATE_PAGES,
            busy: BUSY,
            ...(profile ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${path.join(os.tmpdir(), "estate-bench-rate-prof")}`] } : {})
          },
          log
        )
      )
    )
  }

  if (runs("spend")) {
    log("7. spend: a clean CLI run, then 5 SIGKILLs and a resume")
    lines.push(...(await spendAndPlan(sandbox, small, path.join(dir, "spend"), 5)))
  }
  log("8. plan accuracy")
  const exact = (name: string, r: { plannedRequests: number; requests: number }, exactPlan: boolean) => ({
    group: "plan",
    measure: `${name}: requests planned / made${exactPlan ? " (exact plan)" : " (upper bound)"}`,
    value: `${fmt(r.plannedRequests)} planned`,
    baseline: `${fmt(r.requests)} made`,
    ratio: r.plannedRequests / r.requests,
    target: "within 5%",
    met: Math.abs(r.plannedRequests / r.requests - 1) <= 0.05
  })
  if (series) lines.push(exact("market-time-series", series.run, series.run.planExact))
  if (plots) lines.push(exact("plots-germany", plots, plots.planExact))
} finally {
  await sandbox.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

const table = markdown(lines)
loads.push(load())
const header = `estate-etl bench, ${new Date().toISOString()}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), node ${process.version}, ${full ? "--full" : "default"} sizes, ${ROUNDS} rounds,${only ? ` only ${[...only].join(",")},` : ""} ${fmt((Date.now() - started) / 1000)} s; load averages (1, 5, 15 min) at start, after the rounds, at the end: ${loads.join("; ")}`
const text = `${header}\n\n${table}\n${profileText ? `\n${profileText}\n(profile kept at ${path.join(os.tmpdir(), "estate-bench.cpuprofile")})\n` : ""}`
process.stdout.write(`\n${text}`)
if (out) fs.writeFileSync(out, text)
