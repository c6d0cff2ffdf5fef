/**
 * A paid page of an unexpected shape is kept: its charge in the ledger, its body in the raw
 * archive. After the settings name where this service keeps its records (`service.shapes`),
 * `reload` lands every archived page at 0 units: the ground truth, no new call.
 *
 * `reload` reads each page as the operation that answered it (a sourcing search's first page is
 * `sourcing_search`, its cursor pages `sourcing_next`) through the shapes as they are now, given
 * as an argument (what the command line passes from its settings) or by the `ServiceSettings` in
 * context; a body that still does not fit is `UnexpectedShape` (exit 7) before anything is
 * written, never one reject of the whole body and `done`.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reloadPipeline } from "../../src/pipeline/Reload.js"
import { exitCodeOf } from "../../src/shared/ErrorClass.js"
import { type Harness, makeHarness, pipelineByName, unitsSpent } from "../support/pipelines.js"

const params = { places: [{ country: "PT" }], operation: "sale", pageSize: 20, maxPages: 5 }
const ITEMS = { results: "items" }
const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")

describe("an unexpected shape, then reload after the settings fix", () => {
  let h: Harness
  let fixed: Harness
  let fixedOnDialect: Harness
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 1500 }, dialect: "results-key" } })
    fixed = await makeHarness({
      settings: { service: { shapes: { sourcing_search: ITEMS, sourcing_next: ITEMS } } }
    })
    fixedOnDialect = await makeHarness({
      sandbox: { world: { properties: 1500 }, dialect: "results-key" },
      settings: { service: { shapes: { sourcing_search: ITEMS, sourcing_next: ITEMS } } }
    })
  })
  afterAll(async () => {
    await h.close()
    await fixed.close()
    await fixedOnDialect.close()
  })

  const firstPageIds = () =>
    h.sandbox.context.world
      .searchProperties({ country: "PT", operation: "sale" }, 0, 20)
      .results.map((r: { id: string }) => r.id)
      .sort()

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
    const rows = await h.query(`SELECT id FROM sourcing_properties ORDER BY id`, warehouse)
    expect(rows.map((r) => r.id)).toEqual(firstPageIds())
  })

  it("a body that still does not fit: UnexpectedShape (exit 7) naming the page, nothing written, no reject", async () => {
    const warehouse = path.join(h.dir, "still.duckdb")
    const stopped = await h.run("sourcing-search", { params, warehouse })
    expect(stopped.exitCode).toBe(7)
    const before = sha(warehouse)
    // the settings still lack the shape: the harness `h` has none
    const failed = await h.use(reloadPipeline(pipelineByName("sourcing-search")), warehouse).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(failed).toMatchObject({ _tag: "UnexpectedShape", operation: "sourcing_search" })
    expect(exitCodeOf(failed)).toBe(7)
    expect((failed as Error).message).toMatch(
      /^sourcing_search: UnexpectedShape: expected a list at "results", found nothing \(members: .*items.*\); the body starts "\{.*"; archived page unexpected-shape of run \S+, nothing reloaded: set service\.shapes\.sourcing_search to where this service puts it, then reload sourcing-search again \(0 units\); `estate-etl probe` checks the shape of every operation at once$/
    )
    expect(sha(warehouse)).toBe(before)
    const [runs] = await h.query(`SELECT count(*)::INTEGER AS n FROM _runs WHERE run_id LIKE 'reload-%'`, warehouse)
    const [rejects] = await h.query(`SELECT count(*)::INTEGER AS n FROM _rejects`, warehouse)
    expect({ reloads: runs!.n, rejects: rejects!.n }).toEqual({ reloads: 0, rejects: 0 })
  })

  it("the shapes as an argument, as the command line passes its settings' service.shapes", async () => {
    const warehouse = path.join(h.dir, "argument.duckdb")
    expect((await h.run("sourcing-search", { params, warehouse })).exitCode).toBe(7)
    const reloaded = await h.use(reloadPipeline(pipelineByName("sourcing-search"), undefined, fixed.settings.service.shapes), warehouse)
    expect(reloaded).toMatchObject({ pages: 1, records: 20, rejects: 0 })
    const rows = await h.query(`SELECT id FROM sourcing_properties ORDER BY id`, warehouse)
    expect(rows.map((r) => r.id)).toEqual(firstPageIds())
  })

  it("each page is read as the operation that answered it: the search's first page, then its cursor pages", async () => {
    const warehouse = path.join(fixedOnDialect.dir, "pages.duckdb")
    const done = await fixedOnDialect.run("sourcing-search", { params: { ...params, maxPages: 3 }, sample: true, warehouse })
    expect(done.exitCode).toBe(0)
    const operations = await fixedOnDialect.query(`SELECT operation FROM _raw_pages ORDER BY seq`, warehouse)
    expect(operations.map((r) => r.operation)).toEqual(["sourcing_search", "sourcing_next", "sourcing_next"])

    // the cursor pages' shape missing: they do not fit, and the reload says which operation
    const onlyFirst = await h.use(reloadPipeline(pipelineByName("sourcing-search"), undefined, { sourcing_search: ITEMS }), warehouse).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(onlyFirst).toMatchObject({ _tag: "UnexpectedShape", operation: "sourcing_next" })
    expect((onlyFirst as Error).message).toMatch(/archived page 1 of run .*set service\.shapes\.sourcing_next/)

    const reloaded = await h.use(reloadPipeline(pipelineByName("sourcing-search"), undefined, fixed.settings.service.shapes), warehouse)
    expect(reloaded).toMatchObject({ pages: 3, records: 60, rejects: 0 })
  })
})
