/**
 * The engine end to end against the sandbox: plan equals spend, reload rebuilds tables with zero
 * units, Parquet read back equals the tables, and a full refresh starts over.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as nodePath from "node:path"
import { Effect } from "effect"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { exportTables } from "../../src/export/Export.js"
import { Warehouse } from "../../src/load/Warehouse.js"
import { planPipeline } from "../../src/pipeline/Planner.js"
import { reloadPipeline } from "../../src/pipeline/Reload.js"
import { pipelineByName, unitsSpent, useHarness } from "../support/pipelines.js"

/** Rows and content of a table (history tables: the extraction time of a version is no content). */
const checksum = (table: string, key: string) =>
  `SELECT count(*) AS n, sum(hash(t)) AS h FROM (SELECT * EXCLUDE (extracted_at, _valid_from) FROM ${table} ORDER BY ${key}) t`

describe("engine", () => {
  const h = useHarness({ sandbox: { world: { properties: 4000 } } })

  it("an exact plan equals what the run then spends", async () => {
    const params = { body: { municipality: "Madrid", limit: 10 }, maxPages: 3, sample: true }
    const pipeline = pipelineByName("premises-search")
    const plan = await h.use(planPipeline(pipeline, (await import("effect")).Schema.decodeUnknownSync(pipeline.params)(params), {}))
    const before = unitsSpent(h)
    const summary = await h.run(pipeline, { params })
    expect(summary.status).toBe("done")
    expect(plan.units).toBe(120)
    expect(summary.totals.units).toBe(plan.units)
    expect(unitsSpent(h) - before).toBe(plan.units)
  })

  it("reload rebuilds a table from the raw archive with zero requests and zero units", async () => {
    const pipeline = pipelineByName("plots-germany")
    const params = { criteria: { regions: ["Bayern"] }, pageSize: 25, maxPages: 4, sample: true }
    const run = await h.run(pipeline, { params })
    expect(run.totals.pages).toBeGreaterThan(1)
    const [before] = await h.query(checksum("plots", "id"))
    await h.query(`DELETE FROM plots WHERE id IN (SELECT id FROM plots ORDER BY id LIMIT 30)`)
    const [damaged] = await h.query(`SELECT count(*) AS n FROM plots`)
    expect(damaged!.n).toBe((before!.n as number) - 30)
    const spent = unitsSpent(h)
    const requests = JSON.stringify(h.sandbox.control.stats().requests)
    const summary = await h.use(reloadPipeline(pipeline))
    expect(summary.pages).toBe(run.totals.pages)
    const [after] = await h.query(checksum("plots", "id"))
    expect(after).toEqual(before)
    expect(unitsSpent(h)).toBe(spent)
    expect(JSON.stringify(h.sandbox.control.stats().requests)).toBe(requests)
  })

  it("reload rebuilds sourcing-search (cursor pages, a child table) exactly, and refuses a pipeline whose records carry context its raw bodies lack", async () => {
    const sourcing = pipelineByName("sourcing-search")
    const run = await h.run(sourcing, { params: { places: [{ country: "AD" }, { country: "CY" }], operation: "sale", pageSize: 20 } })
    expect(run.totals.pages).toBeGreaterThan(2)
    const before = [
      await h.query(checksum("sourcing_properties", "id")),
      await h.query(`SELECT count(*) AS n, sum(hash(t)) AS h FROM sourcing_property_agencies t`)
    ]
    await h.query(`DELETE FROM sourcing_property_agencies`)
    await h.query(`DELETE FROM sourcing_properties`)
    const spent = unitsSpent(h)
    const summary = await h.use(reloadPipeline(sourcing))
    expect(summary).toMatchObject({ pages: run.totals.pages, records: run.totals.records, rejects: 0 })
    expect([
      await h.query(checksum("sourcing_properties", "id")),
      await h.query(`SELECT count(*) AS n, sum(hash(t)) AS h FROM sourcing_property_agencies t`)
    ]).toEqual(before)
    expect(unitsSpent(h)).toBe(spent)

    // seller-leads' records carry the point they were found around: not in the response
    const refused = await h.use(reloadPipeline(pipelineByName("seller-leads"))).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(refused).toMatchObject({ _tag: "InvalidInput", field: "reload" })
    expect(String((refused as { detail: string }).detail)).toMatch(/seller-leads cannot be reloaded.*point.*run it again/)
  })

  it("Parquet files read back equal the tables, partitions included", async () => {
    const written = await h.use(exportTables({ output: h.dir, format: "parquet", tables: ["plots", "premises"] }))
    expect(written.map((w) => w.table).sort()).toEqual(["plots", "premises"])
    const db = await DuckDBInstance.create(":memory:")
    const conn = await db.connect()
    for (const table of ["plots", "premises"]) {
      const [t] = await h.query(`SELECT count(*) AS n FROM ${table}`)
      const dir = path.join(h.dir, "parquet", table)
      const r = await conn.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${dir}/**/*.parquet', hive_partitioning = true)`)
      expect(Number(r.getRowObjects()[0]!.n)).toBe(t!.n)
    }
    // a value survives the round trip (partition column region comes back from the folder names)
    const [sample] = await h.query(`SELECT id, region, sale_eur FROM plots ORDER BY id LIMIT 1`)
    const r = await conn.runAndReadAll(
      `SELECT region, sale_eur FROM read_parquet('${path.join(h.dir, "parquet", "plots")}/**/*.parquet', hive_partitioning = true) WHERE id = '${sample!.id}'`
    )
    expect(r.getRowObjectsJS()[0]).toEqual({ region: sample!.region, sale_eur: sample!.sale_eur })
    conn.closeSync()
  })

  it("a finished run is not resumed: the next run starts over", async () => {
    const pipeline = pipelineByName("plots-germany")
    const params = { criteria: { regions: ["Hessen"] }, pageSize: 50, maxPages: 2, sample: true }
    const first = await h.run(pipeline, { params })
    const second = await h.run(pipeline, { params })
    expect(second.resumed).toBe(false)
    expect(second.totals.pages).toBe(first.totals.pages)
  })

  it("--full-refresh forgets an unfinished run's checkpoints: it reads from the first page, under checkpoints of its own", async () => {
    const pipeline = pipelineByName("plots-germany")
    const params = { criteria: { regions: ["Sachsen"] }, pageSize: 20, maxPages: 3, sample: true }
    // paused at the cap after its first page: a checkpoint past page 1
    const paused = await h.run(pipeline, { params, maxUnits: 1, untilCap: true })
    expect(paused.status).toBe("paused")
    expect(paused.totals.pages).toBe(1)
    const saved = await h.query(`SELECT run_id, done FROM _checkpoints WHERE pipeline = 'plots-germany'`)
    expect(saved.length).toBeGreaterThan(0)
    expect(saved.every((c) => c.run_id === paused.runId && c.done === false)).toBe(true)
    // a resume would read the pages left; --full-refresh reads them all, as a clean run does
    const clean = await h.run(pipeline, { params, warehouse: nodePath.join(h.dir, "clean.duckdb") })
    expect(clean.totals.pages).toBeGreaterThan(1)
    const fresh = await h.run(pipeline, { params, fullRefresh: true })
    expect(fresh.status).toBe("done")
    expect(fresh.resumed).toBe(false)
    expect(fresh.totals.pages).toBe(clean.totals.pages)
    const after = await h.query(`SELECT DISTINCT run_id FROM _checkpoints WHERE pipeline = 'plots-germany'`)
    expect(after).toEqual([{ run_id: fresh.runId }])
  })
})
