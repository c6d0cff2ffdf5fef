/**
 * The change-driven refresh against a full re-pull, on one sandbox world with the shipped
 * parameters of plots-germany, sourcing-search and seller-leads and the shipped `nightly` set
 * (config/sandbox.json: the change-driven refresh), plus one alert feed watching
 * sourcing-search's places with every subtype.
 *
 * Day 0: the full pulls, the alerts of the last day and their properties. The clock moves one
 * day; the refresh set runs; a full re-pull of the same day runs into a second warehouse. The
 * refresh must cost at most 15% of the re-pull (seller-leads' shipped rule, two cuts, reads its
 * points in full: a since read of it matched nothing), and the properties that changed must equal
 * the world's records of that day. A second refresh on the unchanged world reads at most one page
 * a plot slice and no more than a full read of the leads. With a dialect that hides some ids from the token host, the paid half buys exactly those.
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { catalogue } from "../../pipelines/index.js"
import { isMissingKey } from "../../src/sandbox/Dialect.js"
import { resolveParams } from "../../src/pipeline/Params.js"
import { planPipeline, type Plan } from "../../src/pipeline/Planner.js"
import { makeRegistry } from "../../src/pipeline/Registry.js"
import { planRefresh, refreshLine } from "../../src/pipeline/RefreshPlan.js"
import type { RunSummary } from "../../src/pipeline/Runner.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness } from "../support/pipelines.js"

const DAY = 86_400_000
const SHIPPED = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../config/sandbox.json"), "utf8"))
const FULL = ["plots-germany", "sourcing-search", "seller-leads"]
const REFRESH: ReadonlyArray<string> = SHIPPED.sets.nightly
/** sourcing-search's places (Madrid, 18; Portugal, 2), every alert subtype. */
const TRACKED = { name: "tracked places, every change", filter: { location_ids: [18, 2] } }
/** A world five times the shipped one: the full re-pull's pages grow with it, the refresh's do not. */
const WORLD = { properties: 100_000, plots: 10_000 }

