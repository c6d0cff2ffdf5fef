/**
 * The page journal in a real run: paid pages that reached the journal but not the warehouse are
 * landed by the resume, not bought again.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import sourcingSearch from "../../pipelines/sourcing-search.js"
import { makePageJournal } from "../../src/load/PageJournal.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness } from "../support/pipelines.js"

describe("page journal", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  it("a run whose landing fails keeps its paid pages in the journal; the resume lands them without paying again", async () => {
    const world = h.sandbox.context.world
    const places = [{ country: "ES" as const, location_ids: [17] }, { country: "AD" as const }]
    const truth = places.map((p) => world.searchProperties({ ...p, operation: "sale" }, 0, 1_000_000).results)
    const pageSize = 10
    const needed = truth.reduce((s, t) => s + Math.max(1, Math.ceil(t.length / pageSize)), 0)
    expect(needed).toBeGreaterThan(4)
    const params = { places, operation: "sale", pageSize, concurrency: 2 }

    // the raw archive cannot be written (a file where its folder goes): landing fails, fetching stops
    const rawBlock = path.join(h.dir, "raw", "sourcing-search")
    fs.mkdirSync(path.dirname(rawBlock), { recursive: true })
    fs.writeFileSync(rawBlock, "not a folder")
    const before = unitsSpent(h)
    const failed = await h.run(sourcingSearch, { params })
    expect(failed.status).toBe("paused")
    expect(failed.error).toMatch(/raw page/)
    const paidFirst = unitsSpent(h) - before
    expect(paidFirst).toBeGreaterThan(0)
    expect((await h.query(`SELECT count(*)::INTEGER AS n FROM sourcing_properties`))[0]!.n).toBe(0)
    const journalDir = path.join(`${h.settings.warehouse}.journal`, "sourcing-search", failed.runId)
    expect(fs.readdirSync(journalDir).length).toBeGreaterThan(0)
    // pages as the journal frames them (a head line, then the body as received)
    const journaled = makePageJournal(`${h.settings.warehouse}.journal`).pending("sourcing-search", failed.runId, 0).length
    // every page that came back is in the journal; at most the one call in flight was lost
    expect(journaled).toBeGreaterThan(0)
    expect(paidFirst - journaled).toBeGreaterThanOrEqual(0)
    expect(paidFirst - journaled).toBeLessThanOrEqual(1)

    fs.rmSync(rawBlock)
    const middle = unitsSpent(h)
    const resumed = await h.run(sourcingSearch, { params })
    expect(resumed).toMatchObject({ status: "done", resumed: true, runId: failed.runId })
    // the resume paid only for what the journal did not hold
    expect(unitsSpent(h) - middle).toBe(needed - journaled)
    expect(resumed.totals.pages).toBe(needed)
    const [counts] = await h.query(`SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids FROM sourcing_properties`)
    expect(counts).toEqual({ n: truth.flat().length, ids: truth.flat().length })
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger`)
    expect(ledger).toEqual({ calls: needed, units: needed })
    const [raw] = await h.query(`SELECT count(*)::INTEGER AS n FROM _raw_pages WHERE run_id = '${failed.runId}'`)
    expect(raw!.n).toBe(needed)
    expect(fs.existsSync(journalDir)).toBe(false)
  })

  it("the run's plan is refined by first pages: each place's count fixes its page count", async () => {
    const world = h.sandbox.context.world
    const places = [{ country: "CY" as const }, { country: "AD" as const }]
    const pageSize = 25
    const needed = places.reduce((s, p) => s + Math.max(1, Math.ceil(world.countProperties({ ...p, operation: "sale" }) / pageSize)), 0)
    const warehouse = path.join(h.dir, "refined.duckdb")
    const summary = await h.run(sourcingSearch, { params: { places, operation: "sale", pageSize }, warehouse })
    expect(summary.status).toBe("done")
    expect(summary.plan.units).toBe(places.length) // never read in full: one page a place until its count says more
    expect(summary.expected).toEqual({ pages: needed, units: needed, exact: true })
    expect(summary.totals.units).toBe(needed)
  })
})
