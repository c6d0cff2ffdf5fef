/**
 * The lean landing path (issue 18): staging tables hold one group at a time (DuckDB's memory stays
 * flat however many groups land), "last per key" is right whether or not a group repeats a key,
 * and DuckDB lands with one thread and the landing limit (checkpointing between groups itself) unless
 * the settings say otherwise.
 */
import { describe, expect, it } from "@effect/vitest"
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { rowsOf, STAGE_DB } from "../../src/load/Database.js"
import { shownBytes } from "../../src/load/LandingSettings.js"
import { LANDING_MEMORY_LIMIT, makeWarehouse, WAREHOUSE_THREADS } from "../../src/load/Warehouse.js"
import { links, page, plotRow, plots, tempDir } from "./fixtures.js"

const open = (dir: string, threads?: number) =>
  makeWarehouse({ path: nodePath.join(dir, "warehouse.duckdb"), rawDir: false, ...(threads ? { threads } : {}) })

/** DuckDB's display of a memory size ("91.5 MiB", "18.8 GiB") in bytes. */
const bytesOf = (shown: string) => {
  const [, n, unit] = /^([\d.]+) (\w+)$/.exec(shown)!
  return Number(n) * 2 ** (10 * ["bytes", "KiB", "MiB", "GiB", "TiB"].indexOf(unit!))
}

