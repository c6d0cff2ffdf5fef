/**
 * Learned costs: a service that charges three times what the client assumes (the sandbox's
 * `pricier` dialect). The first plan is off by that factor and says it assumed; after one run the
 * ledger knows, and the next plan lands within 5% of what the next run is charged.
 */
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Warehouse } from "../../src/load/Warehouse.js"
import { planPipeline } from "../../src/pipeline/Planner.js"
import { pipelineByName, unitsSpent, useHarness } from "../support/pipelines.js"

describe("learned costs", () => {
  const h = useHarness({ sandbox: { dialect: "pricier" } })
  const plots = pipelineByName("plots-germany")
  const params = { criteria: { regions: ["Bayern", "Hessen"] }, pageSize: 20, maxPages: 4, sample: true }
  const planNow = (costs: Record<string, number> = {}) =>
    h.use(
      Effect.gen(function* () {
        const observed = yield* (yield* Warehouse).observedCosts()
        return yield* planPipeline(plots, Schema.decodeUnknownSync(plots.params)(params), costs, observed)
      })
    )

  it("plans from what the service charged, warns when it differs from the assumption, and settings still win", async () => {
    const before = await planNow()
    expect(before).toMatchObject({ costSource: "assumed", unitsPerRequest: 1, assumedPerRequest: 1 })
    expect(before.costWarning).toBeUndefined()

    const spent0 = unitsSpent(h)
    const first = await h.run(plots, { params })
    const charged = unitsSpent(h) - spent0
    expect(first.status).toBe("done")
    // the sandbox's own billing: three units a call, not the one the client assumed
    expect(charged).toBe(3 * first.totals.pages)

    const learned = await planNow()
    expect(learned).toMatchObject({ costSource: "observed", unitsPerRequest: 3, observed: { perRequest: 3, charges: first.totals.pages } })
    expect(learned.costWarning).toMatch(/charged 3 units a call lately .* assumed 1; the plan uses 3/)

    const spent1 = unitsSpent(h)
    // --fresh: bought again, not reused from the first run's archive
    const second = await h.run(plots, { params, fullRefresh: true, fresh: true })
    const chargedAgain = unitsSpent(h) - spent1
    expect(second.status).toBe("done")
    expect(Math.abs(learned.units - chargedAgain) / chargedAgain).toBeLessThanOrEqual(0.05)
    // and the run's own plan (its cap check) learned it too
    expect(second.plan.units).toBe(learned.units)

    const pinned = await planNow({ plot_search: 2 })
    expect(pinned).toMatchObject({ costSource: "settings", unitsPerRequest: 2 })
    expect(pinned.costWarning).toMatch(/budget.costs says 2; the plan uses 2/)
  })
})
