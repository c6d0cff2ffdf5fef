import * as path from "node:path"
import { describe, expect, it } from "vitest"
import sourcingProperties from "../../pipelines/sourcing-properties.js"
import sourcingSearch from "../../pipelines/sourcing-search.js"
import { planPipeline } from "../../src/pipeline/Planner.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"
import { unitsSpent, useHarness, type Harness } from "../support/pipelines.js"

const requestCount = (h: Harness) => Object.values(h.sandbox.control.stats().requests).reduce((a, b) => a + b, 0)

describe("sourcing-properties", () => {
  const h = useHarness({ settings: { budget: { costs: DEFAULT_UNIT_COSTS } } })

  it("enriches every id of sourcing_properties with its detail, one unit each, as the plan said", async () => {
    const world = h.sandbox.context.world
    const found = await h.run(sourcingSearch, { params: { country: "AD", operation: "sale", pageSize: 40, maxPages: 1, sample: true } })
    expect(found.status).toBe("done")
    const ids = world.searchProperties({ country: "AD", operation: "sale" }, 0, 40).results.map((p) => p.id)

    const plan = await h.use(planPipeline(sourcingProperties, { concurrency: 8 } as never, DEFAULT_UNIT_COSTS))
    expect(plan).toMatchObject({ slices: ids.length, requests: ids.length, units: ids.length, exact: true })
    const before = unitsSpent(h)
    const summary = await h.run(sourcingProperties, { params: { concurrency: 6 } })
    expect(summary.status).toBe("done")
    expect(summary.totals.units).toBe(plan.units)
    expect(unitsSpent(h) - before).toBe(plan.units)
    const [ledger] = await h.query(
      `SELECT count(*)::INTEGER AS calls, sum(units)::INTEGER AS units FROM _ledger WHERE operation = 'sourcing_property'`
    )
    expect(ledger).toEqual({ calls: ids.length, units: ids.length })

    const [{ n }] = (await h.query(`SELECT count(DISTINCT id)::INTEGER AS n FROM sourcing_property_details`)) as Array<{ n: number }>
    expect(n).toBe(ids.length)
    const sampleId = ids[Math.floor(ids.length / 3)]!
    const truth = world.sourcingDetail(world.indexOfSourcingId(sampleId)!)
    const [row] = await h.query(`SELECT * FROM sourcing_property_details WHERE id = '${sampleId}'`)
    expect(row!.bathrooms).toBe(truth.bathrooms)
    expect(row!.construction_year).toBe(truth.construction_year)
    expect(row!.energy_rating).toBe(truth.energy_rating)
    expect(row!.address).toBe(truth.address)
    expect(row!.status).toBe(truth.status)
    expect(row!.floor).toBe(truth.features.floor)
    // a STRUCT of the 7 members the spec lists: those the record lacks read NULL
    const members = ["floor", "orientation", "view", "views", "direction", "directions", "characteristics"] as const
    const features = truth.features as Record<string, unknown>
    expect(row!.features).toEqual(Object.fromEntries(members.map((m) => [m, features[m] ?? null])))
    expect(row!.country).toBe("AD")
  })

  it("takes ids from the parameters; an unknown id lands no row and costs nothing", async () => {
    const world = h.sandbox.context.world
    const warehouse = path.join(h.dir, "ids.duckdb")
    const known = [world.sourcingProperty(5).id, world.sourcingProperty(77).id]
    const ids = [...known, "prop_1", known[0]!]
    const plan = await h.use(planPipeline(sourcingProperties, { ids, concurrency: 8 } as never, DEFAULT_UNIT_COSTS))
    expect(plan).toMatchObject({ requests: 3, exact: true })
    const before = unitsSpent(h)
    const summary = await h.run(sourcingProperties, { params: { ids }, warehouse })
    expect(summary.status).toBe("done")
    const rows = await h.query(`SELECT id, price_eur FROM sourcing_property_details ORDER BY id`, warehouse)
    expect(rows.map((r) => r.id)).toEqual([...known].sort())
    expect(unitsSpent(h) - before).toBe(2)
    expect(summary.totals.units).toBe(2)
  })

  it("refuses bad parameters before any request", async () => {
    const before = requestCount(h)
    await expect(h.run(sourcingProperties, { params: { ids: ["123"] } })).rejects.toMatchObject({
      _tag: "InvalidInput",
      field: "sourcing-properties.ids.0"
    })
    await expect(h.run(sourcingProperties, { params: { ids: ["prop_1/../x"] } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(sourcingProperties, { params: { ids: ["prop_1"], fromTable: { table: "t", column: "c" } } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    await expect(h.run(sourcingProperties, { params: { fromTable: { table: "x; DROP", column: "id" } } })).rejects.toMatchObject({
      _tag: "InvalidInput"
    })
    expect(requestCount(h)).toBe(before)
  })
})