describe("group landing", () => {
  it.scoped("staging holds one group at a time: each group's tables are dropped once it lands, and the staging memory with them", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "r", pipeline: "plots" })
      // what staging still holds: its tables, and (after a checkpoint has written the landed rows
      // to the file) DuckDB's memory for in-memory tables
      const staged = wh.withConnection("probe", async (conn) => {
        await conn.run("CHECKPOINT")
        const r = await rowsOf(
          conn,
          `SELECT (SELECT count(*) FROM duckdb_tables() WHERE database_name = '${STAGE_DB}')::INTEGER AS tables,
             (SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE')::INTEGER AS memory`
        )
        return r[0]!
      })
      const group = (g: number) =>
        wh.commitPages(
          Array.from({ length: 4 }, (_, p) =>
            page(
              "r",
              { plots: Array.from({ length: 1500 }, (_, i) => plotRow(g * 10_000 + p * 1500 + i)) },
              { key: "ES", value: g * 4 + p }
            )
          )
        )
      for (let g = 0; g < 3; g++) yield* group(g)
      const early = yield* staged
      for (let g = 3; g < 24; g++) yield* group(g)
      expect(yield* wh.tableCounts()).toEqual({ plots: 24 * 6000 })
      // 24 groups staged 144,000 rows; nothing of them is left staged
      expect(yield* staged).toEqual({ tables: 0, memory: 0 })
      expect(early).toEqual({ tables: 0, memory: 0 })
    })
  )

  it.scoped("a group's rows are staged as its pages come, while the group before lands", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots, links])
      yield* wh.startRun({ runId: "r", pipeline: "plots" })
      const stage = wh.openStage("r")
      const rows = new Map([["plots", [plotRow(1), plotRow(2)]]])
      yield* Effect.promise(() => stage.prepare(["plots"]))
      expect(stage.has(["plots"])).toBe(true)
      expect(stage.has(["plots", "plot_agency_links"])).toBe(false)
      const counts = stage.append(rows)
      expect(counts).toEqual({ plots: 2 })
      const later = wh.openStage("r")
      yield* Effect.promise(() => later.prepare(["plots"]))
      later.append(new Map([["plots", [plotRow(2, { area_m2: 99 }), plotRow(3)]]]))
      const staged = (value: number, counts: Record<string, number>) => {
        const { rows: _, ...meta } = page("r", {}, { key: "ES", value })
        return { ...meta, counts }
      }
      expect(yield* wh.commitStaged(stage, [staged(1, counts)])).toEqual([{ plots: 2 }])
      // the later group is still staged, untouched by the commit of the first
      const left = yield* wh.query(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = '${STAGE_DB}'`)
      expect(left[0]!.n).toBe(1)
      yield* wh.commitStaged(later, [staged(2, { plots: 2 })])
      expect(yield* wh.query(`SELECT id, area_m2 FROM plots ORDER BY id`)).toEqual([
        { id: "plot_1", area_m2: plotRow(1).area_m2 },
        { id: "plot_2", area_m2: 99 },
        { id: "plot_3", area_m2: plotRow(3).area_m2 }
      ])
    })
  )

  it.scoped("a bad value fails its group's commit, naming the page's row and the column; the group's tables are dropped", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "r", pipeline: "plots" })
      const e = yield* Effect.flip(
        wh.commitPages([
          page("r", { plots: [plotRow(1)] }, { key: "ES", value: 1 }),
          page("r", { plots: [plotRow(2), plotRow(3, { area_m2: "x" }), plotRow(4)] }, { key: "ES", value: 2 })
        ])
      )
      expect(e.reason).toBe("BadValue")
      expect(e.detail).toMatch(/Table plots, row 1 of the page, column area_m2/)
      expect(yield* wh.tableCounts()).toEqual({ plots: 0 })
      const left = yield* wh.query(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = '${STAGE_DB}'`)
      expect(left[0]!.n).toBe(0)
      yield* wh.commitPages([page("r", { plots: [plotRow(5)] }, { key: "ES", value: 3 })])
      expect(yield* wh.tableCounts()).toEqual({ plots: 1 })
    })
  )

  it.scoped("the last row per key wins across the pages of one group, and rows without repeats all land", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      yield* wh.ensureTables([plots, links])
      yield* wh.startRun({ runId: "r", pipeline: "plots" })
      // no key twice in this group: every row lands as it is
      yield* wh.commitPages([
        page(
          "r",
          { plots: [plotRow(1), plotRow(2)], plot_agency_links: [{ plot_id: "plot_1", agency: "a", since: "2026-01-01" }] },
          { key: "ES", value: 1 }
        ),
        page(
          "r",
          { plots: [plotRow(3)], plot_agency_links: [{ plot_id: "plot_1", agency: "b", since: "2026-01-02" }] },
          { key: "ES", value: 2 }
        )
      ])
      // the same keys on two pages of one group (and 1 against "1"-like doubt on a composite key): the later page wins
      yield* wh.commitPages([
        page(
          "r",
          { plots: [plotRow(1, { price_eur: 7 })], plot_agency_links: [{ plot_id: "plot_1", agency: "a", since: "2026-02-01" }] },
          { key: "ES", value: 3 }
        ),
        page(
          "r",
          {
            plots: [plotRow(1, { price_eur: 9 }), plotRow(4)],
            plot_agency_links: [{ plot_id: "plot_1", agency: "a", since: "2026-03-01" }]
          },
          { key: "ES", value: 4 }
        )
      ])
      const rows = yield* wh.query(`SELECT id, price_eur FROM plots ORDER BY id`)
      expect(rows).toEqual([
        { id: "plot_1", price_eur: 9 },
        { id: "plot_2", price_eur: plotRow(2).price_eur },
        { id: "plot_3", price_eur: plotRow(3).price_eur },
        { id: "plot_4", price_eur: plotRow(4).price_eur }
      ])
      const linked = yield* wh.query(`SELECT agency, strftime(since, '%Y-%m-%d') AS since FROM plot_agency_links ORDER BY agency`)
      expect(linked).toEqual([
        { agency: "a", since: "2026-03-01" },
        { agency: "b", since: "2026-01-02" }
      ])
    })
  )

  it.scoped("DuckDB lands with the landing settings while a run is open and gets its own defaults back when it finishes", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      const settings = Effect.map(
        wh.query(
          `SELECT current_setting('threads')::INTEGER AS threads, current_setting('memory_limit') AS memory,
             current_setting('checkpoint_threshold') AS checkpoint`
        ),
        (r) => r[0]!
      )
      const own = yield* settings
      // one thread from the open on (Database.ts), not a landing setting
      expect(own.threads).toBe(WAREHOUSE_THREADS)
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "a", pipeline: "plots" })
      yield* wh.startRun({ runId: "b", pipeline: "plots" })
      const during = yield* settings
      expect(during.threads).toBe(WAREHOUSE_THREADS)
      // DuckDB shows the limit in MiB (of 2^20 bytes) with one decimal: 80MB is 76.2 MiB
      const mib = (Number(/^(\d+)MB$/.exec(LANDING_MEMORY_LIMIT)![1]) * 1e6) / 2 ** 20
      expect(during.memory).toMatch(/^\d+\.\d MiB$/)
      expect(Math.abs(parseFloat(String(during.memory)) - mib)).toBeLessThan(0.1)
      // DuckDB's automatic checkpoint is out of reach: the toolkit checkpoints between groups (below)
      expect(bytesOf(String(during.checkpoint))).toBeGreaterThan(2 ** 40)
      yield* wh.finishRun("a", "done")
      expect(yield* settings).toEqual(during) // b still lands
      yield* wh.finishRun("b", "failed", "x")
      const after = yield* settings
      expect(after.threads).toBe(own.threads)
      // set back from the text DuckDB shows (one decimal), so within a rounding of it
      expect(bytesOf(String(after.memory)) / bytesOf(String(own.memory))).toBeCloseTo(1, 1)
      expect(bytesOf(String(after.checkpoint)) / bytesOf(String(own.checkpoint))).toBeCloseTo(1, 1)
    })
  )

  it.scoped(
    "while landing, the toolkit checkpoints after a group once the WAL passes the threshold (not DuckDB inside a commit), and the landing limit holds again after",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const file = nodePath.join(dir, "warehouse.duckdb")
        const wh = yield* makeWarehouse({ path: file, rawDir: false, checkpointThreshold: "256KB" })
        const walBytes = () => fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0
        yield* wh.ensureTables([plots])
        yield* wh.startRun({ runId: "r", pipeline: "plots" })
        const limit = Effect.map(wh.query(`SELECT current_setting('memory_limit') AS memory`), (r) => String(r[0]!.memory))
        const during = yield* limit
        // DuckDB's own checkpoint is out of reach: only the toolkit's can keep the WAL short
        const [threshold] = yield* wh.query(`SELECT current_setting('checkpoint_threshold') AS t`)
        expect(shownBytes(String(threshold!.t))).toBeGreaterThan(2 ** 40)
        const group = (g: number, n: number) =>
          wh.commitPages([page("r", { plots: Array.from({ length: n }, (_, i) => plotRow(g * 10_000 + i)) }, { key: "ES", value: g })])
        // a small group leaves its rows in the WAL
        yield* group(0, 10)
        const small = walBytes()
        expect(small).toBeGreaterThan(0)
        expect(small).toBeLessThan(256_000)
        // groups of ~180KB of WAL each: past the threshold every second group or so, and checkpointed then
        const sizes: Array<number> = []
        for (let g = 1; g <= 6; g++) {
          yield* group(g, 3000)
          sizes.push(walBytes())
        }
        const shrank = sizes.filter((s, i) => i > 0 && s < sizes[i - 1]!).length
        expect(shrank, `WAL sizes after each group: ${sizes.join(", ")}`).toBeGreaterThanOrEqual(2)
        expect(Math.max(...sizes)).toBeLessThan(2 * 256_000)
        expect(yield* wh.tableCounts()).toEqual({ plots: 10 + 6 * 3000 })
        // the checkpoint's raised limit is not left behind
        expect(yield* limit).toBe(during)
        yield* wh.finishRun("r", "done")
      })
  )

  it("a size as DuckDB shows it is its bytes, whatever spelling set it", async () => {
    const db = await DuckDBInstance.create(":memory:")
    const conn = await db.connect()
    const shown = async (set: string) => {
      await conn.run(`SET checkpoint_threshold = '${set}'`)
      return shownBytes(String((await rowsOf(conn, `SELECT current_setting('checkpoint_threshold') AS t`))[0]!.t))!
    }
    try {
      for (const set of ["64MB", "64M", "64 megabytes", "64000000 bytes"]) expect((await shown(set)) / 64e6, set).toBeCloseTo(1, 2)
      expect((await shown("1GiB")) / 2 ** 30).toBeCloseTo(1, 2)
      expect(shownBytes("256KB")).toBeUndefined()
    } finally {
      conn.closeSync()
      db.closeSync()
    }
  })

  it.scoped("after the runs DuckDB may use more than the landing limit again", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir())
      // nothing may spill to disk: the limit DuckDB's buffer manager enforces is what counts
      yield* wh.withConnection("no temp directory", (conn) => conn.run(`SET temp_directory = ''`))
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "a", pipeline: "plots" })
      yield* wh.finishRun("a", "done")
      // ~250 MB in memory, more than twice the landing limit (DuckDB's RESET left that limit in force)
      yield* wh.withConnection("a large table", (conn) =>
        conn.run(`CREATE TEMP TABLE large AS SELECT i, repeat('x', 100) || i AS s FROM range(2000000) r(i)`)
      )
      const [n] = yield* wh.withConnection("count", (conn) => rowsOf(conn, `SELECT count(*)::INTEGER AS n FROM temp.main.large`))
      expect(n!.n).toBe(2_000_000)
    })
  )

  it.scoped("threads given in the settings hold for runs too", () =>
    Effect.gen(function* () {
      const wh = yield* open(tempDir(), 3)
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "a", pipeline: "plots" })
      expect((yield* wh.query(`SELECT current_setting('threads')::INTEGER AS t`))[0]!.t).toBe(3)
    })
  )
})
