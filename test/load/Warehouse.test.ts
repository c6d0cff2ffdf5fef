import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as nodePath from "node:path"
import { Landing, makeWarehouse, RunLog, TableReads, Warehouse, warehouseLayer } from "../../src/load/Warehouse.js"
import { agencies, links, page, plotRow, plots, snapshots, tempDir } from "./fixtures.js"

const open = (dir: string) => makeWarehouse({ path: nodePath.join(dir, "warehouse.duckdb") })

describe("Warehouse", () => {
  it.scoped("merge upsert is idempotent and the last duplicate within a page wins", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots, links])
      yield* wh.startRun({ runId: "r1", pipeline: "plots", params: { country: "ES" } })
      const rows = [plotRow(1), plotRow(2), plotRow(1, { price_eur: 5 }), plotRow(3)]
      const p = page(
        "r1",
        { plots: rows, plot_agency_links: [{ plot_id: "plot_1", agency: "a", since: "2026-01-01" }] },
        { key: "ES", value: { offset: 4 } }
      )
      yield* wh.commitPage(p)
      const first = yield* wh.query(`SELECT * FROM plots ORDER BY id`)
      yield* wh.commitPage(p)
      const second = yield* wh.query(`SELECT * FROM plots ORDER BY id`)
      expect(first).toHaveLength(3)
      expect(second).toEqual(first)
      expect(first[0]).toMatchObject({ id: "plot_1", price_eur: 5, area_m2: 101, views: 1000, extra: '{"n":1}' })
      expect((first[0]!.updated_at as Date).toISOString()).toBe("2026-02-01T10:00:01.000Z")
      // Same request ids: the ledger is not charged twice.
      expect(yield* wh.unitsSpentSince("2026-11-21T00:00:00Z")).toBe(1)
      expect(yield* wh.tableCounts()).toEqual({ plot_agency_links: 1, plots: 3 })
    })
  )

  it.scoped("a group landing pages of two runs interleaved keeps each run's counters and raw page numbers", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "a", pipeline: "plots" })
      yield* wh.startRun({ runId: "b", pipeline: "plots" })
      const raw = (k: string) => ({ raw: { pageKey: k, body: `{"results":["${k}"]}` } })
      yield* wh.commitPages([
        page("a", { plots: [plotRow(1), plotRow(2)] }, { key: "ES", value: 1 }, raw("a1")),
        page("b", { plots: [plotRow(3)] }, { key: "PT", value: 1 }, raw("b1")),
        page("a", { plots: [plotRow(4)] }, { key: "ES", value: 2 }, raw("a2"))
      ])
      const runs = yield* wh.query(`SELECT run_id, pages, rows_per_table, units_charged FROM _runs ORDER BY run_id`)
      expect(runs).toEqual([
        { run_id: "a", pages: 2, rows_per_table: '{"plots":3}', units_charged: 2 },
        { run_id: "b", pages: 1, rows_per_table: '{"plots":1}', units_charged: 1 }
      ])
      expect((yield* wh.rawPages("a")).map((r) => [r.seq, r.pageKey])).toEqual([
        [1, "a1"],
        [2, "a2"]
      ])
      expect((yield* wh.rawPages("b")).map((r) => [r.seq, r.pageKey])).toEqual([[1, "b1"]])
    })
  )

  it.scoped("append adds _run_id and _extracted_at", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([snapshots])
      yield* wh.startRun({ runId: "r1", pipeline: "plots" })
      const p = page(
        "r1",
        {
          price_snapshots: [
            { plot_id: "a", price_eur: 1 },
            { plot_id: "a", price_eur: 2 }
          ]
        },
        { key: "k", value: 1 }
      )
      yield* wh.commitPage(p)
      yield* wh.commitPage({ ...p, ledger: [] })
      const rows = yield* wh.query(`SELECT plot_id, price_eur, _run_id, _extracted_at FROM price_snapshots`)
      expect(rows).toHaveLength(4)
      for (const r of rows) {
        expect(r._run_id).toBe("r1")
        expect(r._extracted_at).toBeInstanceOf(Date)
      }
    })
  )

  it.scoped("replace rows are swapped in only when the run finishes done", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([agencies])
      const run = (id: string, names: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          yield* wh.startRun({ runId: id, pipeline: "plots" })
          yield* wh.commitPage(
            page(id, { agencies: names.map((n) => ({ agency_id: n, name: `${n}-${id}` })) }, { key: "all", value: null, done: true })
          )
        })
      yield* run("r1", ["a", "b", "a"])
      expect(yield* wh.query(`SELECT * FROM agencies`)).toEqual([])
      yield* wh.finishRun("r1", "done")
      expect(yield* wh.query(`SELECT * FROM agencies ORDER BY agency_id`)).toEqual([
        { agency_id: "a", name: "a-r1" },
        { agency_id: "b", name: "b-r1" }
      ])
      yield* run("r2", ["c"])
      yield* wh.finishRun("r2", "paused")
      expect(yield* wh.query(`SELECT agency_id FROM agencies ORDER BY agency_id`)).toEqual([{ agency_id: "a" }, { agency_id: "b" }])
      yield* run("r3", ["d"])
      yield* wh.finishRun("r3", "done")
      // The paused run's rows were kept and swap in with the resumed run's.
      expect(yield* wh.query(`SELECT agency_id FROM agencies ORDER BY agency_id`)).toEqual([{ agency_id: "c" }, { agency_id: "d" }])
      // A run that lands no row still replaces the table (with nothing).
      yield* wh.startRun({ runId: "r4", pipeline: "plots" })
      yield* wh.commitPage(page("r4", { agencies: [] }, { key: "all", value: null, done: true }))
      yield* wh.finishRun("r4", "done")
      expect(yield* wh.tableCounts()).toEqual({ agencies: 0 })
    })
  )

  it.scoped("a page is all or nothing: a bad value in the second table leaves no trace", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots, links])
      yield* wh.startRun({ runId: "r1", pipeline: "plots" })
      yield* wh.commitPage(page("r1", { plots: [plotRow(1)] }, { key: "ES", value: { offset: 1 } }))
      const bad = page(
        "r1",
        { plots: [plotRow(2), plotRow(3)], plot_agency_links: [{ plot_id: "plot_2", agency: "a", since: "not-a-date" }] },
        { key: "ES", value: { offset: 3 } },
        { rejects: [{ table: "plots", reason: "x", raw: "{}" }] }
      )
      const err = yield* Effect.flip(wh.commitPage(bad))
      expect(err.reason).toBe("Sql")
      expect(err.message).toMatch(/not-a-date/)
      // A wrongly typed JS value is refused before anything is written, with the row and column.
      const typed = yield* Effect.flip(
        wh.commitPage(page("r1", { plots: [plotRow(4), plotRow(5, { area_m2: "big" })] }, { key: "ES", value: { offset: 9 } }))
      )
      expect(typed.reason).toBe("BadValue")
      expect(typed.message).toMatch(/row 1 .*column area_m2/)
      expect(yield* wh.tableCounts()).toEqual({ plot_agency_links: 0, plots: 1 })
      expect((yield* wh.checkpoints("plots")).map((c) => c.value)).toEqual([{ offset: 1 }])
      expect(yield* wh.query(`SELECT count(*) AS n FROM _rejects`)).toEqual([{ n: 0 }])
      expect(yield* wh.query(`SELECT count(*) AS n FROM _ledger`)).toEqual([{ n: 1 }])
      const run = Option.getOrThrow(yield* wh.lastRun("plots"))
      expect(run.pages).toBe(1)
      expect(run.rowsPerTable).toEqual({ plots: 1 })
      // The next good page lands normally (also in the table first touched by the failed page).
      yield* wh.commitPage(
        page(
          "r1",
          { plots: [plotRow(2)], plot_agency_links: [{ plot_id: "plot_2", agency: "a", since: "2026-01-02" }] },
          { key: "ES", value: { offset: 3 } }
        )
      )
      expect(yield* wh.tableCounts()).toEqual({ plot_agency_links: 1, plots: 2 })
    })
  )

  it.scoped("runs, checkpoints, ledger and rejects round-trip", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* open(dir)
          yield* wh.ensureTables([plots])
          yield* wh.startRun({ runId: "r1", pipeline: "plots", params: { country: "ES" }, unitsPlanned: 40 })
          yield* wh.commitPage(
            page(
              "r1",
              { plots: [plotRow(1), plotRow(2)] },
              { key: "ES", value: { offset: 2 } },
              {
                ledger: [
                  { requestId: "q1", operation: "plots.search", units: 1, at: "2026-11-20T23:59:59Z" },
                  { requestId: "q2", operation: "plots.search", units: 40, at: "2026-11-21T08:00:00+02:00" }
                ],
                rejects: [{ table: "plots", reason: "missing id", raw: '{"x":1}' }],
                requests: 3,
                retries: 1
              }
            )
          )
          yield* wh.commitPage(page("r1", { plots: [plotRow(3)] }, { key: "PT", value: { offset: 1 }, done: true }, { ledger: [] }))
          yield* wh.finishRun("r1", "paused", "budget reached")
        })
      )
      // Reopen: everything was persisted.
      const wh = yield* open(dir)
      const run = Option.getOrThrow(yield* wh.lastRun("plots"))
      expect(run).toMatchObject({
        runId: "r1",
        pipeline: "plots",
        params: { country: "ES" },
        status: "paused",
        pages: 2,
        requests: 4,
        retries: 1,
        rowsPerTable: { plots: 3 },
        unitsPlanned: 40,
        unitsCharged: 41,
        error: "budget reached"
      })
      expect(run.finishedAt).not.toBeNull()
      expect(yield* wh.runs(10)).toHaveLength(1)
      expect(Option.isNone(yield* wh.lastRun("other"))).toBe(true)
      const cps = yield* wh.checkpoints("plots")
      expect(cps.map((c) => [c.key, c.value, c.done, c.runId])).toEqual([
        ["ES", { offset: 2 }, false, "r1"],
        ["PT", { offset: 1 }, true, "r1"]
      ])
      // 08:00+02:00 is 06:00Z: after midnight UTC; q1 is before it.
      expect(yield* wh.unitsSpentSince("2026-11-21T00:00:00Z")).toBe(40)
      expect(yield* wh.query(`SELECT table_name, reason, raw FROM _rejects`)).toEqual([
        { table_name: "plots", reason: "missing id", raw: '{"x":1}' }
      ])
      yield* wh.startRun({ runId: "r1", pipeline: "plots" })
      expect(Option.getOrThrow(yield* wh.lastRun("plots")).status).toBe("running")
      yield* wh.clearCheckpoints("plots")
      expect(yield* wh.checkpoints("plots")).toEqual([])
    })
  )

  it.scoped("committing to a run that was not started or an undeclared table fails clearly", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots])
      const e1 = yield* Effect.flip(wh.commitPage(page("nope", { plots: [] }, { key: "k", value: 1 })))
      expect(e1.message).toMatch(/Run nope was not started/)
      yield* wh.startRun({ runId: "r", pipeline: "plots" })
      const e2 = yield* Effect.flip(wh.commitPage(page("r", { unknown_table: [] }, { key: "k", value: 1 })))
      expect(e2.reason).toBe("SchemaConflict")
      expect(e2.message).toMatch(/unknown_table was not declared/)
    })
  )

  it.effect("is provided as a service by Warehouse.Default(options) and closed with its scope", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      const use = Effect.gen(function* () {
        const wh = yield* Warehouse
        yield* wh.ensureTables([plots])
        return yield* wh.tableCounts()
      })
      expect(yield* Effect.provide(use, Warehouse.Default({ path }))).toEqual({ plots: 0 })
      // The first layer released the file: a second one opens it.
      expect(yield* Effect.provide(use, Warehouse.Default({ path }))).toEqual({ plots: 0 })
    })
  )

  it.effect("warehouseLayer provides one open file as Warehouse and as each face: what Landing writes, RunLog and TableReads read", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      const use = Effect.gen(function* () {
        const landing = yield* Landing
        yield* landing.ensureTables([plots])
        yield* landing.startRun({ runId: "r1", pipeline: "plots" })
        yield* landing.commitPage(page("r1", { plots: [plotRow(1), plotRow(2)] }, { key: "ES", value: { offset: 2 } }))
        yield* landing.finishRun("r1", "done")
        const log = yield* RunLog
        const reads = yield* TableReads
        return {
          same: (yield* Warehouse).path === reads.path,
          status: Option.map(yield* log.lastRun("plots"), (r) => r.status),
          checkpoints: (yield* log.checkpoints("plots")).map((c) => c.key),
          counts: yield* reads.tableCounts()
        }
      })
      expect(yield* Effect.provide(use, warehouseLayer({ path }))).toEqual({
        same: true,
        status: Option.some("done"),
        checkpoints: ["ES"],
        counts: { plots: 2 }
      })
    })
  )
})
