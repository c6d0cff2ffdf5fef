/**
 * Chaos harness: runs a pipeline through the real CLI (a child process) against an in-process
 * sandbox reached as a remote service, SIGKILLs it at random instants, resumes it each time, and
 * compares the final warehouse with a clean run's: the same keys and content checksum per table,
 * no duplicate keys, every committed page once in the ledger, and units charged at most the clean
 * run's plus the pages that can be in flight at a kill (one per slice fetched at once).
 *
 * The CI tests (test/reliability/chaos-*.test.ts) call `runChaos` with 5 kills (10 under CHAOS=full); the full harness
 * is `tools/chaos.ts` (`make chaos`). Also the warehouse readers the reliability tests share.
 */
import { queryWarehouse } from "./queryWarehouse.js"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { catalogue } from "../../pipelines/index.js"
import { sandboxEnv } from "./cli.js"
import { type SandboxHandle, startSandbox } from "../../src/sandbox/Sandbox.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const MAIN = path.join(ROOT, "dist/bundle/main.js")

/** A pipeline the harness knows how to make long enough to be killed many times. */
export interface ChaosScenario {
  readonly pipeline: string
  readonly kind: "paged" | "fan-out"
  readonly params: Record<string, unknown>
  /**
   * Paid pages that can be charged but not committed when the process dies: 1 for one slice; 2
   * for a fan-out (`budget.paidInFlight` lets one paid call out at a time, while another slice's
   * charged page may be waiting for its commit).
   */
  readonly inFlight: number
}

/** Scenarios for a world of 20000 properties; `scale` shrinks page sizes so more kills fit. */
export const scenarios = (scale: "ci" | "full"): Record<string, ChaosScenario> => ({
  "sourcing-search": {
    pipeline: "sourcing-search",
    kind: "paged",
    params: { country: "ES", operation: "sale", pageSize: scale === "ci" ? 50 : 10, maxPages: 100_000 },
    inFlight: 1
  },
  "seller-leads": {
    pipeline: "seller-leads",
    kind: "fan-out",
    // five cities far apart (no lead is near two points, so the point name on a lead is stable)
    params: {
      points: [
        { name: "Madrid", latitude: 40.42, longitude: -3.7 },
        { name: "Barcelona", latitude: 41.39, longitude: 2.17 },
        { name: "Paris", latitude: 48.86, longitude: 2.35 },
        { name: "Seville", latitude: 37.39, longitude: -5.99 },
        { name: "Valencia", latitude: 39.47, longitude: -0.38 }
      ],
      radius_km: 10,
      min_price_cuts: 1,
      min_price_cut_pct: 1,
      pageSize: scale === "ci" ? 5 : 1,
      maxPages: 10_000,
      concurrency: 2
    },
    inFlight: 1
  }
})

export interface TableFigure {
  readonly rows: number
  readonly distinctKeys: number
  readonly checksum: string
}

export interface ChaosResult {
  readonly pipeline: string
  readonly kind: ChaosScenario["kind"]
  readonly kills: number
  readonly killedAfterPages: ReadonlyArray<number>
  readonly cleanUnits: number
  readonly chaosUnits: number
  readonly unitsOver: number
  readonly unitsOverBound: number
  readonly ledgerUnits: number
  readonly ledgerDuplicates: number
  readonly tables: Record<string, { clean: TableFigure; chaos: TableFigure }>
  readonly rowsLost: number
  readonly duplicates: number
  readonly identical: boolean
  readonly finalExit: number | null
  readonly seconds: number
}

/** Deterministic PRNG (mulberry32) so a seed reproduces the kill schedule. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export { sandboxEnv }

/** A settings file pointing at the sandbox as a remote service, its warehouse in `dir`. */
export const writeConfig = (
  dir: string,
  sandbox: SandboxHandle,
  pipelines: Record<string, unknown>,
  extra: Record<string, unknown> = {}
) => {
  const file = path.join(dir, "settings.json")
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        warehouse: path.join(dir, "warehouse.duckdb"),
        output: dir,
        budget: { maxUnits: 1_000_000 },
        ...extra,
        service: { target: "remote", platformUrl: sandbox.platformUrl, apiUrl: sandbox.apiUrl },
        pipelines
      },
      null,
      2
    )
  )
  return file
}

export const spawnCli = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = sandboxEnv()) =>
  spawn(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, SVC_PLATFORM_URL: "", SVC_API_URL: "" },
    stdio: ["ignore", "pipe", "pipe"]
  })

export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly pages: number
}

/**
 * Runs the CLI; when `killAt` is given, SIGKILLs it once `killAt.pages` pages were committed
 * (read from its JSON progress lines) plus `killAt.delayMs` - or `delayMs` after the start when
 * `pages` is 0 - so kills land while requests are in flight, while pages commit, and at start-up.
 */