describe("change-driven refresh", () => {
  const h = useHarness({
    sandbox: { world: WORLD, legacyFeeds: [TRACKED] },
    settings: {
      pipelines: SHIPPED.pipelines,
      sets: SHIPPED.sets,
      // the sandbox's clock moves a day, this machine's does not: a night a day later buys fresh
      // answers (budget.reuseWithin, 12h), so no answer is read back from the raw archive here
      budget: { costs: DEFAULT_UNIT_COSTS, reuseWithin: "0" },
      service: { platformRate: 0, apiRate: 0 }
    }
  })
  const now = () => h.sandbox.control.now()
  const runAll = async (names: ReadonlyArray<string>, warehouse?: string) => {
    const before = unitsSpent(h)
    const summaries: Record<string, RunSummary> = {}
    for (const name of names) {
      const s = await h.run(name, warehouse ? { warehouse } : {})
      expect([name, s.status, s.error, s.completeness.shortfalls]).toEqual([name, "done", undefined, []])
      summaries[name] = s
    }
    return { summaries, units: unitsSpent(h) - before }
  }
  /** Property ids of the tracked places' alerts created in [from, to), per the world. */
  const alertedIds = (from: number, to: number) =>
    new Set(
      h.sandbox.context.world
        .alerts({ nowMs: to, locationIds: TRACKED.filter.location_ids, createdFrom: from, createdTo: to, offset: 0, limit: 1_000_000 })
        .results.map((a) => a.property_id)
    )
  const refreshedIds = async (runId: string) =>
    new Set((await h.query(`SELECT slice FROM _slices WHERE run_id = '${runId}'`)).map((r) => Number(String(r.slice).slice(3))))
  let day0 = 0
  let refreshUnits = 0

  it("after one simulated day costs at most 15% of a full re-pull, and lands the changed properties as the world has them", async () => {
    expect(REFRESH).toEqual(["alerts", "properties-changed", "sourcing-changed", "plots-germany", "seller-leads"])
    const first = await runAll(FULL)
    await h.run("alerts", { params: { since: new Date(now() - DAY).toISOString() } })
    expect((await h.run("properties-changed")).totals.pages).toBeGreaterThan(100)
    day0 = now()

    h.sandbox.control.advanceClock(DAY)
    const day1 = now()
    const refresh = await runAll(REFRESH)
    const repull = await runAll(FULL, path.join(h.dir, "repull.duckdb"))
    refreshUnits = refresh.units
    console.log(
      `refresh on a sandbox world of ${WORLD.properties} properties and ${WORLD.plots} plots: ${refresh.units} units ` +
        `(${REFRESH.map((n) => `${n} ${refresh.summaries[n]!.totals.units}`).join(", ")}) instead of ${repull.units} ` +
        `for a full re-pull (${FULL.map((n) => `${n} ${repull.summaries[n]!.totals.units}`).join(", ")}); day 0 cost ${first.units}`
    )
    expect(repull.units).toBeGreaterThan(30)
    expect(refresh.units).toBeLessThanOrEqual(0.15 * repull.units)
    // seller-leads reads in full (its rule asks for two cuts, which a day's window never holds): as the re-pull
    expect(refresh.summaries["seller-leads"]!.totals.units).toBe(repull.summaries["seller-leads"]!.totals.units)
    // the token host knows every property the alerts name: nothing is bought from Property Sourcing
    expect(refresh.summaries["properties-changed"]!.totals.units).toBe(0)
    expect(refresh.summaries["properties-changed"]!.completeness.missing).toBe(0)
    expect(refresh.summaries["sourcing-changed"]!.totals.requests).toBe(0)
    expect(refresh.summaries["plots-germany"]!.completeness.caughtUp).toHaveLength(1)

    // every property alerted during the day was read again (plus those re-read in the alerts' overlap)
    const changed = alertedIds(day0, day1)
    expect(changed.size).toBeGreaterThan(50)
    const refreshed = await refreshedIds(refresh.summaries["properties-changed"]!.runId)
    for (const id of changed) expect(refreshed.has(id), `property ${id}`).toBe(true)
    const overlap = alertedIds(day0 - 3_600_000, day0)
    for (const id of refreshed) expect(changed.has(id) || overlap.has(id), `property ${id}`).toBe(true)

    // and its row is the world's record of day 1
    const world = h.sandbox.context.world
    const rows = await h.query(
      `SELECT property_id, sale_status, sale_price, rent_status, rent_price, listings_count, CAST(changed_at AS VARCHAR) AS changed_at,
         (SELECT count(*) FROM property_price_history h WHERE h.property_id = p.property_id)::INTEGER AS prices
       FROM properties_current p WHERE property_id IN (${[...changed].join(",")}) ORDER BY property_id`
    )
    const dated = (xs: ReadonlyArray<{ date_start?: string | null }>) => xs.filter((x) => x.date_start).length
    expect(rows).toEqual(
      [...changed]
        .sort((a, b) => a - b)
        .map((id) => {
          const p = world.propertyById(id, day1)!
          return {
            property_id: id,
            sale_status: p.sale_status,
            sale_price: p.sale_price,
            rent_status: p.rent_status,
            rent_price: p.rent_price,
            listings_count: p.listings.length,
            changed_at: p.changed_at,
            prices: dated(p.sale_price_history) + dated(p.rent_price_history)
          }
        })
    )
  }, 240_000)

  it("a second run on the unchanged world reads at most one page a plot slice, the leads in full, and plan says what the refresh saves", async () => {
    const again = await runAll(REFRESH)
    const plots = again.summaries["plots-germany"]!
    const leads = again.summaries["seller-leads"]!
    expect(plots.totals.pages).toBeLessThanOrEqual(plots.plan.slices)
    expect(plots.completeness.caughtUp[0]).toMatch(/plots-germany slice \* \(1 page\(s\) in a row ending in records landed before\)/)
    // the leads' full read: the pages their last full read took
    const [leadsFull] = await h.query(
      `SELECT pages::INTEGER AS pages FROM _runs WHERE pipeline = 'seller-leads' AND status = 'done' ORDER BY started_at LIMIT 1`
    )
    expect(leads.totals.pages).toBe(Number(leadsFull!.pages))
    expect(again.units).toBe(plots.totals.units + leads.totals.units)
    expect(again.units).toBeLessThanOrEqual(plots.plan.slices + Number(leadsFull!.pages))

    const registry = makeRegistry(catalogue, h.settings)
    const savings = await h.use(
      Effect.gen(function* () {
        const plans: Array<Plan> = []
        for (const p of Either.getOrThrow(registry.resolve(["nightly"]))) {
          const params = Either.getOrThrow(resolveParams(p, h.settings.pipelines[p.name]?.params ?? {}, []))
          plans.push(yield* planPipeline(p, params, h.settings.budget.costs))
        }
        return yield* planRefresh(plans, { registry, settings: h.settings, observed: {} })
      })
    )
    expect(savings).toBeDefined()
    // a full re-pull of sourcing-search is planned as its last full read took (1 unit a page)
    const [last] = await h.query(
      `SELECT pages::INTEGER AS pages FROM _runs WHERE pipeline = 'sourcing-search' AND status = 'done' ORDER BY started_at DESC LIMIT 1`
    )
    expect(last!.pages).toBeGreaterThan(2)
    expect(savings!.replaced).toEqual([{ pipeline: "sourcing-search", units: last!.pages, by: "properties-changed" }])
    // seller-leads reads in full (its rule cannot match a since window): not incremental here
    expect(savings!.incremental).toEqual(["plots-germany"])
    expect(savings!.units).toBeLessThan(savings!.full)
    expect(refreshLine(savings!)).toMatch(/^refresh: \d+ units instead of \d+ for a full re-pull \(/)
    expect(refreshUnits).toBeGreaterThan(0)
  }, 120_000)

  it("buys from Property Sourcing only the changed properties the token host lacks, as the world has them", async () => {
    const dialect = h.sandbox.control.setDialect({ missingEvery: 5 })
    try {
      const from = now()
      h.sandbox.control.advanceClock(6 * 3_600_000)
      const at = now()
      await h.run("alerts")
      const pc = await h.run("properties-changed")
      const refreshed = [...(await refreshedIds(pc.runId))]
      const lacking = refreshed.filter((id) => isMissingKey(dialect, String(id)))
      expect(alertedIds(from, at).size).toBeGreaterThan(20)
      expect(lacking.length).toBeGreaterThan(0)
      expect(pc.completeness.missing).toBe(lacking.length)

      const before = unitsSpent(h)
      const sc = await h.run("sourcing-changed")
      expect(sc.status).toBe("done")
      const unknownThere = lacking.filter((id) => isMissingKey(dialect, `prop_${id}`))
      const bought = lacking.filter((id) => !unknownThere.includes(id))
      expect(unitsSpent(h) - before).toBe(bought.length)
      expect(sc.completeness.missing).toBe(unknownThere.length)

      const world = h.sandbox.context.world
      const rows = await h.query(
        `SELECT id, price_eur, status FROM sourcing_property_details WHERE id IN (${bought.map((id) => `'prop_${id}'`).join(",")}) ORDER BY id`
      )
      expect(rows).toEqual(
        bought
          .map((id) => world.sourcingDetail(world.indexOfPropertyId(id)!, at))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .map((d) => ({ id: d.id, price_eur: d.price_eur, status: d.status }))
      )
      // the next night buys none of them again
      const next = await h.run("sourcing-changed")
      expect(next.totals.requests).toBe(0)
    } finally {
      h.sandbox.control.setDialect("default")
    }
  }, 120_000)
})
