/**
 * History tables against real DuckDB files: versions open and close by content hash, unchanged
 * records are not written, replays are idempotent, schema evolution, the migration of a merge
 * table, shard merges and exports of the current rows, and warehouses whose hashes are of an older
 * recipe (`v1`, or another DuckDB version's `v2`) landing the same records without new versions.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { exportParquet } from "../../src/export/ParquetExport.js"
import { mergeWarehouses } from "../../src/load/MergeWarehouses.js"
import { makeWarehouse, type WarehouseApi } from "../../src/load/Warehouse.js"
import type { Row, TableSpec } from "../../src/normalize/Table.js"
import { onFile, page, plotRow, plots, tempDir } from "./fixtures.js"
import { exportedNames } from "../support/exportedNames.js"
import { hashedColumns } from "../../src/load/HistoryTable.js"
import { ident, literal } from "../../src/load/Database.js"

/** The fixtures' plots as a history table, with a status, an extraction time and a volatile counter. */
const history: TableSpec = {
  ...plots,
  disposition: "history",
  columns: [
    ...plots.columns,
    { name: "status", type: "VARCHAR" },
    { name: "days_on_market", type: "INTEGER", volatile: true },
    { name: "extracted_at", type: "TIMESTAMP" }
  ]
}

const T = ["2026-11-01T02:00:00.000Z", "2026-11-02T02:00:00.000Z", "2026-11-03T02:00:00.000Z", "2026-11-04T02:00:00.000Z"] as const

/** Plot `i` as seen by a run at `at` (days on market and extraction time tick; the content does not). */
const seen = (i: number, at: string, over: Partial<Row> = {}): Row =>
  plotRow(i, { status: "active", days_on_market: Number(at.slice(8, 10)), extracted_at: at, ...over })

/** Lands `rows` as one page of run `runId` extracted at `at`. */
const land = (wh: WarehouseApi, runId: string, at: string, rows: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    yield* wh.startRun({ runId, pipeline: "plots" })
    yield* wh.commitPage(page(runId, { plots: rows }, { key: "k", value: runId }, { extractedAt: at }))
  })

const versions = (wh: WarehouseApi, where = "TRUE") =>
  wh.query(
    `SELECT id, price_eur, status, strftime(_valid_from, '%Y-%m-%d') AS valid_from, strftime(_valid_to, '%Y-%m-%d') AS valid_to, _is_current AS current
     FROM plots WHERE ${where} ORDER BY id, _valid_from`
  )

const open = (path?: string) => makeWarehouse({ path: path ?? nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })

/** Runs `sql` on the warehouse file directly (closed by the toolkit first), as another program would. */

/** The `v1` recipe as the toolkit wrote it until issue 33 (frozen here: warehouses still hold it). */
const v1HashSql = (spec: TableSpec) => {
  const pieces = hashedColumns(spec).map(
    (c) => `CASE WHEN ${ident(c)} IS NULL THEN NULL ELSE ${literal(`${c}=`)} || CAST(${ident(c)} AS VARCHAR) END`
  )
  return `md5(concat_ws(chr(31), 'v1'${pieces.map((p) => `, ${p}`).join("")}))`
}

/** Lands plots 1-3 as seen at `at` in a warehouse of its own, closed again; returns its path. */
const landedWarehouse = (at: (typeof T)[number] = T[0]) =>
  Effect.gen(function* () {
    const path = nodePath.join(tempDir(), "warehouse.duckdb")
    yield* Effect.scoped(
      Effect.gen(function* () {
        const wh = yield* open(path)
        yield* wh.ensureTables([history])
        yield* land(wh, "r1", at, [seen(1, at), seen(2, at), seen(3, at)])
      })
    )
    return path
  })