export const runOnce = (args: ReadonlyArray<string>, killAt?: { pages: number; delayMs: number }, env?: NodeJS.ProcessEnv) =>
  new Promise<Finished>((resolve) => {
    const child = spawnCli(args, env)
    let stdout = ""
    let stderr = ""
    let buffer = ""
    let pages = 0
    let armed = false
    const arm = () => {
      if (armed || !killAt) return
      armed = true
      setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), killAt.delayMs)
    }
    if (killAt && killAt.pages === 0) arm()
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => {
      stderr += d
      buffer += d
      const lines = buffer.split("\n")
      buffer = lines.pop()!
      for (const l of lines) if (l.includes('"page_committed"')) pages++
      if (killAt && pages >= killAt.pages) arm()
    })
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, pages }))
  })

/** Reads a warehouse read-only (`queryWarehouse`), values as DuckDB gives them. */
export const readWarehouse = async <T = Record<string, unknown>>(file: string, sql: string): Promise<Array<T>> =>
  (await queryWarehouse(file, [sql], { readOnly: true, raw: true }))[0] as Array<T>

/** Columns that record when a row was fetched, not what the service said: left out of checksums. */
export const RUN_COLUMNS = new Set(["extracted_at"])

const q = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Per user table (not `_` bookkeeping): rows, distinct primary keys (rows when the table has no
 * key), and a checksum over every column that does not name the run (`_run_id`, `_extracted_at`,
 * `extracted_at`).
 */
