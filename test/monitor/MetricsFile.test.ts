/**
 * The Prometheus metrics file against the warehouse's ground truth: three `run` commands on one
 * file (a token-host pipeline named by ESTATE_ETL_METRICS_FILE over the settings' `metricsFile`;
 * a set of three platform pipelines under 429 bursts with `--metrics-file`; one of them stopped by
 * `--max-units`), each series read with a strict parser and checked against `_runs`, `_ledger`,
 * `_missing`, `_rejects`, the tables and the sandbox's own counts; earlier pipelines' series survive.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BILL_METRICS } from "../../src/monitor/BillMetrics.js"
import { RUN_METRICS, RUN_STATUSES } from "../../src/monitor/RunFigures.js"
import { cli } from "../support/inProcessCli.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"
import { parseProm, type PromSample, queryWarehouse, valueOf } from "./support.js"
import { sandboxEnv, settingsFile } from "../support/cli.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const ROOT = path.resolve(import.meta.dirname, "../..")

describe("--metrics-file", () => {
  let sandbox: Sandbox
  let dir: string
  let config: string
  let file: string
  let warehouse: string
  const read = () => parseProm(fs.readFileSync(file, "utf8"))
  const snapshots: Array<{ samples: Array<PromSample>; from: number; to: number; units: number; throttled: number }> = []

  /** Runs one command and keeps the file it left, with the command's time span and the sandbox's counts. */
  const run = async (args: ReadonlyArray<string>, expected: number, env: Record<string, string> = {}) => {
    const before = { units: totalUnits(sandbox), throttled: sandbox.control.stats().statuses["429"] ?? 0 }
    const from = Date.now()
    const r = await cli(["run", ...args, "--config", config], { ...sandboxEnv(), ...env })
    expect(r.code, r.stdout + r.stderr).toBe(expected)
    snapshots.push({
      samples: read().samples,
      from: Math.floor(from / 1000),
      to: Math.ceil(Date.now() / 1000),
      units: totalUnits(sandbox) - before.units,
      throttled: (sandbox.control.stats().statuses["429"] ?? 0) - before.throttled
    })
    return r
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 600 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-metrics-"))
    file = path.join(dir, "textfile", "estate_etl.prom")
    warehouse = path.join(dir, "warehouse.duckdb")
    const ids = [1, 2, 3, 4].map((i) => sandbox.context.world.propertyIdOf(i))
    config = settingsFile(dir, sandbox, {
      metricsFile: path.join(dir, "from-settings.prom"),
      pipelines: {
        references: {
          params: {
            location_countries: ["ES"],
            source_location_ids: [18],
            points: [{ latitude: 40.4168, longitude: -3.7038 }],
            typeahead: [{ country: "ES", query: "Mad" }],
            zip_codes: [{ country_code: "ES", zip_code: "28001" }]
          }
        },
        "sourcing-search": { params: { country: "PT", pageSize: 5, maxPages: 3, sample: true } },
        // one id the world never knew: a _missing row
        "properties-by-id": { params: { ids: [...ids, 987654321] } },
        "plots-germany": { params: { pageSize: 5, maxPages: 3, sample: true } }
      },
      sets: { nightly: ["sourcing-search", "properties-by-id", "plots-germany"] }
    })
    await run(["references"], 0, { ESTATE_ETL_METRICS_FILE: file })
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /** Every series of `pipeline`'s last run against `_runs`, `_ledger`, `_missing` and `_rejects`. */
  const checkRun = async (samples: ReadonlyArray<PromSample>, pipeline: string) => {
    const [r] = await queryWarehouse(
      warehouse,
      `SELECT run_id, status, pages, requests, retries, units_charged, eur, CAST(rows_per_table AS VARCHAR) AS rows_per_table,
         epoch(finished_at) - epoch(started_at) AS seconds,
         (SELECT coalesce(sum(units), 0) FROM _ledger l WHERE l.run_id = r.run_id) AS ledger,
         (SELECT count(*) FROM _missing m WHERE m.run_id = r.run_id) AS missing,
         (SELECT count(*) FROM _rejects j WHERE j.run_id = r.run_id) AS rejects
       FROM _runs r WHERE pipeline = '${pipeline}' ORDER BY started_at DESC LIMIT 1`
    )
    const v = (name: string, labels: Record<string, string> = {}) => valueOf(samples, name, { pipeline, ...labels })
    for (const status of RUN_STATUSES) expect(v("estate_etl_run_status", { status }), status).toBe(status === r!.status ? 1 : 0)
    expect(v("estate_etl_run_pages")).toBe(Number(r!.pages))
    expect(v("estate_etl_run_requests")).toBe(Number(r!.requests))
    expect(v("estate_etl_run_retries")).toBe(Number(r!.retries))
    expect(v("estate_etl_run_units")).toBe(Number(r!.ledger))
    expect(v("estate_etl_run_units")).toBe(Number(r!.units_charged))
    expect(v("estate_etl_run_eur")).toBe(Math.round(Number(r!.ledger) * 0.04 * 100) / 100)
    expect(v("estate_etl_run_eur")).toBe(Number(r!.eur))
    expect(v("estate_etl_run_missing_keys")).toBe(Number(r!.missing))
    expect(v("estate_etl_run_rejects")).toBe(Number(r!.rejects))
    const rows = JSON.parse(String(r!.rows_per_table)) as Record<string, number>
    for (const [table, n] of Object.entries(rows)) expect(v("estate_etl_run_table_rows", { table }), table).toBe(n)
    expect(v("estate_etl_run_rows")).toBe(Object.values(rows).reduce((a, b) => a + b, 0))
    expect(Math.abs(v("estate_etl_run_duration_seconds") - Number(r!.seconds))).toBeLessThan(1)
    return { status: String(r!.status), rows, runId: String(r!.run_id) }
  }

  it("a token-host run through ESTATE_ETL_METRICS_FILE (over the settings' metricsFile): every series matches the warehouse", async () => {
    const [first] = snapshots
    expect(first, "the first run wrote the file").toBeDefined()
    const { types, samples } = read()
    // every family this version writes, typed as a gauge with its help
    for (const name of Object.keys(RUN_METRICS).filter((n) => n !== "estate_etl_run_table_rows"))
      expect(types.get(name), name).toBe("gauge")
    const run = await checkRun(first!.samples, "references")
    expect(run.status).toBe("done")
    expect(valueOf(samples, "estate_etl_run_exit_code", { pipeline: "references" })).toBe(0)
    expect(valueOf(samples, "estate_etl_run_units", { pipeline: "references" })).toBe(first!.units)
    const ended = valueOf(samples, "estate_etl_last_run_timestamp_seconds", { pipeline: "references" })
    expect(ended).toBeGreaterThanOrEqual(first!.from)
    expect(ended).toBeLessThanOrEqual(first!.to)
    expect(valueOf(samples, "estate_etl_last_success_timestamp_seconds", { pipeline: "references" })).toBe(ended)
    expect(fs.existsSync(path.join(dir, "from-settings.prom")), "the environment wins over the settings").toBe(false)
  })

  it("a set under 429 bursts with --metrics-file: each pipeline's series, 429s as the sandbox answered them, rows as in the tables", async () => {
    sandbox.control.setFaults("platform", { burstRate: 0.15, burstLength: 2, burstRetryAfterSeconds: 0 })
    try {
      await run(["nightly", "--metrics-file", file], 0)
    } finally {
      sandbox.control.setFaults("platform", {})
    }
    const now = snapshots.at(-1)!
    const nightly = ["sourcing-search", "properties-by-id", "plots-germany"]
    let units = 0
    let throttled = 0
    for (const pipeline of nightly) {
      const r = await checkRun(now.samples, pipeline)
      expect(r.status, pipeline).toBe("done")
      units += valueOf(now.samples, "estate_etl_run_units", { pipeline })
      throttled += valueOf(now.samples, "estate_etl_run_rate_limited", { pipeline })
      // the first run into these tables: what it wrote is what they hold
      for (const [table, n] of Object.entries(r.rows)) {
        const [{ n: held }] = (await queryWarehouse(warehouse, `SELECT count(*) AS n FROM "${table}"`)) as [{ n: bigint }]
        expect(Number(held), `${pipeline}: ${table}`).toBe(n)
      }
    }
    expect(units).toBe(now.units)
    expect(throttled).toBe(now.throttled)
    expect(throttled).toBeGreaterThan(0)
    expect(valueOf(now.samples, "estate_etl_run_missing_keys", { pipeline: "properties-by-id" })).toBe(1)
    // the earlier pipeline's series are kept as they were
    const earlier = snapshots[0]!.samples.filter((s) => s.labels.pipeline === "references")
    expect(now.samples.filter((s) => s.labels.pipeline === "references")).toEqual(earlier)
  })

  it("a run stopped by --max-units: status paused, exit code 3, its last success kept, the others' series untouched", async () => {
    const plan = await cli(["plan", "plots-germany", "--config", config, "--json"])
    const perCall = JSON.parse(plan.stdout).plans[0].unitsPerRequest as number
    expect(perCall).toBeGreaterThan(0)
    const before = snapshots.at(-1)!.samples
    // --fresh: the pages the set bought above would be reused at 0 units and never reach the cap
    await run(["plots-germany", "--metrics-file", file, "--max-units", String(perCall), "--until-cap", "--fresh"], 3)
    const now = snapshots.at(-1)!
    const r = await checkRun(now.samples, "plots-germany")
    expect(r.status).toBe("paused")
    expect(valueOf(now.samples, "estate_etl_run_exit_code", { pipeline: "plots-germany" })).toBe(3)
    expect(valueOf(now.samples, "estate_etl_run_units", { pipeline: "plots-germany" })).toBe(now.units)
    expect(valueOf(now.samples, "estate_etl_run_capped_slices", { pipeline: "plots-germany" })).toBeGreaterThan(0)
    const success = (samples: ReadonlyArray<PromSample>) =>
      valueOf(samples, "estate_etl_last_success_timestamp_seconds", { pipeline: "plots-germany" })
    expect(success(now.samples)).toBe(success(before))
    expect(valueOf(now.samples, "estate_etl_last_run_timestamp_seconds", { pipeline: "plots-germany" })).toBeGreaterThanOrEqual(now.from)
    // the others' series: every pipeline's but this one's, and not the account's bill (it moved with this run's charges)
    const others = (samples: ReadonlyArray<PromSample>) =>
      samples.filter((s) => s.labels.pipeline !== "plots-germany" && !(s.name in BILL_METRICS))
    expect(others(now.samples)).toEqual(others(before))
    // the rename left no temporary file beside it
    expect(fs.readdirSync(path.dirname(file))).toEqual(["estate_etl.prom"])
  })

  it("docs/MONITORING.md lists every metric the file holds", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs/MONITORING.md"), "utf8")
    for (const name of [...Object.keys(RUN_METRICS), ...Object.keys(BILL_METRICS)]) expect(doc, name).toContain(`\`${name}\``)
  })
})
