/**
 * Rows staged as pages arrive (load/Stage.ts) through the real runner: a run stopped halfway
 * leaves no staging tables in a warehouse that stays open (a library user's process), and the
 * resumed run lands exactly what a clean run lands; pages are staged in journal order.
 */
import { Effect, Either, Fiber, Schedule } from "effect"
import { describe, expect, it } from "vitest"
import { STAGE_DB } from "../../src/load/Database.js"
import { dropStages } from "../../src/load/Stage.js"
import { makeWarehouse, Warehouse } from "../../src/load/Warehouse.js"
import type { Row } from "../../src/normalize/Table.js"
import { makeOrderedStaging, openGroup } from "../../src/pipeline/run/Land.js"
import type { JournalEntry, RunContext } from "../../src/pipeline/run/RunContext.js"
import * as nodePath from "node:path"
import { plotRow, plots, tempDir } from "../load/fixtures.js"
import { resolveParams } from "../../src/pipeline/Params.js"
import { runPipeline } from "../../src/pipeline/Runner.js"
import { pipelineByName, useHarness } from "../support/pipelines.js"

describe("staging through the runner", () => {
  // the platform's default 20 requests a second keep the run long enough to stop it halfway
  const h = useHarness({ sandbox: { world: { properties: 6000 } } })
  const sourcing = pipelineByName("sourcing-search")
  const params = resolveParams(sourcing, { places: [{ country: "AD" }, { country: "CY" }], operation: "sale", pageSize: 2 }, [])
  if (Either.isLeft(params)) throw params.left

  it("a run stopped halfway leaves no staging tables in the open warehouse, and its resume lands what a clean run lands", async () => {
    const { budget } = h.settings
    const request = {
      pipeline: sourcing,
      params: params.right,
      fullRefresh: false,
      maxUnits: 100_000,
      untilCap: false,
      maxRejectRatio: budget.maxRejectRatio,
      costs: budget.costs
    }
    const stopped = await h.use(
      Effect.gen(function* () {
        const wh = yield* Warehouse
        const run = yield* Effect.fork(runPipeline(request))
        // once a group has landed and more pages are on their way, stop the run (a run that ends
        // first, done or failed, fails the test)
        const landed = Effect.repeat(wh.query(`SELECT coalesce(max(pages), 0)::INTEGER AS n FROM _runs`), {
          until: (r) => Number(r[0]!.n) >= 3,
          schedule: Schedule.spaced("20 millis")
        })
        const ended = Effect.flatMap(Fiber.await(run), (exit) => Effect.dieMessage(`the run ended (${exit._tag}) before it was stopped`))
        yield* Effect.raceFirst(landed, ended)
        yield* Fiber.interrupt(run)
        const staged = yield* wh.query(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = '${STAGE_DB}'`)
        const runs = yield* wh.query(`SELECT pages FROM _runs`)
        return { staged: Number(staged[0]!.n), pages: Number(runs[0]!.pages) }
      })
    )
    expect(stopped.staged).toBe(0)
    expect(stopped.pages).toBeGreaterThanOrEqual(3)

    const resumed = await h.run(sourcing, { params: params.right as Record<string, unknown> })
    expect(resumed.status).toBe("done")
    expect(resumed.resumed).toBe(true)
    const clean = await h.run(sourcing, { params: params.right as Record<string, unknown>, warehouse: `${h.dir}/clean.duckdb` })
    const content = (warehouse?: string) =>
      h.query(
        `SELECT (SELECT count(*) FROM sourcing_properties)::INTEGER AS properties, (SELECT count(DISTINCT id) FROM sourcing_properties)::INTEGER AS ids,
           (SELECT count(*) FROM sourcing_property_agencies)::INTEGER AS agencies`,
        warehouse
      )
    expect(await content()).toEqual(await content(`${h.dir}/clean.duckdb`))
    // it was stopped halfway: a rate-limited run of 2 properties a page (about 45 pages at 20 a second, the first group landing after its 1 s fill wait) had pages left to land
    expect(stopped.pages).toBeLessThan(clean.totals.pages)
  })
})

const journalEntry = (seq: number, records: ReadonlyArray<unknown>): JournalEntry => ({
  seq,
  page: {
    slice: "ES",
    seq: seq - 1,
    fetched: { records, raw: "", units: 0, charges: [] },
    checkpoint: { key: "ES", value: seq, done: false },
    attempts: { requests: 1, retries: 0, throttled: 0 },
    fresh: records.length
  }
})

describe("ordered staging", () => {
  it("stages pages in journal order whatever order their slices bring them in", async () => {
    const joined = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
          yield* wh.ensureTables([plots])
          const run = {
            runId: "r",
            pipeline: { name: "plots" },
            extractedAt: "2026-11-24T00:00:00.000Z",
            warehouse: wh,
            normalize: (records: ReadonlyArray<unknown>) => ({
              rows: new Map([["plots", records as Array<Row>]]),
              rejects: [],
              records: records.length
            })
          } as unknown as RunContext
          const group = openGroup(run)
          const order: Array<number> = []
          const stage = yield* makeOrderedStaging(
            run,
            5,
            () => group,
            (q) => order.push(q.entry.seq)
          )
          const entry = (seq: number) => journalEntry(seq, [plotRow(seq)])
          yield* stage(entry(6)) // its page 5 has not come: it waits
          expect(order).toEqual([])
          yield* stage(entry(5)) // stages 5, then the waiting 6
          yield* stage(entry(7))
          expect(group.stage.tables.get("plots")?.rows).toBe(3)
          yield* dropStages([group.stage])
          return order
        })
      )
    )
    expect(joined).toEqual([5, 6, 7])
  })
})
