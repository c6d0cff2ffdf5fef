/**
 * What refresh saved (`report/Savings.ts`): incremental runs (plan below the full pull) set
 * against the pipeline's last measured full read, else the plan's full-pull figure; runs that
 * read everything, unfinished runs and runs without a recorded plan are not counted; and the
 * same figures read from a warehouse after a full pull and a since-read against the sandbox.
 */
import { describe, expect, it } from "vitest"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { readReportData, type RunLine } from "../../src/report/ReportData.js"
import { refreshSavings } from "../../src/report/Savings.js"
import { unitsSpent, useHarness } from "../support/pipelines.js"

const run = (pipeline: string, units: number, planned: number | null, full: number | null, status = "done"): RunLine => ({
  runId: `${pipeline}-${Math.random()}`,
  label: pipeline,
  pipeline,
  status,
  startedAt: "2026-11-20T02:00:00Z",
  seconds: 1,
  pages: 1,
  rowsPerTable: {},
  rows: 0,
  units,
  unitsPlanned: planned,
  unitsFull: full,
  rejects: 0,
  missing: 0,
  shortSlices: 0,
  shortRecords: 0,
  error: null
})

describe("refreshSavings", () => {
  it("sets incremental runs against the last full read, else the plan's full pull", () => {
    const s = refreshSavings([
      run("sourcing-search", 19, 50, 50), // a full read: charged 19, what a full pull costs
      run("sourcing-search", 3, 5, 50),
      run("sourcing-search", 2, 5, 50),
      run("seller-leads", 1, 1, 14), // no full read: the plan's 14
      run("seller-leads", 1, 1, 14, "paused"), // not finished: not counted
      run("references", 0, 0, 0),
      run("plots-germany", 4, null, null) // no plan recorded (an older warehouse)
    ])
    expect(s).toEqual({
      runs: 3,
      charged: 6,
      full: 19 + 19 + 14,
      saved: 16 + 17 + 13,
      pipelines: ["seller-leads", "sourcing-search"],
      measured: 2
    })
  })

  it("no incremental run: nothing saved", () => {
    expect(refreshSavings([run("plots-germany", 4, 4, 4)])).toMatchObject({ runs: 0, saved: 0, pipelines: [] })
  })
})

describe("refresh saved, from a warehouse's own runs", () => {
  const PLOTS = { criteria: { sort: "newest" }, pageSize: 50 }
  const h = useHarness({
    sandbox: { world: { properties: 200, plots: 400, premises: 10 } },
    settings: {
      pipelines: { "plots-germany": { params: PLOTS } },
      budget: { costs: DEFAULT_UNIT_COSTS },
      service: { platformRate: 0, apiRate: 0 }
    }
  })

  it("a full pull, then a since-read: saved is the full pull's charge less the refresh's, by the sandbox's billing", async () => {
    const before = unitsSpent(h)
    const full = await h.run("plots-germany")
    const fullUnits = unitsSpent(h) - before
    h.sandbox.control.advanceClock(86_400_000)
    const refresh = await h.run("plots-germany")
    const refreshUnits = unitsSpent(h) - before - fullUnits
    expect([full.status, refresh.status]).toEqual(["done", "done"])
    expect(fullUnits).toBeGreaterThan(refreshUnits)
    const period = { from: undefined, to: undefined, month: new Date(Date.now()).toISOString().slice(0, 7), label: "every run" }
    const data = await h.use(readReportData({ runUnits: 1_000, dailyUnits: undefined }, period))
    expect(data.savings).toEqual({
      runs: 1,
      charged: refreshUnits,
      full: fullUnits,
      saved: fullUnits - refreshUnits,
      pipelines: ["plots-germany"],
      measured: 1
    })
  })
})
