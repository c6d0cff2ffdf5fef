import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as zlib from "node:zlib"
import { mergeWarehouses } from "../../src/load/MergeWarehouses.js"
import { makeRawArchive } from "../../src/load/RawArchive.js"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { agencies, page, plotRow, plots, snapshots, tempDir } from "./fixtures.js"

describe("raw archive", () => {
  it.scoped("each page's body is archived gzip-compressed before the commit and read back by run", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const wh = yield* makeWarehouse({ path: nodePath.join(dir, "warehouse.duckdb") })
      expect(wh.rawRoot).toBe(nodePath.join(dir, "raw"))
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "r1", pipeline: "plots" })
      const bodies = [JSON.stringify({ results: [1, 2] }), JSON.stringify({ results: [3] })]
      for (const [i, body] of bodies.entries()) {
        // the second as its UTF-8 bytes, as the runner hands it over: archived the same
        const raw = { pageKey: `ES|${i}`, body: i === 1 ? Buffer.from(body, "utf8") : body }
        yield* wh.commitPage(page("r1", { plots: [plotRow(i)] }, { key: "ES", value: i }, { raw }))
      }
      // A page whose commit fails still leaves its body on disk, but not in _raw_pages.
      yield* Effect.flip(
        wh.commitPage(
          page("r1", { plots: [plotRow(9, { area_m2: "x" })] }, { key: "ES", value: 9 }, { raw: { pageKey: "ES|bad", body: "{}" } })
        )
      )
      const archive = makeRawArchive(wh.rawRoot!)
      const files = yield* archive.list("plots", "r1")
      expect(files.map((f) => f.seq)).toEqual([1, 2, 3])
      expect(fs.readFileSync(files[0]!.path).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]))
      expect(yield* Effect.forEach(files.slice(0, 2), archive.read)).toEqual(bodies)
      const committed = yield* wh.rawPages("r1")
      expect(committed.map((p) => [p.seq, p.pageKey])).toEqual([
        [1, "ES|0"],
        [2, "ES|1"]
      ])
      expect(yield* archive.read(committed[1]!.path)).toBe(bodies[1])
      expect(yield* archive.runs("plots")).toEqual(["r1"])
      expect(yield* archive.list("plots", "none")).toEqual([])
      expect((yield* Effect.flip(archive.write("../escape", "r", 1, "x"))).reason).toBe("Io")
    })
  )

  it.scoped("a group commit's bodies go into one file, a gzip member a page; files of one page each (older archives) read as before", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const wh = yield* makeWarehouse({ path: nodePath.join(dir, "warehouse.duckdb") })
      yield* wh.ensureTables([plots])
      yield* wh.startRun({ runId: "r1", pipeline: "plots" })
      const archive = makeRawArchive(wh.rawRoot!)
      // a one-page commit: its file holds one page and `_raw_pages` names the file
      const old = JSON.stringify({ results: ["old"] })
      yield* wh.commitPage(page("r1", { plots: [plotRow(0)] }, { key: "ES", value: 0 }, { raw: { pageKey: "ES|0", body: old } }))
      const bodies = [1, 2, 3].map((i) => JSON.stringify({ results: Array.from({ length: 50 * i }, (_, k) => ({ id: `p${i}-${k}` })) }))
      yield* wh.commitPages(
        bodies.map((body, i) =>
          page("r1", { plots: [plotRow(i + 1)] }, { key: "ES", value: i + 1 }, { raw: { pageKey: `ES|${i + 1}`, body } })
        )
      )
      const files = fs.readdirSync(nodePath.join(wh.rawRoot!, "plots", "r1")).sort()
      expect(files).toEqual(["000001-000001.json.gz", "000002-000004.json.gz"])
      const committed = yield* wh.rawPages("r1")
      expect(committed.map((p) => p.seq)).toEqual([1, 2, 3, 4])
      expect(yield* Effect.forEach(committed, (p) => archive.read(p.path))).toEqual([old, ...bodies])
      expect(yield* Effect.forEach(yield* archive.list("plots", "r1"), archive.read)).toEqual([old, ...bodies])
      expect((yield* archive.list("plots", "r1")).map((p) => p.seq)).toEqual([1, 2, 3, 4])
      // the group file is the pages' bodies one after another for zcat
      const whole = zlib.gunzipSync(fs.readFileSync(nodePath.join(wh.rawRoot!, "plots", "r1", files[1]!))).toString("utf8")
      expect(whole).toBe(bodies.join(""))
      // a file a page, as archives were written before: listed and read
      yield* archive.write("plots", "r0", 1, old)
      expect(yield* Effect.forEach(yield* archive.list("plots", "r0"), archive.read)).toEqual([old])
    })
  )
})

