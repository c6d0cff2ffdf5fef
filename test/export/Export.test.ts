import { describe, expect, it } from "@effect/vitest"
import { tableFromIPC } from "apache-arrow"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { replaceAtomically } from "../../src/export/AtomicReplace.js"
import { exportArrow, queryArrow } from "../../src/export/ArrowExport.js"
import { exportParquet } from "../../src/export/ParquetExport.js"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { WarehouseError } from "../../src/load/WarehouseError.js"
import { page, plotRow, plots, snapshots, tempDir } from "../load/fixtures.js"
import { exportedNames } from "../support/exportedNames.js"

const columns = plots.columns.map((c) => c.name)

/** Row count and an order-independent checksum over the plot columns, computed by DuckDB. */
const checksumSql = (from: string) => `SELECT count(*) AS n, sum(hash(${columns.map((c) => `"${c}"`).join(", ")})) AS h FROM ${from}`

const loaded = Effect.gen(function* () {
  const dir = tempDir()
  const wh = yield* makeWarehouse({ path: nodePath.join(dir, "warehouse.duckdb") })
  yield* wh.ensureTables([plots, snapshots])
  yield* wh.startRun({ runId: "r1", pipeline: "plots" })
  const rows = Array.from({ length: 5000 }, (_, i) => plotRow(i, i % 7 === 0 ? { price_eur: null, views: null, listed_on: null } : {}))
  yield* wh.commitPage(
    page(
      "r1",
      { plots: rows, price_snapshots: rows.slice(0, 10).map((r) => ({ plot_id: r.id!, price_eur: r.price_eur! })) },
      { key: "k", value: 1 }
    )
  )
  return { dir, wh, out: nodePath.join(dir, "out") }
})

describe("exports", () => {
  it.scoped("Parquet read back with read_parquet equals the table, hive-partitioned by the spec", () =>
    Effect.gen(function* () {
      const { out, wh } = yield* loaded
      const exported = yield* exportParquet(wh, { outDir: out })
      expect(exported.map((e) => [e.table, e.rows])).toEqual([
        ["plots", 5000],
        ["price_snapshots", 10]
      ])
      const plotsDir = nodePath.join(out, "parquet", "plots")
      expect(fs.readdirSync(plotsDir).sort()).toEqual(["country=ES", "country=PT"])
      const glob = `'${plotsDir}/**/*.parquet'`
      const [original] = yield* wh.query(checksumSql("plots"))
      const [back] = yield* wh.query(checksumSql(`read_parquet(${glob}, hive_partitioning = true, hive_types = {'country': VARCHAR})`))
      expect(back).toEqual(original)
      expect(original!.n).toBe(5000)
      // The partition column lives in the folder names, not in the files.
      const inFile = yield* wh.query(`SELECT * FROM read_parquet(${glob}, hive_partitioning = false) LIMIT 1`)
      expect(Object.keys(inFile[0]!)).not.toContain("country")
      // Append tables partition by the extraction day.
      const snapDays = fs.readdirSync(nodePath.join(out, "parquet", "price_snapshots"))
      expect(snapDays).toHaveLength(1)
      expect(snapDays[0]).toMatch(/^_extracted_date=\d{4}-\d{2}-\d{2}$/)
      // Exporting again replaces the folder and leaves no temporary siblings behind.
      yield* exportParquet(wh, { outDir: out, tables: ["plots"] })
      expect(exportedNames(nodePath.join(out, "parquet"))).toEqual(["plots", "price_snapshots"])
      const unknown = yield* Effect.flip(exportParquet(wh, { outDir: out, tables: ["nope"] }))
      expect(unknown._tag).toBe("InvalidInput")
      expect(unknown.message).toMatch(/^export: no table nope is declared in this warehouse; tables: plots, price_snapshots$/)
      const typo = yield* Effect.flip(exportParquet(wh, { outDir: out, tables: ["plotz"] }))
      expect(typo.message).toMatch(/^export: no table plotz is declared in this warehouse; did you mean "plots"\?; tables: /)
    })
  )

  it.scoped("an export interrupted before the rename leaves the previous files intact", () =>
    Effect.gen(function* () {
      const { out, wh } = yield* loaded
      yield* exportParquet(wh, { outDir: out, tables: ["plots"] })
      const dir = nodePath.join(out, "parquet", "plots")
      const before = fs.readdirSync(dir, { recursive: true }).map(String).sort()
      const failing = replaceAtomically(dir, (tmp) =>
        Effect.gen(function* () {
          fs.mkdirSync(tmp, { recursive: true })
          fs.writeFileSync(nodePath.join(tmp, "half.parquet"), "partial")
          return yield* Effect.fail(new WarehouseError({ reason: "Io", detail: "simulated crash before rename" }))
        })
      )
      const err = yield* Effect.flip(failing)
      expect(err.detail).toBe("simulated crash before rename")
      expect(fs.readdirSync(dir, { recursive: true }).map(String).sort()).toEqual(before)
      expect(exportedNames(nodePath.join(out, "parquet"))).toEqual(["plots"])
      const [back] = yield* wh.query(`SELECT count(*) AS n FROM read_parquet('${dir}/**/*.parquet')`)
      expect(back!.n).toBe(5000)
    })
  )

  it.scoped("Arrow IPC read back with tableFromIPC equals the table", () =>
    Effect.gen(function* () {
      const { out, wh } = yield* loaded
      const exported = yield* exportArrow(wh, { outDir: out, tables: ["plots"] })
      expect(exported[0]!.rows).toBe(5000)
      const table = tableFromIPC(fs.readFileSync(nodePath.join(out, "arrow", "plots.arrow")))
      expect(table.numRows).toBe(5000)
      expect(table.schema.fields.map((f) => [f.name, String(f.type)])).toEqual([
        ["id", "Utf8"],
        ["country", "Utf8"],
        ["price_eur", "Float64"],
        ["area_m2", "Int32"],
        ["listed_on", "Date32<DAY>"],
        ["updated_at", "Timestamp<MICROSECOND>"],
        ["for_sale", "Bool"],
        ["extra", "Utf8"],
        ["views", "Int64"]
      ])
      const expected = yield* wh.query(`SELECT * FROM plots`)
      const normal = (v: unknown) => (v instanceof Date ? v.getTime() : typeof v === "bigint" ? Number(v) : v)
      const got = table.toArray().map((r) => Object.fromEntries(columns.map((c) => [c, normal(r[c])])))
      expect(got).toEqual(expected.map((r) => Object.fromEntries(columns.map((c) => [c, normal(r[c])]))))
      // Arbitrary queries too, across several DuckDB chunks.
      const q = yield* queryArrow(wh, `SELECT country, count(*) AS n, sum(price_eur) AS total FROM plots GROUP BY country ORDER BY country`)
      expect(q.toArray().map((r) => [r.country, Number(r.n)])).toEqual([
        ["ES", 2500],
        ["PT", 2500]
      ])
    })
  )
})