export const tableFigures = async (
  file: string,
  primaryKeys: Record<string, ReadonlyArray<string>>
): Promise<Record<string, TableFigure>> => {
  const cols = await readWarehouse<{ t: string; c: string }>(
    file,
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'main' AND table_name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY table_name, ordinal_position`
  )
  const byTable = new Map<string, Array<string>>()
  for (const { t, c } of cols) byTable.set(t, [...(byTable.get(t) ?? []), c])
  const out: Record<string, TableFigure> = {}
  for (const [t, columns] of byTable) {
    const content = columns.filter((c) => !c.startsWith("_") && !RUN_COLUMNS.has(c))
    const key = primaryKeys[t] ?? []
    const [row] = await readWarehouse<{ n: bigint | number; k: bigint | number; h: string | null }>(
      file,
      `SELECT count(*) AS n,
        ${key.length > 0 ? `(SELECT count(*) FROM (SELECT DISTINCT ${key.map(q).join(", ")} FROM ${q(t)}))` : "count(*)"} AS k,
        CAST(sum(hash(${content.map(q).join(", ")})) AS VARCHAR) AS h FROM ${q(t)}`
    )
    out[t] = { rows: Number(row!.n), distinctKeys: Number(row!.k), checksum: row!.h ?? "0" }
  }
  return out
}

export const primaryKeysOf = (pipeline: string): Record<string, ReadonlyArray<string>> => {
  const p = catalogue.find((x) => x.name === pipeline)
  if (!p) throw new Error(`no pipeline ${pipeline}`)
  return Object.fromEntries(p.tables.map((t) => [t.name, t.primaryKey]))
}

const unitsOf = (s: SandboxHandle) => Object.values(s.control.stats().unitsSpent).reduce((a, b) => a + b, 0)

export interface ChaosOptions {
  readonly scenario: ChaosScenario
  readonly kills: number
  readonly seed?: number
  /** A running sandbox (else one is started and stopped). */
  readonly sandbox?: SandboxHandle
  /** Delay of every platform and token response, ms: makes a run long enough to kill often. */
  readonly slowMs?: number
  readonly log?: (line: string) => void
}

/** Clean run, then `kills` killed runs and a final resume on a second warehouse; the comparison. */
export const runChaos = async (options: ChaosOptions): Promise<ChaosResult> => {
  const started = Date.now()
  const { scenario, kills } = options
  const slowMs = options.slowMs ?? 30
  const random = prng(options.seed ?? 7)
  const log = options.log ?? (() => {})
  const own = options.sandbox
    ? undefined
    : await startSandbox({
        world: { properties: 20_000 },
        rateLimit: { platform: { quota: 0, windowSeconds: 1 }, token: { quota: 0, windowSeconds: 1 } }
      })
  const sandbox: SandboxHandle = options.sandbox ?? own!
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `estate-chaos-${scenario.pipeline}-`))
  try {
    for (const host of ["platform", "token"] as const) sandbox.control.setFaults(host, { slowRate: 1, slowMs })
    const pipelines = { [scenario.pipeline]: { params: scenario.params } }
    const cleanDir = fs.mkdtempSync(path.join(root, "clean-"))
    const chaosDir = fs.mkdtempSync(path.join(root, "chaos-"))
    // kills are armed by committed pages, so the loader lands what has arrived at once (no fill
    // wait): many short-lived processes each commit a few pages, as the kills need
    const args = (dir: string) => [
      "run",
      scenario.pipeline,
      "--config",
      writeConfig(dir, sandbox, pipelines, { duckdb: { groupWaitMs: 0 } })
    ]

    let u0 = unitsOf(sandbox)
    const clean = await runOnce(args(cleanDir))
    if (clean.code !== 0)
      throw new Error(
        `clean run exited ${clean.code}: ${clean.stderr
          .split("\n")
          .filter((l) => !l.startsWith("{"))
          .join(" ")}`
      )
    const cleanUnits = unitsOf(sandbox) - u0
    log(`${scenario.pipeline}: clean run ${clean.pages} pages, ${cleanUnits} units`)

    u0 = unitsOf(sandbox)
    const chaosArgs = args(chaosDir)
    const killedAfterPages: Array<number> = []
    let attempts = 0
    while (killedAfterPages.length < kills) {
      if (++attempts > kills * 3) throw new Error(`only ${killedAfterPages.length} of ${kills} kills landed in ${attempts - 1} runs`)
      const r = random()
      // a quarter of the kills at a random instant of start-up and the first request; the rest after 1-3 pages
      const killAt =
        r < 0.25
          ? // the bundled CLI starts in about 0.7 s of CPU: this spans its start-up and first request
            { pages: 0, delayMs: 300 + Math.floor(random() * 1200) }
          : { pages: 1 + Math.floor(random() * 3), delayMs: Math.floor(random() * slowMs * 2) }
      const run = await runOnce(chaosArgs, killAt)
      if (run.signal === "SIGKILL") {
        killedAfterPages.push(run.pages)
        log(`  kill ${killedAfterPages.length}/${kills}: after ${run.pages} pages (+${killAt.delayMs} ms)`)
      } else if (run.code === 0) {
        throw new Error(`the run finished before ${kills} kills (${killedAfterPages.length} landed); make the source longer`)
      } else {
        throw new Error(
          `a run exited ${run.code} instead of being killed: ${run.stderr
            .split("\n")
            .filter((l) => !l.startsWith("{"))
            .join(" ")}`
        )
      }
    }
    const final = await runOnce(chaosArgs)
    const chaosUnits = unitsOf(sandbox) - u0
    log(`  final resume: exit ${final.code}, ${final.pages} pages`)

    const keys = primaryKeysOf(scenario.pipeline)
    const a = await tableFigures(path.join(cleanDir, "warehouse.duckdb"), keys)
    const b = await tableFigures(path.join(chaosDir, "warehouse.duckdb"), keys)
    const tables: ChaosResult["tables"] = {}
    let rowsLost = 0
    let duplicates = 0
    for (const t of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const clean = a[t] ?? { rows: 0, distinctKeys: 0, checksum: "missing" }
      const chaos = b[t] ?? { rows: 0, distinctKeys: 0, checksum: "missing" }
      tables[t] = { clean, chaos }
      rowsLost += Math.max(0, clean.rows - chaos.rows)
      duplicates += chaos.rows - chaos.distinctKeys
    }
    const [ledger] = await readWarehouse<{ u: bigint | number | null; c: bigint | number; d: bigint | number }>(
      path.join(chaosDir, "warehouse.duckdb"),
      `SELECT sum(units) AS u, count(*) AS c, count(DISTINCT request_id) AS d FROM _ledger`
    )
    const identical = Object.values(tables).every((x) => JSON.stringify(x.clean) === JSON.stringify(x.chaos))
    return {
      pipeline: scenario.pipeline,
      kind: scenario.kind,
      kills: killedAfterPages.length,
      killedAfterPages,
      cleanUnits,
      chaosUnits,
      unitsOver: chaosUnits - cleanUnits,
      unitsOverBound: kills * scenario.inFlight,
      ledgerUnits: Number(ledger!.u ?? 0),
      ledgerDuplicates: Number(ledger!.c) - Number(ledger!.d),
      tables,
      rowsLost,
      duplicates,
      identical,
      finalExit: final.code,
      seconds: Math.round((Date.now() - started) / 100) / 10
    }
  } finally {
    for (const host of ["platform", "token"] as const) sandbox.control.setFaults(host, {})
    if (own) await own.close()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

/** A result passes when the data equals the clean run's and the spend stays within the bound. */
export const passed = (r: ChaosResult) =>
  r.finalExit === 0 &&
  r.identical &&
  r.rowsLost === 0 &&
  r.duplicates === 0 &&
  r.ledgerDuplicates === 0 &&
  r.ledgerUnits === r.cleanUnits &&
  r.unitsOver <= r.unitsOverBound
