/**
 * The library API end to end against a sandbox on ephemeral ports: Promise and Effect entry
 * points, memory and warehouse targets, the unit cap, Arrow IPC and Parquet exports.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { tableFromIPC } from "apache-arrow"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  definePipeline,
  Etl,
  extract,
  fanOut,
  fetchedOf,
  flatTable,
  LibraryError,
  openSession,
  query,
  queryArrow,
  rows,
  single,
  TokenClient,
  withSession,
  writeArrow,
  writeParquet
} from "../../src/index.js"
import type { PlotResult } from "../../src/sandbox/world/World.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const criteria = { regions: ["Bayern"], commercial_use: "all" } as const
const plotParams = { criteria, pageSize: 50, maxPages: 4, sample: true } as const

describe("library API", () => {
  let sandbox: Sandbox
  let dir: string
  let truth: ReadonlyArray<PlotResult>
  beforeAll(async () => {
    sandbox = await startTestSandbox({})
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-lib-"))
    truth = sandbox.context.world.searchPlots(criteria as never).slice(0, 200)
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("extracts into a warehouse file; the Arrow table equals a query of that warehouse and the sandbox's ground truth", async () => {
    const warehouse = path.join(dir, "wh.duckdb")
    const x = await extract("plots-germany", { sandbox, into: "warehouse", warehouse, params: plotParams })
    expect(x.summary.status).toBe("done")
    expect(x.tableNames).toEqual(["plots", "plot_agency_links"])
    const table = x.table()
    expect(table.numRows).toBe(truth.length)
    expect([...table.getChild("id")!].sort()).toEqual(truth.map((p) => p.id).sort())
    // same rows as SQL over the file, column for column (plots keeps history: its current view)
    const fromSql = await queryArrow("SELECT * FROM plots_current", { warehouse })
    expect(fromSql.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(table.schema.fields.map((f) => `${f.name}:${f.type}`))
    const byId = (rs: Array<Record<string, unknown>>) => [...rs].sort((a, b) => String(a.id).localeCompare(String(b.id)))
    expect(byId(x.rows())).toEqual(byId(await rows("SELECT * FROM plots_current", { warehouse })))
    // values against the world
    const sample = truth[7]!
    const row = x.rows().find((r) => r.id === sample.id)!
    expect(row.sale_eur).toBe(sample.sale_eur)
    expect(row.commercial_use_evidence).toBe(sample.commercial_use.evidence)
    expect(row.extracted_at).toBeInstanceOf(Date)
    expect(x.rows("plot_agency_links").length).toBe(truth.reduce((s, p) => s + (p.agency_links?.length ?? 0), 0))
    // @ts-expect-error a table the pipeline does not land is a compile error too
    expect(() => x.table("nope")).toThrow(LibraryError)
  })

  it("an in-memory extraction leaves a given warehouse file untouched", async () => {
    const warehouse = path.join(dir, "nightly.duckdb")
    const first = await extract("plots-germany", {
      sandbox,
      into: "warehouse",
      warehouse,
      params: { ...plotParams, maxPages: 1, sample: true },
      read: ["plot_agency_links"]
    })
    expect(first.tableNames).toEqual(["plot_agency_links"])
    expect(() => first.table()).toThrow(/no table plots/)
    const before = { bytes: fs.readFileSync(warehouse), mtime: fs.statSync(warehouse).mtimeMs }
    const files = fs.readdirSync(dir).sort()
    const x = await extract("plots-germany", { sandbox, settings: { warehouse }, params: plotParams })
    expect(x.table().numRows).toBe(truth.length)
    expect(fs.statSync(warehouse).mtimeMs).toBe(before.mtime)
    expect(fs.readFileSync(warehouse).equals(before.bytes)).toBe(true)
    expect(fs.readdirSync(dir).sort()).toEqual(files)
    // the file still holds only the first, one-page run
    expect(await rows("SELECT count(*) AS n FROM plots", { warehouse })).toEqual([{ n: 50 }])
  })

  it("refuses a plan over the unit cap before any paid call", async () => {
    const before = sandbox.control.stats()
    const spent = Object.values(before.unitsSpent).reduce((a, b) => a + b, 0)
    const err = await extract("plots-germany", { sandbox, maxUnits: 3, params: plotParams }).then(
      () => undefined,
      (e) => e
    )
    expect(err._tag).toBe("InvalidInput")
    // in the library's terms: its options, not the CLI's flags
    expect(err.field).toBe("maxUnits")
    expect(err.detail).toBe("plots-germany plans 4 units, above the cap of 3; raise maxUnits or pass untilCap: true to stop at the cap")
    const after = sandbox.control.stats()
    expect(Object.values(after.unitsSpent).reduce((a, b) => a + b, 0)).toBe(spent)
    expect(after.requests).toEqual(before.requests)
  })

  it("names a missing settings file by the settings option", async () => {
    const err = await extract("plots-germany", { sandbox, settings: path.join(dir, "nope.json"), params: plotParams }).then(
      () => undefined,
      (e) => e
    )
    expect(err._tag).toBe("InvalidInput")
    expect(err.message).toBe(`settings: no settings file at ${path.join(dir, "nope.json")}`)
    const read = await query("SELECT 1", { settings: path.join(dir, "nope.json") }).then(
      () => undefined,
      (e) => e
    )
    expect(read.message).toBe(`settings: no settings file at ${path.join(dir, "nope.json")}`)
  })

  it("rejects bad parameters naming the field, before any request", async () => {
    const before = sandbox.control.stats().requests
    const err = await extract("plots-germany", { sandbox, params: { pageSize: 1000 } }).then(
      () => undefined,
      (e) => e
    )
    expect(err?._tag).toBe("InvalidInput")
    expect(err.field).toBe("plots-germany.pageSize")
    expect(sandbox.control.stats().requests).toEqual(before)
  })

  it("reads never create a warehouse file", async () => {
    const missing = path.join(dir, "typo.duckdb")
    const err = await query("SELECT 1", { warehouse: missing }).then(
      () => undefined,
      (e) => e
    )
    expect(err?._tag).toBe("InvalidInput")
    expect(fs.existsSync(missing)).toBe(false)
  })

  it("writes Arrow IPC and Parquet files of a table and of a query; they read back equal", async () => {
    const warehouse = path.join(dir, "wh.duckdb")
    const arrowFile = path.join(dir, "out", "plots.arrow")
    const written = await writeArrow("plots", arrowFile, { warehouse })
    const back = tableFromIPC(fs.readFileSync(arrowFile))
    expect(back.numRows).toBe(written.rows)
    expect(back.numRows).toBe(truth.length)
    expect(back.schema.fields.map((f) => f.name)).toContain("commercial_use_evidence")
    expect([...back.getChild("id")!].sort()).toEqual(truth.map((p) => p.id).sort())

    const sql = "SELECT region, count(*) AS n, avg(sale_eur_per_m2) AS eur_m2 FROM plots GROUP BY region"
    const q = await queryArrow(sql, { warehouse })
    await writeArrow(q, path.join(dir, "out", "by-region.arrow"))
    const q2 = tableFromIPC(fs.readFileSync(path.join(dir, "out", "by-region.arrow")))
    expect(q2.toArray().map((r) => r.toJSON())).toEqual(q.toArray().map((r) => r.toJSON()))
    expect(Number(q2.get(0)!.n)).toBe(truth.length)

    const parquet = path.join(dir, "out", "plots.parquet")
    const pq = await writeParquet("plots", parquet, { warehouse })
    expect(pq.rows).toBe(truth.length)
    const instance = await DuckDBInstance.create(":memory:")
    const conn = await instance.connect()
    const read = await conn.runAndReadAll(`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM read_parquet('${parquet}')`)
    expect(read.getRowObjectsJS()[0]).toEqual({ n: BigInt(truth.length), ids: BigInt(truth.length) })
    conn.closeSync()
    instance.closeSync()
  })

  it("runs an inline declaration and joins two runs in one session (Promise API)", async () => {
    const ids = [1, 2, 3, 4, 5].map((i) => sandbox.context.world.propertyIdOf(i * 7))
    // An inline source: two fields of the token host's property record, by id.
    const Prop = Schema.Struct({ property_id: Schema.Number, address: Schema.String })
    const t = flatTable<typeof Prop.Type>(
      "adhoc_addresses",
      { property_id: "BIGINT", address: "VARCHAR" },
      { primaryKey: ["property_id"], disposition: "merge" }
    )
    const addresses = definePipeline({
      name: "adhoc-addresses",
      description: "addresses of some properties",
      host: "token",
      params: Schema.Struct({ ids: Schema.Array(Schema.Number) }),
      source: fanOut({
        keys: (p: { ids: ReadonlyArray<number> }) => p.ids,
        key: (id) => `id=${id}`,
        concurrency: 2,
        pager: (id) =>
          single(() =>
            Effect.flatMap(TokenClient, (c) => c.propertyById(String(id))).pipe(
              Effect.map((r) => fetchedOf(r, "property_by_id", [(r.body as { results: unknown }).results]))
            )
          )
      }),
      cost: { operation: "property_by_id", estimate: (p) => Effect.succeed({ requests: p.ids.length, exact: true }) },
      tables: [t.spec],
      records: { table: "adhoc_addresses", schema: Prop, toRows: (r) => ({ adhoc_addresses: [t.row(r, undefined)] }) }
    })
    const joined = await withSession({ sandbox }, async (s) => {
      expect(s.into).toBe("memory")
      const a = await s.run(addresses, { params: { ids } })
      expect(
        a
          .rows()
          .map((r) => r.property_id)
          .sort()
      ).toEqual([...ids].sort())
      await s.run("properties-by-id", { params: { ids } })
      return s.rows(`SELECT a.property_id, a.address, p.zip_code FROM adhoc_addresses a JOIN properties p USING (property_id) ORDER BY 1`)
    })
    expect(joined.map((r) => r.property_id)).toEqual([...ids].sort((x, y) => x - y))
    for (const r of joined) {
      const truthOf = sandbox.context.world.propertyById(r.property_id as number)!
      expect(r.address).toBe(truthOf.address)
      expect(r.zip_code).toBe(truthOf.zip_code)
    }
  })

  it("offers the same through Effect (Etl.session, Etl.extract) and fails a paused run with LibraryError", async () => {
    const program = Effect.scoped(
      Effect.gen(function* () {
        const s = yield* Etl.session({ sandbox, maxUnits: 2 })
        const x = yield* s.run("plots-germany", { params: { ...plotParams, maxPages: 1, sample: true } })
        const counts = yield* s.tableCounts()
        // the session's cap is 2 units; a run planned at 2 pages passes the plan check but stops at the cap
        const paused = yield* Effect.flip(
          s.run("plots-germany", { params: { ...plotParams, maxPages: 2, sample: true }, untilCap: true, maxUnits: 100 })
        )
        return { x, counts, paused }
      })
    )
    const { counts, paused, x } = await Effect.runPromise(program)
    expect(x.table().numRows).toBe(50)
    expect(counts.plots).toBe(50)
    expect(paused._tag).toBe("LibraryError")
    expect((paused as LibraryError).reason).toBe("RunPaused")
    expect((paused as LibraryError).summary?.status).toBe("paused")

    const ex = await Effect.runPromise(Etl.extract("plots-germany", { sandbox, params: { ...plotParams, maxPages: 1, sample: true } }))
    expect(ex.rows().length).toBe(50)
    const s = await openSession({ sandbox })
    expect(s.sandbox?.apiUrl).toBe(sandbox.apiUrl)
    await s.close()
  })
})
