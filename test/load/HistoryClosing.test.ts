/**
 * Closing what is gone, at the warehouse (`load/HistoryClosing.ts`): keys recorded per slice as
 * pages land, a run that is no complete full pull closing nothing (its keys joining the members),
 * a complete full pull closing only its own scope's members of the slices it read, and a
 * warehouse older than membership closing its stale rows at its first full pull when nothing
 * else wrote the table; a format 4 warehouse's members (under a primary key) migrated.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as nodePath from "node:path"
import { FORMAT_VERSION } from "../../src/load/Bookkeeping.js"
import { makeWarehouse, type WarehouseApi } from "../../src/load/Warehouse.js"
import type { TableSpec } from "../../src/normalize/Table.js"
import { onFile, page, plotRow, plots, tempDir } from "./fixtures.js"

const history: TableSpec = { ...plots, disposition: "history" }
const T = ["2026-11-01T02:00:00.000Z", "2026-11-02T02:00:00.000Z", "2026-11-03T02:00:00.000Z", "2026-11-04T02:00:00.000Z"]

/** A run of pipeline `plots` (params `{scope}`) landing `bySlice` (slice -> plot numbers), ended done. */
const pull = (
  wh: WarehouseApi,
  runId: string,
  at: string,
  bySlice: Record<string, ReadonlyArray<number>>,
  ending: { scope: string; full: boolean; shard?: string } | "old"
) =>
  Effect.gen(function* () {
    yield* wh.startRun({ runId, pipeline: "plots", params: { scope: ending === "old" ? "a" : ending.scope } })
    yield* wh.commitPages(
      Object.entries(bySlice).map(([slice, ids]) =>
        page(
          runId,
          { plots: ids.map((i) => plotRow(i)) },
          { key: slice, value: 1, done: true },
          { extractedAt: at, slice: { key: slice, received: ids.length, landed: ids.length, rejected: 0, done: true } }
        )
      )
    )
    if (ending === "old") {
      // an older toolkit: no keys, no members
      yield* wh.query(`DELETE FROM _history_keys`)
      return yield* wh.finishRun(runId, "done")
    }
    return yield* wh.finishRun(runId, "done", undefined, {
      pipeline: "plots",
      scope: ending.scope,
      full: ending.full,
      shard: ending.shard,
      closeAt: at,
      scopeOfRun: (params) => (params as { scope?: string } | null)?.scope,
      tables: [history]
    })
  })

const current = (wh: WarehouseApi) =>
  Effect.map(wh.query(`SELECT id FROM plots_current ORDER BY id`), (rows) => rows.map((r) => String(r.id)))
const ids = (...n: Array<number>) => n.map((i) => `plot_${i}`).sort()

