/**
 * Backlogs of any size (issue 30, item 7), through the real CLI with default settings: after a
 * 30-day gap on a large sandbox world, one run lands the whole alerts backlog (DuckDB's landing
 * memory limit is raised for a group that does not fit it: at the old fixed 80MB even one day of
 * a whole market's alerts failed, and runs alternated between failures and empty `done`s); a
 * refresh whose alerts did not land is not run (it would pay for properties it cannot know).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { Warehouse } from "../../src/load/Warehouse.js"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

const DAY = 86_400_000
/**
 * The world: `make chaos` (CHAOS=full) reads the backlog of a 50,000-property world (over 20,000
 * alerts in 30 days, the size that once ran DuckDB's landing memory out); `make test` one of 10,000
 * (about 10,000 alerts), the same story at less than half the time.
 */
const FULL = process.env.CHAOS === "full"
const PROPERTIES = FULL ? 50_000 : 10_000
const LEAST_BACKLOG = PROPERTIES * 0.4
// one feed of every alert: the backlog of a whole market
const FEEDS: ReadonlyArray<{ name: string; filter: { location_ids?: Array<number> } }> = [{ name: "everything", filter: {} }]

const rows = (warehouse: string, sql: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Warehouse, (w) => w.query(sql)).pipe(Effect.provide(Warehouse.Default({ path: warehouse, readOnly: true })))
    )
  )

describe("a long gap", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: PROPERTIES }, legacyFeeds: FEEDS })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-backlog-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a 30-day alerts backlog lands in one run with default settings, and the next run finds nothing new", async () => {
    const since = new Date(sandbox.control.now() - DAY).toISOString()
    const config = remoteConfig(dir, sandbox, {
      pipelines: { alerts: { params: { since } } }
    })
    const warehouse = path.join(dir, "warehouse.duckdb")
    const first = await runCli(["run", "alerts", "--config", config], sandboxEnv())
    expect(first.code, first.stderr.slice(-2000)).toBe(0)
    sandbox.control.advanceClock(30 * DAY)
    const world = sandbox.context.world
    // the ground truth: every alert the world created since the first run's start
    const truth = world
      .alerts({
        nowMs: sandbox.control.now(),
        createdFrom: Date.parse(since),
        createdTo: sandbox.control.now(),
        offset: 0,
        limit: 1_000_000
      })
      .results.map((a) => String((a as { alert_id: unknown }).alert_id))
    const before = Number((await rows(warehouse, "SELECT count(DISTINCT alert_id) AS n FROM alerts"))[0]!.n)
    const second = await runCli(["run", "alerts", "--config", config, "--json"], sandboxEnv())
    expect(second.code, second.stderr.slice(-2000)).toBe(0)
    const summaries = JSON.parse(second.stdout) as Array<{ pipeline: string; status: string; totals: { pages: number } }>
    expect(summaries.map((s) => [s.pipeline, s.status])).toEqual([["alerts", "done"]])
    const after = Number((await rows(warehouse, "SELECT count(DISTINCT alert_id) AS n FROM alerts"))[0]!.n)
    const landed = new Set((await rows(warehouse, "SELECT DISTINCT alert_id::VARCHAR AS id FROM alerts")).map((r) => String(r.id)))
    expect(truth.filter((id) => !landed.has(id))).toEqual([])
    expect(after - before).toBeGreaterThan(LEAST_BACKLOG)
    // and a third run finds nothing new: no alternation between failures and empty runs
    const third = await runCli(["run", "alerts", "--config", config, "--json"], sandboxEnv())
    expect(third.code, third.stderr.slice(-2000)).toBe(0)
    expect((JSON.parse(third.stdout) as Array<{ status: string; totals: { rows: Record<string, number> } }>)[0]!.status).toBe("done")
    expect(Number((await rows(warehouse, "SELECT count(DISTINCT alert_id) AS n FROM alerts"))[0]!.n)).toBe(after)
    console.log(`backlog: ${after - before} alerts of a 30-day gap landed in one run (${truth.length} since the first run)`)
  }, 300_000)

  it("a refresh whose alerts did not land is not run, and says why", async () => {
    // the alerts' list is looked for where this service does not put it: alerts stops (exit 7)
    const config = remoteConfig(dir, sandbox, {
      warehouse: path.join(dir, "w2.duckdb"),
      sets: { changes: ["alerts", "properties-changed"] },
      service: { shapes: { alerts_feed: { results: "items" } } }
    })
    const r = await runCli(["run", "changes", "--config", config, "--json"], sandboxEnv())
    expect(r.code, r.stderr.slice(-2000)).toBe(7)
    const summaries = JSON.parse(r.stdout) as Array<{ pipeline: string }>
    expect(summaries.map((s) => s.pipeline)).toEqual(["alerts"])
    expect(r.stderr).toMatch(/properties-changed not run: it reads what alerts lands, and alerts ended \w+/)
  }, 120_000)
})
