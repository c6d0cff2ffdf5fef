/**
 * Full pulls close what is gone (issue 32, item 4), on one sandbox world: plots-germany,
 * sourcing-search and seller-leads pull in full, the world moves on two weeks (leads sold or no
 * longer cut, properties and plots off the market), runs that read only part (an incremental
 * refresh, one shard, a run stopped at its unit cap) close nothing, and the next complete full
 * pulls (one of them resumed after the stop) leave each `<table>_current` equal to what the world
 * lists. `plan` then prices each full pull at what the pull was charged (the sandbox's billing).
 */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { resolveParams } from "../../src/pipeline/Params.js"
import { planPipeline } from "../../src/pipeline/Planner.js"
import type { RunSummary } from "../../src/pipeline/Runner.js"
import { shardOf } from "../../src/extract/Extract.js"
import { pipelineByName, unitsSpent, useHarness } from "../support/pipelines.js"
import { CLOSING_PIPELINES, closingTruth, DAY, type Name, TABLES } from "./closingTruth.js"

describe("full pulls close what is gone", () => {
  const h = useHarness({
    sandbox: { world: { properties: 3000, plots: 400, premises: 50 } },
    settings: {
      pipelines: CLOSING_PIPELINES,
      budget: { costs: DEFAULT_UNIT_COSTS },
      service: { platformRate: 0, apiRate: 0 }
    }
  })
  /** The keys each table's pipeline lists at the sandbox's now, per the world itself. */
  const truth = (name: Name): Array<string> => closingTruth(h, name)
  const current = async (name: Name) =>
    (await h.query(`SELECT CAST(id AS VARCHAR) AS k FROM ${TABLES[name]}_current ORDER BY 1`)).map((r) => String(r.k))
  /** Rows of keys with no current version (closed), per pipeline (one query at a time: one warehouse). */
  const closedRows = async () => {
    const out: Record<string, unknown> = {}
    for (const n of Object.keys(TABLES) as Array<Name>) {
      const [r] = await h.query(
        `SELECT count(*)::INTEGER AS n FROM ${TABLES[n]} t WHERE NOT t._is_current
           AND NOT EXISTS (SELECT 1 FROM ${TABLES[n]} c WHERE c.id = t.id AND c._is_current)`
      )
      out[n] = r!.n
    }
    return out
  }
  const charged = new Map<Name, number>()
  let stoppedUnits = 0
  const pull = async (name: Name, opts: Parameters<typeof h.run>[1] = {}) => {
    const before = unitsSpent(h)
    const s = await h.run(name, { fresh: true, ...opts })
    charged.set(name, (charged.get(name) ?? 0) + unitsSpent(h) - before)
    return s
  }
  const expectDone = (s: RunSummary) =>
    expect([s.pipeline, s.status, s.error, s.completeness.shortfalls]).toEqual([s.pipeline, "done", undefined, []])

  it("a full pull's current rows are what the world lists; two weeks on, partial runs close nothing", async () => {
    for (const name of Object.keys(TABLES) as Array<Name>) {
      const s = await pull(name)
      expectDone(s)
      expect(s.fullPull).toBe(true)
      expect(await current(name)).toEqual(truth(name))
    }
    const before: Partial<Record<Name, Array<string>>> = {}
    for (const n of Object.keys(TABLES) as Array<Name>) before[n] = await current(n)

    h.sandbox.control.advanceClock(14 * DAY)
    // the refresh: seller leads since their watermark, plots newest first until known ones (whose
    // first page makes two plots leave the query for every later request)
    const leads = await pull("seller-leads")
    h.sandbox.control.setDialect({ name: "default", removeAfterFirstPage: 2 })
    const plots = await pull("plots-germany")
    // something left each query (sold, delisted, no longer cut), else the test proves nothing
    for (const name of Object.keys(TABLES) as Array<Name>) {
      const gone = before[name]!.filter((k) => !truth(name).includes(k))
      expect(gone.length, `${name}: records that left`).toBeGreaterThan(0)
    }
    for (const s of [leads, plots]) {
      expect([s.pipeline, s.status, s.fullPull, s.closed]).toEqual([s.pipeline, "done", false, {}])
    }
    // the shard of sourcing-search's two places that reads Portugal
    const shard = await pull("sourcing-search", { shard: { index: shardOf("PT", 2), count: 2 } })
    expectDone(shard)
    expect(shard.totals.pages).toBeGreaterThan(0)
    expect(shard.closed).toEqual({})
    // a run stopped at its unit cap after a page of each place (paused, resumable)
    const before2 = unitsSpent(h)
    const stopped = await h.run("sourcing-search", { fresh: true, maxUnits: 2, untilCap: true })
    stoppedUnits = unitsSpent(h) - before2
    expect([stopped.status, stopped.totals.pages]).toEqual(["paused", 2])
    expect(stopped.closed).toEqual({})
    expect(await closedRows()).toEqual({ "plots-germany": 0, "sourcing-search": 0, "seller-leads": 0 })
    for (const name of Object.keys(TABLES) as Array<Name>) {
      const now = await current(name)
      for (const k of before[name]!) expect(now.includes(k), `${name} ${k} still current`).toBe(true)
    }
  }, 240_000)

  it("complete full pulls (one resumed after its stop) close what the world no longer lists", async () => {
    charged.clear()
    charged.set("sourcing-search", stoppedUnits)
    // sourcing-search: the stopped run resumed to its end, keys from both of its parts
    const sourcing = await pull("sourcing-search")
    expect(sourcing.resumed).toBe(true)
    expect(await current("sourcing-search")).toEqual(truth("sourcing-search"))
    // plots while the two that left stay away; then the default dialect for the leads (whose own
    // first page would make others leave while they are read)
    const plots = await pull("plots-germany", { fullRefresh: true })
    expect(await current("plots-germany")).toEqual(truth("plots-germany"))
    h.sandbox.control.setDialect("default")
    const leads = await pull("seller-leads", { fullRefresh: true })
    expect(await current("seller-leads")).toEqual(truth("seller-leads"))
    for (const s of [sourcing, leads, plots]) {
      expectDone(s)
      expect(s.fullPull).toBe(true)
      expect(s.closed![TABLES[s.pipeline as Name]]).toBeGreaterThan(0)
    }
    // closed versions end at the run's extraction time and keep their content
    const [closed] = await h.query(
      `SELECT count(*)::INTEGER AS n, count(DISTINCT _valid_to)::INTEGER AS ends FROM seller_leads t
       WHERE NOT _is_current AND NOT EXISTS (SELECT 1 FROM seller_leads c WHERE c.id = t.id AND c._is_current)`
    )
    expect(closed).toEqual({ n: leads.closed!.seller_leads, ends: 1 })
  }, 240_000)

  it("plan prices the next full pull at what the last complete full pull was charged", async () => {
    const plans = await h.use(
      Effect.forEach(Object.keys(TABLES) as Array<Name>, (name) => {
        const p = pipelineByName(name)
        const params = Either.getOrThrow(resolveParams(p, h.settings.pipelines[name]?.params ?? {}, []))
        return Effect.map(planPipeline(p, params, h.settings.budget.costs), (plan) => [name, plan.fullUnits] as const)
      })
    )
    // sourcing-search's last pull was charged in two parts (stopped at its cap, then resumed)
    expect(Object.fromEntries(plans)).toEqual(Object.fromEntries(charged))
    for (const [, units] of plans) expect(units).toBeGreaterThan(1)

    // a refresh's reads since the watermark (done, every slice to its end) price no full pull
    const since = await h.run("seller-leads", { fresh: true })
    expect([since.status, since.fullPull]).toEqual(["done", false])
    expect(since.totals.pages).toBeLessThan(charged.get("seller-leads")!)
    const leads = pipelineByName("seller-leads")
    const params = Either.getOrThrow(resolveParams(leads, h.settings.pipelines["seller-leads"]?.params ?? {}, []))
    const again = await h.use(planPipeline(leads, params, h.settings.budget.costs))
    expect(again.fullUnits).toBe(charged.get("seller-leads"))
  }, 60_000)
})
