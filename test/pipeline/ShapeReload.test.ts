/**
 * A paid page of an unexpected shape is kept: its charge in the ledger, its body in the raw
 * archive. After the settings name where this service keeps its records (`service.shapes`),
 * `reload` lands every archived page at 0 units: the ground truth, no new call.
 */
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reloadPipeline } from "../../src/pipeline/Reload.js"
import { type Harness, makeHarness, pipelineByName, unitsSpent } from "../support/pipelines.js"

const params = { places: [{ country: "PT" }], operation: "sale", pageSize: 20, maxPages: 5 }

describe("an unexpected shape, then reload after the settings fix", () => {
  let h: Harness
  let fixed: Harness
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 1500 }, dialect: "results-key" } })
    fixed = await makeHarness({
      settings: { service: { shapes: { sourcing_search: { results: "items" }, sourcing_next: { results: "items" } } } }
    })
  })
  afterAll(async () => {
    await h.close()
    await fixed.close()
  })

  it("stops paused with UnexpectedShape (exit 7), then reload lands the paid page at 0 units", async () => {
    const warehouse = path.join(h.dir, "shape.duckdb")
    const before = unitsSpent(h)
    const stopped = await h.run("sourcing-search", { params, warehouse })
    expect(stopped.status).toBe("paused")
    expect(stopped.exitCode).toBe(7)
    expect(stopped.error).toMatch(/UnexpectedShape: expected a list at "results", found nothing \(members: .*items/)
    expect(stopped.error).toMatch(/set service\.shapes\.sourcing_search/)
    const paid = unitsSpent(h) - before
    expect(paid).toBe(1)
    const [ledger] = await h.query(`SELECT count(*)::INTEGER AS n, sum(units)::INTEGER AS u FROM _ledger`, warehouse)
    expect(ledger).toEqual({ n: 1, u: 1 })

    const spent = unitsSpent(h)
    const reloaded = await fixed.use(reloadPipeline(pipelineByName("sourcing-search")), warehouse)
    expect(unitsSpent(h)).toBe(spent)
    expect(reloaded.pages).toBe(1)
    const world = h.sandbox.context.world
    const firstPage = world
      .searchProperties({ country: "PT", operation: "sale" }, 0, 20)
      .results.map((r: { id: string }) => r.id)
      .sort()
    const rows = await h.query(`SELECT id FROM sourcing_properties ORDER BY id`, warehouse)
    expect(rows.map((r) => r.id)).toEqual(firstPage)
  })
})