describe("mergeWarehouses", () => {
  it.scoped("folds shards into one warehouse honouring primary keys and concatenating bookkeeping", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const shard = (i: number, ids: ReadonlyArray<number>) =>
        Effect.scoped(
          Effect.gen(function* () {
            const wh = yield* makeWarehouse({ path: nodePath.join(dir, `shard${i}.duckdb`), rawDir: false })
            yield* wh.ensureTables([plots, snapshots, agencies])
            yield* wh.startRun({ runId: `run${i}`, pipeline: "plots" })
            yield* wh.commitPage(
              page(
                `run${i}`,
                {
                  plots: ids.map((n) => plotRow(n, { price_eur: i * 1000 + n })),
                  price_snapshots: ids.map((n) => ({ plot_id: `plot_${n}`, price_eur: n })),
                  agencies: [{ agency_id: "a", name: `from shard ${i}` }]
                },
                { key: `slice${i}`, value: { offset: ids.length }, done: true },
                {
                  ledger: [{ requestId: `q${i}`, operation: "plots.search", units: 2, at: "2026-11-21T10:00:00Z" }],
                  slice: { key: `slice${i}`, declared: ids.length, received: ids.length, landed: ids.length, rejected: 0, done: true }
                }
              )
            )
            // a run's calls and unknown keys, as the runner's group commit records them
            yield* wh.withConnection("calls", async (conn) => {
              await conn.run(
                `INSERT INTO _calls VALUES ('run${i}', 'plots', 1, 'slice${i}', 0, 'plots.search', 'q${i}', 1, 0, 2, TIMESTAMP '2026-11-21 10:00:00', ${40 + i})`
              )
              await conn.run(
                `INSERT INTO _missing VALUES ('run${i}', 'plots', 'gone${i}', 404, NULL, 'not found', TIMESTAMP '2026-11-21 10:00:00')`
              )
            })
            yield* wh.finishRun(`run${i}`, "done")
          })
        )
      yield* shard(0, [1, 2, 3])
      yield* shard(1, [3, 4])
      const target = nodePath.join(dir, "merged.duckdb")
      const sources = [nodePath.join(dir, "shard0.duckdb"), nodePath.join(dir, "shard1.duckdb")]
      const summary = yield* mergeWarehouses(target, sources)
      expect(summary.tables).toEqual({ agencies: 1, plots: 4, price_snapshots: 5 })
      // Merging again changes nothing: keys replace, append rows come once per run, ids are kept.
      expect((yield* mergeWarehouses(target, sources)).tables).toEqual(summary.tables)
      const wh = yield* makeWarehouse({ path: target })
      expect(yield* wh.query(`SELECT id, price_eur FROM plots ORDER BY id`)).toEqual([
        { id: "plot_1", price_eur: 1 },
        { id: "plot_2", price_eur: 2 },
        { id: "plot_3", price_eur: 1003 },
        { id: "plot_4", price_eur: 1004 }
      ])
      expect(yield* wh.query(`SELECT name FROM agencies`)).toEqual([{ name: "from shard 1" }])
      expect((yield* wh.runs(10)).map((r) => r.runId).sort()).toEqual(["run0", "run1"])
      expect(yield* wh.unitsSpentSince("2026-11-21T00:00:00Z")).toBe(4)
      expect((yield* wh.checkpoints("plots")).map((c) => c.key)).toEqual(["slice0", "slice1"])
      // each run's slices, unknown keys and calls came along (what status, report and trace read), once
      expect(yield* wh.query(`SELECT run_id, slice, declared, landed, done FROM _slices ORDER BY run_id`)).toEqual([
        { run_id: "run0", slice: "slice0", declared: 3, landed: 3, done: true },
        { run_id: "run1", slice: "slice1", declared: 2, landed: 2, done: true }
      ])
      expect(yield* wh.query(`SELECT run_id, "key" FROM _missing ORDER BY run_id`)).toEqual([
        { run_id: "run0", key: "gone0" },
        { run_id: "run1", key: "gone1" }
      ])
      expect(yield* wh.query(`SELECT run_id, slice, ms FROM _calls ORDER BY run_id`)).toEqual([
        { run_id: "run0", slice: "slice0", ms: 40 },
        { run_id: "run1", slice: "slice1", ms: 41 }
      ])
      const err = yield* Effect.flip(mergeWarehouses(nodePath.join(dir, "other.duckdb"), [target]))
      expect(err.reason).toBe("Locked")
    })
  )
})