describe("closing what a full pull no longer sees", () => {
  it.scoped("closes only members of the slices a complete full pull read, in its own scope", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "w.duckdb") })
      yield* wh.ensureTables([history])
      expect(yield* pull(wh, "r1", T[0]!, { A: [1, 2, 3], B: [4, 5] }, { scope: "a", full: true })).toEqual({ plots: 0 })
      // not full (a since-read): nothing closes, but 6 becomes a member of A
      expect(yield* pull(wh, "r2", T[1]!, { A: [6] }, { scope: "a", full: false })).toEqual({})
      // another scope's full pull of A: closes nothing of scope a
      expect(yield* pull(wh, "r3", T[1]!, { A: [1] }, { scope: "b", full: true })).toEqual({ plots: 0 })
      // one shard: closes nothing
      expect(yield* pull(wh, "r4", T[2]!, { A: [1] }, { scope: "a", full: true, shard: "0/2" })).toEqual({})
      expect(yield* current(wh)).toEqual(ids(1, 2, 3, 4, 5, 6))
      // a full pull of slice A only: 2, 3 and 6 are gone from A; B is not read, 4 and 5 stay
      expect(yield* pull(wh, "r5", T[3]!, { A: [1] }, { scope: "a", full: true })).toEqual({ plots: 3 })
      expect(yield* current(wh)).toEqual(ids(1, 4, 5))
      const closed = yield* wh.query(`SELECT id, CAST(_valid_to AS VARCHAR) AS until FROM plots WHERE NOT _is_current ORDER BY id`)
      expect(closed.map((r) => String(r.id))).toEqual(ids(2, 3, 6))
      expect(new Set(closed.map((r) => String(r.until).slice(0, 10)))).toEqual(new Set(["2026-11-04"]))
      // a done run's keys are forgotten (its members keep them); full pulls are recorded for plans
      expect(yield* wh.query(`SELECT count(*)::INTEGER AS n FROM _history_keys`)).toEqual([{ n: 0 }])
      expect(yield* wh.query(`SELECT run_id, shard FROM _full_pulls ORDER BY run_id`)).toEqual([
        { run_id: "r1", shard: null },
        { run_id: "r3", shard: null },
        { run_id: "r4", shard: "0/2" },
        { run_id: "r5", shard: null }
      ])
      expect(yield* wh.lastFullRead("plots")).toEqual(
        new Map([
          ["A", { pages: 1, records: 1 }],
          ["B", { pages: 1, records: 2 }]
        ])
      )
      // a record that comes back starts a new version
      yield* pull(wh, "r6", "2026-11-05T02:00:00.000Z", { A: [1, 2] }, { scope: "a", full: true })
      expect(yield* current(wh)).toEqual(ids(1, 2, 4, 5))
      // members are kept once each without a key to conflict on (format 5): a repeat adds nothing
      yield* pull(wh, "r7", "2026-11-06T02:00:00.000Z", { A: [1, 2], B: [4] }, { scope: "a", full: false })
      expect(yield* wh.query(`SELECT scope, slice, "key" FROM _history_members ORDER BY scope, slice, "key"`)).toEqual([
        { scope: "a", slice: "A", key: "plot_1" },
        { scope: "a", slice: "A", key: "plot_2" },
        { scope: "a", slice: "B", key: "plot_4" },
        { scope: "a", slice: "B", key: "plot_5" },
        { scope: "b", slice: "A", key: "plot_1" }
      ])
    })
  )

  it.scoped("a warehouse older than membership closes its stale rows at its first full pull, unless another pipeline wrote the table", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "w.duckdb") })
      yield* wh.ensureTables([history])
      yield* pull(wh, "o1", T[0]!, { A: [1, 2, 3] }, "old")
      expect(yield* pull(wh, "n1", T[1]!, { A: [1, 2] }, { scope: "a", full: true })).toEqual({ plots: 1 })
      expect(yield* current(wh)).toEqual(ids(1, 2))

      const other = yield* makeWarehouse({ path: nodePath.join(tempDir(), "w2.duckdb") })
      yield* other.ensureTables([history])
      yield* pull(other, "o1", T[0]!, { A: [1, 2, 3] }, "old")
      yield* other.query(`UPDATE _runs SET pipeline = 'another' WHERE run_id = 'o1'`)
      expect(yield* pull(other, "n1", T[1]!, { A: [1, 2] }, { scope: "a", full: true })).toEqual({ plots: 0 })
      expect(yield* current(other)).toEqual(ids(1, 2, 3))
    })
  )

  it.effect("a format 4 warehouse (members under a primary key) is rebuilt without the key, members kept, and closes by them", () =>
    Effect.gen(function* () {
      const file = nodePath.join(tempDir(), "w4.duckdb")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* makeWarehouse({ path: file })
          yield* wh.ensureTables([history])
          yield* pull(wh, "r1", T[0]!, { A: [1, 2, 3], B: [4] }, { scope: "a", full: true })
        })
      )
      // what format 4 wrote: the same members under the primary key it had
      yield* onFile(
        file,
        `CREATE TABLE _m4 (pipeline VARCHAR NOT NULL, scope VARCHAR NOT NULL, slice VARCHAR NOT NULL,
           table_name VARCHAR NOT NULL, "key" VARCHAR NOT NULL, PRIMARY KEY (pipeline, scope, slice, table_name, "key"))`,
        `INSERT INTO _m4 SELECT * FROM _history_members`,
        `DROP TABLE _history_members`,
        `ALTER TABLE _m4 RENAME TO _history_members`,
        `UPDATE _meta SET value = '4' WHERE key = 'format_version'`
      )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* makeWarehouse({ path: file })
          expect(yield* wh.query(`SELECT value FROM _meta WHERE key = 'format_version'`)).toEqual([{ value: String(FORMAT_VERSION) }])
          expect(
            yield* wh.query(
              `SELECT count(*)::INTEGER AS n FROM duckdb_constraints() WHERE table_name = '_history_members' AND constraint_type = 'PRIMARY KEY'`
            )
          ).toEqual([{ n: 0 }])
          expect(yield* wh.query(`SELECT count(*)::INTEGER AS n FROM _history_members`)).toEqual([{ n: 4 }])
          // the members written under format 4 are what the next full pull of A closes by
          expect(yield* pull(wh, "r2", T[1]!, { A: [1] }, { scope: "a", full: true })).toEqual({ plots: 2 })
          expect(yield* current(wh)).toEqual(ids(1, 4))
        })
      )
    })
  )
})
