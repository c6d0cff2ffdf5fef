/**
 * A week of the default schedule costs at most a quarter of seven full pulls (issue 32): the
 * shipped config/sandbox.json (its sets, parameters and sandbox world) pointed at a test sandbox
 * over HTTP, run by the Makefile's own targets (`make nightly`, `make weekly`) as cron runs them,
 * the units read from the sandbox's own billing counter.
 *
 * Day 0: `make weekly` on an empty warehouse (the first full pull). Days 1 to 6: `make nightly`
 * after the clock moves a day. Day 7: `make weekly`, the week's full pull. The week is days 1 to
 * 7; seven full pulls are seven times day 7's. After the week's full pull, the current rows of
 * plots, sourcing properties and seller leads are what the world lists (the full pull closed the
 * rows of records it no longer saw): the ground truth, read from the world at the sandbox's now.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sandboxEnv, settingsFile } from "../support/cli.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const DAY = 86_400_000
const SHIPPED = JSON.parse(fs.readFileSync(path.join(ROOT, "config/sandbox.json"), "utf8"))

/** `make -s -C <repo> <target> CONFIG=<file>` with the sandbox's credentials; its exit code and output. */
const make = (target: string, config: string) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...sandboxEnv(), SVC_PLATFORM_URL: "", SVC_API_URL: "" }
    delete env.MAKEFLAGS
    delete env.MAKELEVEL
    delete env.MFLAGS
    const child = spawn("make", ["-s", "-C", ROOT, "-o", "node_modules/.deps-stamp", target, `CONFIG=${config}`], {
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("close", (code) => resolve({ code, output }))
  })

describe("a week of the default schedule", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({
      seed: SHIPPED.sandbox.seed,
      world: { properties: SHIPPED.sandbox.properties },
      legacyFeeds: SHIPPED.sandbox.legacyFeeds
    })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-week-"))
  })
  afterAll(async () => {
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("6 nights of `make nightly` and one `make weekly` cost at most a quarter of seven full pulls", async () => {
    const { $schema: _schema, service: _service, ...shipped } = SHIPPED
    // the sandbox's clock moves a day a night, this machine's does not: a night a day later buys
    // fresh answers (budget.reuseWithin, 12h), so none is read back from the raw archive here
    const budget = { ...shipped.budget, reuseWithin: "0" }
    // the warehouse and output in the test's folder, not the checkout's data/
    const config = settingsFile(dir, sandbox, {
      ...shipped,
      budget,
      warehouse: path.join(dir, "warehouse.duckdb"),
      output: path.join(dir, "out")
    })
    const night = async (target: "nightly" | "weekly") => {
      const before = totalUnits(sandbox)
      const r = await make(target, config)
      process.stderr.write(`night ${target}: ${r.code} ${totalUnits(sandbox) - before} units\n`)
      expect(r.code, `make ${target}\n${r.output.slice(-3000)}`).toBe(0)
      return totalUnits(sandbox) - before
    }

    const first = await night("weekly")
    const nights: Array<number> = []
    for (let day = 1; day <= 6; day++) {
      sandbox.control.advanceClock(DAY)
      nights.push(await night("nightly"))
    }
    sandbox.control.advanceClock(DAY)
    const full = await night("weekly")
    const week = nights.reduce((a, b) => a + b, 0) + full

    console.log(
      `default week on the shipped sandbox world (${SHIPPED.sandbox.properties} properties): ` +
        `make nightly ${nights.join(" + ")} + make weekly ${full} = ${week} units; ` +
        `seven full pulls 7 x ${full} = ${7 * full} units (${Math.round((100 * week) / (7 * full))}%); the first full pull ${first}`
    )
    expect(full).toBeGreaterThan(0)
    expect(week).toBeLessThanOrEqual((7 * full) / 4)
    // every night bought something it could use: plots newest first and the leads' full read
    for (const n of nights) expect(n).toBeGreaterThan(0)

    // after the weekly pull, the current rows are what the world lists
    const world = sandbox.context.world
    const at = sandbox.control.now()
    const params = (name: string) => SHIPPED.pipelines[name].params
    const truth = {
      plots: world.searchPlots(params("plots-germany").criteria, at).map((p: { id: unknown }) => p.id),
      sourcing_properties: params("sourcing-search")
        .places.flatMap(
          (p: object) => world.searchProperties({ ...p, operation: params("sourcing-search").operation } as never, 0, 1_000_000, at).results
        )
        .map((r: { id: unknown }) => r.id),
      seller_leads: params("seller-leads")
        .points.flatMap((p: { latitude: number; longitude: number }) => {
          const { radius_km, min_price_cuts, min_price_cut_pct } = params("seller-leads")
          return world.sellerLeads({
            latitude: p.latitude,
            longitude: p.longitude,
            radius_km,
            min_price_cuts,
            min_price_cut_pct,
            nowMs: at
          })
        })
        .map((l: { id: unknown }) => l.id)
    }
    const db = await DuckDBInstance.create(path.join(dir, "warehouse.duckdb"), { access_mode: "READ_ONLY" })
    const conn = await db.connect()
    try {
      for (const [table, ids] of Object.entries(truth)) {
        const rows = await (await conn.run(`SELECT CAST(id AS VARCHAR) AS k FROM ${table}_current ORDER BY 1`)).getRowObjects()
        expect(
          rows.map((r) => String(r.k)),
          `${table}_current`
        ).toEqual([...new Set(ids.map(String))].sort())
      }
    } finally {
      conn.closeSync()
      db.closeSync()
    }
  }, 240_000)
})