describe("history tables", () => {
  it.scoped("first land, unchanged re-land, a price change, a delisting: versions open and close by content", () =>
    Effect.gen(function* () {
      const wh = yield* open()
      yield* wh.ensureTables([history])
      yield* land(wh, "r1", T[0], [seen(1, T[0]), seen(2, T[0]), seen(3, T[0])])
      expect(yield* versions(wh)).toEqual([
        { id: "plot_1", price_eur: 1010.5, status: "active", valid_from: "2026-11-01", valid_to: null, current: true },
        { id: "plot_2", price_eur: 1021, status: "active", valid_from: "2026-11-01", valid_to: null, current: true },
        { id: "plot_3", price_eur: 1031.5, status: "active", valid_from: "2026-11-01", valid_to: null, current: true }
      ])
      const hashes = yield* wh.query(`SELECT id, _content_hash FROM plots ORDER BY id`)

      // The next night: nothing changed but the extraction time and the days on market.
      yield* land(wh, "r2", T[1], [seen(1, T[1]), seen(2, T[1]), seen(3, T[1])])
      expect(yield* wh.query(`SELECT count(*) AS n, min(_valid_from) = max(_valid_from) AS same FROM plots`)).toEqual([
        { n: 3, same: true }
      ])
      expect(yield* wh.query(`SELECT id, _content_hash FROM plots ORDER BY id`)).toEqual(hashes)
      // the unchanged rows keep what they had (no rewrite)
      expect(yield* wh.query(`SELECT DISTINCT days_on_market AS d, strftime(extracted_at, '%d') AS x FROM plots`)).toEqual([
        { d: 1, x: "01" }
      ])

      // Night 3: plot 2's price is cut, plot 3 is delisted (it stays, with its status), plot 1 unchanged.
      yield* land(wh, "r3", T[2], [seen(1, T[2]), seen(2, T[2], { price_eur: 900 }), seen(3, T[2], { status: "delisted" })])
      expect(yield* versions(wh)).toEqual([
        { id: "plot_1", price_eur: 1010.5, status: "active", valid_from: "2026-11-01", valid_to: null, current: true },
        { id: "plot_2", price_eur: 1021, status: "active", valid_from: "2026-11-01", valid_to: "2026-11-03", current: false },
        { id: "plot_2", price_eur: 900, status: "active", valid_from: "2026-11-03", valid_to: null, current: true },
        { id: "plot_3", price_eur: 1031.5, status: "active", valid_from: "2026-11-01", valid_to: "2026-11-03", current: false },
        { id: "plot_3", price_eur: 1031.5, status: "delisted", valid_from: "2026-11-03", valid_to: null, current: true }
      ])
      // the closed version ends exactly where the new one begins
      expect(
        yield* wh.query(`SELECT count(*) AS n FROM plots a JOIN plots b ON a.id = b.id AND a._valid_to = b._valid_from WHERE b._is_current`)
      ).toEqual([{ n: 2 }])
      // Night 4 does not see plot 1 (a partial read): it is not closed.
      yield* land(wh, "r4", T[3], [seen(2, T[3], { price_eur: 900 })])
      expect(yield* versions(wh, "id = 'plot_1'")).toEqual([
        { id: "plot_1", price_eur: 1010.5, status: "active", valid_from: "2026-11-01", valid_to: null, current: true }
      ])
      // the view: one row per key, the current one, without _valid_to / _is_current
      const current = yield* wh.query(`SELECT * FROM plots_current ORDER BY id`)
      expect(current.map((r) => [r.id, r.price_eur, r.status])).toEqual([
        ["plot_1", 1010.5, "active"],
        ["plot_2", 900, "active"],
        ["plot_3", 1031.5, "delisted"]
      ])
      expect(Object.keys(current[0]!)).toEqual([...history.columns.map((c) => c.name), "_valid_from", "_content_hash"])
      // "Price over time" is one query
      expect(
        yield* wh.query(
          `SELECT price_eur, strftime(_valid_from, '%Y-%m-%d') AS since, strftime(_valid_to, '%Y-%m-%d') AS until FROM plots WHERE id = 'plot_2' ORDER BY _valid_from`
        )
      ).toEqual([
        { price_eur: 1021, since: "2026-11-01", until: "2026-11-03" },
        { price_eur: 900, since: "2026-11-03", until: null }
      ])
    })
  )

  it.scoped("replaying a page is idempotent; a run adds at most one version per key; a stale page writes nothing", () =>
    Effect.gen(function* () {
      const wh = yield* open()
      yield* wh.ensureTables([history])
      yield* land(wh, "r1", T[0], [seen(1, T[0]), seen(2, T[0])])
      yield* land(wh, "r2", T[1], [seen(1, T[1], { price_eur: 800 })])
      const before = yield* wh.query(`SELECT * FROM plots ORDER BY id, _valid_from`)
      // the same page again: in its own run (a journal replay) and in a resumed run extracted later
      yield* wh.commitPage(page("r2", { plots: [seen(1, T[1], { price_eur: 800 })] }, { key: "k", value: 2 }, { extractedAt: T[1] }))
      yield* land(wh, "r3", T[2], [seen(1, T[1], { price_eur: 800 })])
      expect(yield* wh.query(`SELECT * FROM plots ORDER BY id, _valid_from`)).toEqual(before)

      // Two pages of one run change the same key twice: the run's version is updated in place.
      yield* land(wh, "r4", T[3], [seen(2, T[3], { price_eur: 700 })])
      yield* wh.commitPage(page("r4", { plots: [seen(2, T[3], { price_eur: 650 })] }, { key: "k", value: 4 }, { extractedAt: T[3] }))
      expect(yield* versions(wh, "id = 'plot_2'")).toEqual([
        { id: "plot_2", price_eur: 1021, status: "active", valid_from: "2026-11-01", valid_to: "2026-11-04", current: false },
        { id: "plot_2", price_eur: 650, status: "active", valid_from: "2026-11-04", valid_to: null, current: true }
      ])
      // A page extracted before the current version (an older run landing late) changes nothing.
      yield* wh.commitPage(page("r3", { plots: [seen(2, T[2], { price_eur: 1 })] }, { key: "k", value: 3 }, { extractedAt: T[2] }))
      expect((yield* versions(wh, "id = 'plot_2'")).map((v) => v.price_eur)).toEqual([1021, 650])
    })
  )

  it.scoped("schema evolution: a new column changes no version until it holds a value; the view shows it", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* open(path)
          yield* wh.ensureTables([history])
          yield* land(wh, "r1", T[0], [seen(1, T[0]), seen(2, T[0])])
        })
      )
      const grown: TableSpec = { ...history, columns: [...history.columns, { name: "bedrooms", type: "INTEGER" }] }
      const wh = yield* open(path)
      yield* wh.ensureTables([grown])
      yield* land(wh, "r2", T[1], [seen(1, T[1]), seen(2, T[1], { bedrooms: 3 })])
      expect(yield* wh.query(`SELECT id, bedrooms, _is_current AS current FROM plots ORDER BY id, _valid_from`)).toEqual([
        { id: "plot_1", bedrooms: null, current: true },
        { id: "plot_2", bedrooms: null, current: false },
        { id: "plot_2", bedrooms: 3, current: true }
      ])
      expect(yield* wh.query(`SELECT id, bedrooms FROM plots_current ORDER BY id`)).toEqual([
        { id: "plot_1", bedrooms: null },
        { id: "plot_2", bedrooms: 3 }
      ])
      // the loader's columns are its own: a spec cannot declare them, a history table needs a key
      for (const [spec, message] of [
        [{ ...history, columns: [...history.columns, { name: "_is_current", type: "BOOLEAN" as const }] }, /reserved for the loader/],
        [{ ...history, name: "keyless", primaryKey: [] }, /a history table needs a primary key/]
      ] as const) {
        expect((yield* Effect.flip(wh.ensureTables([spec]))).message).toMatch(message)
      }
    })
  )

  it.scoped("a merge table declared history is migrated in place: its rows become the current versions", () =>
    Effect.gen(function* () {
      const wh = yield* open()
      const merged: TableSpec = { ...history, disposition: "merge" }
      yield* wh.ensureTables([merged])
      yield* land(wh, "r1", T[0], [seen(1, T[0]), seen(2, T[0])])
      yield* wh.ensureTables([history])
      expect(yield* versions(wh)).toEqual([
        { id: "plot_1", price_eur: 1010.5, status: "active", valid_from: "2026-11-01", valid_to: null, current: true },
        { id: "plot_2", price_eur: 1021, status: "active", valid_from: "2026-11-01", valid_to: null, current: true }
      ])
      // hashed as a landing would: the same content next night writes nothing, a change one version
      yield* land(wh, "r2", T[1], [seen(1, T[1]), seen(2, T[1], { status: "sold" })])
      expect((yield* versions(wh)).map((v) => [v.id, v.status, v.current])).toEqual([
        ["plot_1", "active", true],
        ["plot_2", "active", false],
        ["plot_2", "sold", true]
      ])
      expect(yield* wh.query(`SELECT disposition FROM _tables WHERE table_name = 'plots'`)).toEqual([{ disposition: "history" }])
      // the key keeps its NOT NULL, the rebuild leaves nothing behind
      expect(yield* wh.query(`SELECT is_nullable FROM duckdb_columns() WHERE table_name = 'plots' AND column_name = 'id'`)).toEqual([
        { is_nullable: false }
      ])
      expect(yield* wh.query(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'plots__history'`)).toEqual([{ n: 0 }])
    })
  )

  it.scoped("merging shards folds versions per key; exports write the current rows, and every version on request", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const target = nodePath.join(dir, "warehouse.duckdb")
      const shard = nodePath.join(dir, "shard.duckdb")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* open(target)
          yield* wh.ensureTables([history])
          yield* land(wh, "r1", T[0], [seen(1, T[0]), seen(2, T[0]), seen(3, T[0])])
        })
      )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* open(shard)
          yield* wh.ensureTables([history])
          // the shard saw plot 1 unchanged, plot 2 at a new price, and plot 4 for the first time
          yield* land(wh, "s1", T[1], [seen(1, T[1]), seen(2, T[1], { price_eur: 999 }), seen(4, T[1])])
        })
      )
      yield* mergeWarehouses(target, [shard])
      yield* mergeWarehouses(target, [shard]) // repeatable
      const wh = yield* open(target)
      expect((yield* versions(wh)).map((v) => [v.id, v.price_eur, v.valid_from, v.valid_to, v.current])).toEqual([
        ["plot_1", 1010.5, "2026-11-01", null, true],
        ["plot_2", 1021, "2026-11-01", "2026-11-02", false],
        ["plot_2", 999, "2026-11-02", null, true],
        ["plot_3", 1031.5, "2026-11-01", null, true],
        ["plot_4", 1042, "2026-11-02", null, true]
      ])
      const out = nodePath.join(dir, "out")
      const exported = yield* exportParquet(wh, { outDir: out })
      expect(exported.map((e) => [e.table, e.rows])).toEqual([["plots", 4]])
      const withHistory = yield* exportParquet(wh, { outDir: out, history: true })
      expect(withHistory.map((e) => [e.table, e.rows])).toEqual([
        ["plots", 4],
        ["plots_history", 5]
      ])
      expect(exportedNames(nodePath.join(out, "parquet"))).toEqual(["plots", "plots_history"])
      const back = yield* wh.query(
        `SELECT count(*) AS n, count(DISTINCT id) AS ids FROM read_parquet('${out}/parquet/plots/**/*.parquet', hive_partitioning = true)`
      )
      expect(back).toEqual([{ n: 4, ids: 4 }])
    })
  )
  it.scoped("a warehouse of v1 hashes lands the same records under v2 without new versions; a change is one version", () =>
    Effect.gen(function* () {
      const path = yield* landedWarehouse()
      // the hashes an older toolkit wrote: md5 without a recipe prefix
      yield* onFile(path, `UPDATE plots SET _content_hash = ${v1HashSql(history)}`)
      const fresh = yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* open(path)
          // landing on the registered table without ensuring it fails the group, writes nothing
          const failed = yield* Effect.flip(land(wh, "r0", T[1], [seen(1, T[1], { price_eur: 1 })]))
          expect(String(failed.message ?? failed)).toMatch(/another recipe/)
          expect(yield* wh.query(`SELECT count(*) AS n FROM plots`)).toEqual([{ n: 3 }])
          return yield* wh.query(`SELECT id, _content_hash AS h FROM plots ORDER BY id`)
        })
      )
      expect(fresh.every((r) => /^[0-9a-f]{32}$/.test(String(r.h)))).toBe(true)
      const wh = yield* open(path)
      // ensuring the table hashes the versions again in the current recipe, before any landing
      yield* wh.ensureTables([history])
      const rehashed = yield* wh.query(`SELECT id, _content_hash AS h FROM plots ORDER BY id`)
      expect(rehashed.every((r) => String(r.h).startsWith("v2/v"))).toBe(true)

      // the same content next night (days on market and extraction time tick): no version, no rewrite of values
      yield* land(wh, "r2", T[1], [seen(1, T[1]), seen(2, T[1]), seen(3, T[1], { price_eur: 500 })])
      expect((yield* versions(wh)).map((v) => [v.id, v.price_eur, v.valid_from, v.valid_to, v.current])).toEqual([
        ["plot_1", 1010.5, "2026-11-01", null, true],
        ["plot_2", 1021, "2026-11-01", null, true],
        ["plot_3", 1031.5, "2026-11-01", "2026-11-02", false],
        ["plot_3", 500, "2026-11-02", null, true]
      ])
      expect(yield* wh.query(`SELECT DISTINCT days_on_market AS d FROM plots WHERE id <> 'plot_3'`)).toEqual([{ d: 1 }])
      // the unchanged versions keep the hash the open gave them
      const after = yield* wh.query(`SELECT id, _is_current AS c, _content_hash AS h FROM plots ORDER BY id, _valid_from`)
      expect(after.filter((r) => r.c === true && r.id !== "plot_3").map((r) => r.h)).toEqual(rehashed.slice(0, 2).map((r) => r.h))
      // the v2 hash is the one a fresh landing writes: a third night changes nothing
      yield* land(wh, "r3", T[2], [seen(1, T[2]), seen(2, T[2]), seen(3, T[2], { price_eur: 500 })])
      expect(yield* wh.query(`SELECT id, _is_current AS c, _content_hash AS h FROM plots ORDER BY id, _valid_from`)).toEqual(after)
      // a change after the re-stamp is one version, as ever
      yield* land(wh, "r4", T[3], [seen(1, T[3], { status: "sold" })])
      expect((yield* versions(wh, "id = 'plot_1'")).map((v) => [v.status, v.valid_to, v.current])).toEqual([
        ["active", "2026-11-04", false],
        ["sold", null, true]
      ])
    })
  )

  it.scoped("v1 hashes and a new nullable column: NULL changes no version, a value does; another DuckDB version's v2 is recomputed", () =>
    Effect.gen(function* () {
      const path = yield* landedWarehouse()
      yield* onFile(
        path,
        `UPDATE plots SET _content_hash = ${v1HashSql(history)} WHERE id <> 'plot_3'`,
        // as if landed under another DuckDB version, whose hash() may differ: same recipe name, other version
        `UPDATE plots SET _content_hash = 'v2/v0.0.0:DEADBEEF' WHERE id = 'plot_3'`
      )
      const grown: TableSpec = { ...history, columns: [...history.columns, { name: "bedrooms", type: "INTEGER" }] }
      const wh = yield* open(path)
      yield* wh.ensureTables([grown])
      yield* land(wh, "r2", T[1], [seen(1, T[1]), seen(2, T[1], { bedrooms: 3 }), seen(3, T[1])])
      expect(yield* wh.query(`SELECT id, bedrooms, _is_current AS current FROM plots ORDER BY id, _valid_from`)).toEqual([
        { id: "plot_1", bedrooms: null, current: true },
        { id: "plot_2", bedrooms: null, current: false },
        { id: "plot_2", bedrooms: 3, current: true },
        { id: "plot_3", bedrooms: null, current: true }
      ])
      expect(yield* wh.query(`SELECT count(*) AS n FROM plots WHERE _is_current AND NOT starts_with(_content_hash, 'v2/v1.')`)).toEqual([
        { n: 0 }
      ])
    })
  )

  it.scoped("merging a shard of v1 hashes into a v2 warehouse folds by content, not by recipe", () =>
    Effect.gen(function* () {
      const target = yield* landedWarehouse(T[0])
      // the shard saw the same records a night later, and hashed them in v1
      const shard = yield* landedWarehouse(T[1])
      yield* onFile(shard, `UPDATE plots SET _content_hash = ${v1HashSql(history)}`)
      yield* mergeWarehouses(target, [shard])
      const wh = yield* open(target)
      expect((yield* versions(wh)).map((v) => [v.id, v.valid_from, v.current])).toEqual([
        ["plot_1", "2026-11-01", true],
        ["plot_2", "2026-11-01", true],
        ["plot_3", "2026-11-01", true]
      ])
    })
  )
  it.scoped("a table with a column named rowid lands by MERGE (DuckDB's row ids are hidden there): versions as ever", () =>
    Effect.gen(function* () {
      const wh = yield* open()
      const withRowid: TableSpec = { ...history, columns: [...history.columns, { name: "rowid", type: "INTEGER" }] }
      yield* wh.ensureTables([withRowid])
      yield* land(wh, "r1", T[0], [seen(1, T[0], { rowid: 7 }), seen(2, T[0], { rowid: 8 })])
      yield* land(wh, "r2", T[1], [seen(1, T[1], { rowid: 7 }), seen(2, T[1], { rowid: 9 })])
      expect((yield* versions(wh)).map((v) => [v.id, v.valid_from, v.current])).toEqual([
        ["plot_1", "2026-11-01", true],
        ["plot_2", "2026-11-01", false],
        ["plot_2", "2026-11-02", true]
      ])
    })
  )
})
