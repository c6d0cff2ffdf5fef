/**
 * `estate-etl trace` (issue 32, item 5) through the CLI (its entry, in this process): after real runs against the
 * sandbox, its per-slice figures are what the warehouse's bookkeeping (`_slices`, `_calls`,
 * `_ledger`, `_runs`) and the sandbox's own billing say; without a pipeline it traces the last
 * run of any; a warehouse without runs is one line (exit 0); an unknown pipeline gets its
 * did-you-mean and an unknown `--run` one line (exit 2).
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import type { Trace } from "../../src/cli/TraceCommand.js"
import { remoteConfig, sandboxEnv } from "../support/cli.js"
import { cli } from "../support/inProcessCli.js"

/** The CLI's entry (`runCliMain`) in this process. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => cli(args, env)
import { startTestSandbox, totalUnits } from "../support/sandbox.js"

const pipelines = { "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 2, sample: true } } }

/** Rows of `sql` in the warehouse at `file`, opened read-only. */
const rowsOf = (file: string, sql: string, params: ReadonlyArray<string> = []) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(makeWarehouse({ path: file, readOnly: true }), (w) => w.query(sql, params))))

describe("estate-etl trace", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  let config: string
  let file: string
  let plotsUnits = 0
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 200 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-trace-"))
    config = remoteConfig(dir, sandbox, { pipelines })
    file = path.join(dir, "warehouse.duckdb")
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a warehouse without runs: one line, exit 0; an unknown pipeline: did you mean, exit 2", async () => {
    await Effect.runPromise(Effect.scoped(makeWarehouse({ path: file })))
    const none = await runCli(["trace", "--config", config])
    expect([none.code, none.stdout]).toEqual([0, `no runs in ${file} yet\n`])
    const typo = await runCli(["trace", "plots-germani", "--config", config])
    expect(typo.code).toBe(2)
    expect(typo.stderr.trim().split("\n")).toHaveLength(1)
    expect(typo.stderr).toContain("did you mean plots-germany?")
  })

  it("per slice, what _slices, _calls, the ledger and the sandbox's billing say", async () => {
    const before = totalUnits(sandbox)
    // one command, two runs: plots-germany (paid, one slice), then references (unpaid, a slice per list)
    const run = await runCli(["run", "plots-germany", "references", "--config", config], sandboxEnv())
    expect(run.code, run.stderr).toBe(0)
    plotsUnits = totalUnits(sandbox) - before
    expect(plotsUnits).toBeGreaterThan(0)

    const r = await runCli(["trace", "plots-germany", "--json", "--config", config])
    expect(r.code, r.stderr).toBe(0)
    const t = JSON.parse(r.stdout) as Trace
    const id = t.run.runId
    expect(t.run.pipeline).toBe("plots-germany")
    const [runRow] = await rowsOf(file, `SELECT * FROM _runs WHERE run_id = ?`, [id])
    const slices = await rowsOf(file, `SELECT * FROM _slices WHERE run_id = ? ORDER BY slice`, [id])
    const calls = await rowsOf(file, `SELECT * FROM _calls WHERE run_id = ? ORDER BY seq`, [id])
    const [ledger] = await rowsOf(file, `SELECT count(*) AS n, sum(units) AS u FROM _ledger WHERE run_id = ?`, [id])
    // the sandbox billed what the ledger holds, and trace splits exactly that over the slices
    expect(Number(ledger!.u)).toBe(plotsUnits)
    expect(t.ledger).toEqual({ charges: Number(ledger!.n), units: plotsUnits, unitsOutsideCalls: 0 })
    expect(t.slices.reduce((s, x) => s + x.units!, 0)).toBe(plotsUnits)
    expect(t.slices.reduce((s, x) => s + x.requests!, 0)).toBe(Number(runRow!.requests))
    expect(t.slices.reduce((s, x) => s + x.retries!, 0)).toBe(Number(runRow!.retries))
    expect(t.slices.reduce((s, x) => s + x.pages, 0)).toBe(Number(runRow!.pages))
    expect(t.slices.map((x) => [x.slice, x.pages, x.declared, x.distinct, x.landed, x.ended])).toEqual(
      slices.map((s) => [s.slice, Number(s.pages), Number(s.declared), Number(s.distinct_keys), Number(s.landed), s.ended_by ?? "done"])
    )
    // a call per page, each timed; the slowest first
    expect(calls).toHaveLength(Number(runRow!.pages))
    expect(t.slowest.map((c) => c.ms)).toEqual(
      calls
        .map((c) => Number(c.ms))
        .sort((a, b) => b - a)
        .slice(0, 5)
    )
    expect(t.slowest.every((c) => c.ms > 0 && c.operation === "plot_search" && c.requestId !== null)).toBe(true)

    // the table (here of the run --run names): the run's line, the slices, the slowest calls
    const text = await runCli(["trace", "plots-germany", "--run", id, "--config", config])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(`run ${id} of plots-germany: done`)
    for (const s of slices)
      expect(text.stdout).toMatch(new RegExp(`^${s.slice === "*" ? "\\*" : s.slice} .* ${s.ended_by ?? "done"}$`, "m"))
    expect(text.stdout).toContain("slowest calls")
    // each slowest call in whole milliseconds, one format down the column
    const slowLines = text.stdout.slice(text.stdout.indexOf("slowest calls")).split("\n").slice(2)
    for (const c of t.slowest)
      expect(
        slowLines.some((l) => new RegExp(`^\\s*${Math.round(c.ms)} `).test(l)),
        `${c.ms}\n${slowLines.join("\n")}`
      ).toBe(true)
    expect(slowLines.filter((l) => /^\s*\d+\.\d/.test(l))).toEqual([])
    // without a pipeline: the last run of any (references)
    const last = await runCli(["trace", "--json", "--config", config])
    const lastTrace = JSON.parse(last.stdout) as Trace
    expect(lastTrace.run.pipeline).toBe("references")
    const refSlices = await rowsOf(file, `SELECT slice FROM _slices WHERE run_id = ? ORDER BY slice`, [lastTrace.run.runId])
    expect(lastTrace.slices.map((s) => s.slice)).toEqual(refSlices.map((s) => s.slice))
    expect(lastTrace.slices.reduce((s, x) => s + x.requests!, 0)).toBe(
      Number((await rowsOf(file, `SELECT requests FROM _runs WHERE run_id = ?`, [lastTrace.run.runId]))[0]!.requests)
    )

    // a run that is not there: one line, exit 2
    const bad = await runCli(["trace", "--run", "no-such-run", "--config", config])
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    expect(bad.stderr).toContain(`no run "no-such-run"`)
  })
})
