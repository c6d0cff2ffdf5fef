/**
 * Throughput of the page path: 100k rows x 25 columns through `commitPage` (appender into the
 * staging table, then one upsert), against a fresh warehouse file. Not a test; run with
 * `npx tsx test/load/measureThroughput.ts [rows]`. Wall time depends on what else the machine runs;
 * the CPU figure (all DuckDB threads included) is steadier.
 */
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { Row, TableSpec } from "../../src/normalize/Table.js"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { page, tempDir } from "./fixtures.js"

const n = Number(process.argv[2] ?? 100_000)
const kinds = ["VARCHAR", "DOUBLE", "BIGINT", "INTEGER", "BOOLEAN"] as const
const spec = (disposition: "merge" | "append"): TableSpec => ({
  name: `wide_${disposition}`,
  columns: [{ name: "id", type: "VARCHAR" }, ...Array.from({ length: 24 }, (_, i) => ({ name: `c${i}`, type: kinds[i % kinds.length]! }))],
  primaryKey: disposition === "merge" ? ["id"] : [],
  disposition
})
const rows: Array<Row> = Array.from({ length: n }, (_, r) => {
  const row: Row = { id: `id_${r}` }
  for (let i = 0; i < 24; i++) {
    const k = kinds[i % kinds.length]
    row[`c${i}`] = k === "VARCHAR" ? `v${r}_${i}` : k === "DOUBLE" ? r * 1.5 + i : k === "BOOLEAN" ? (r + i) % 2 === 0 : r + i
  }
  return row
})

const program = Effect.gen(function* () {
  const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "w.duckdb") })
  for (const d of ["merge", "append"] as const) {
    const s = spec(d)
    yield* wh.ensureTables([s])
    yield* wh.startRun({ runId: `run_${d}`, pipeline: "bench" })
    for (const attempt of ["cold", "warm 1", "warm 2"]) {
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      yield* wh.commitPage(page(`run_${d}`, { [s.name]: rows }, { key: "k", value: attempt }))
      const ms = performance.now() - t0
      const cpu = process.cpuUsage(c0)
      console.log(
        `${d} ${attempt}: ${n} rows x 25 columns in ${ms.toFixed(0)} ms wall (${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, all threads) = ${Math.round(n / (ms / 1000)).toLocaleString("en")} rows/s`
      )
    }
  }
  // Pages of a realistic size: the fixed cost per transaction dominates.
  const small = spec("merge")
  yield* wh.startRun({ runId: "run_small", pipeline: "bench" })
  const t0 = performance.now()
  for (let p = 0; p < 200; p++) {
    yield* wh.commitPage(page("run_small", { [small.name]: rows.slice(p * 500, p * 500 + 500) }, { key: "k", value: p }))
  }
  const ms = performance.now() - t0
  console.log(
    `merge, 200 pages of 500 rows: ${ms.toFixed(0)} ms = ${(ms / 200).toFixed(1)} ms a page, ${Math.round(100_000 / (ms / 1000)).toLocaleString("en")} rows/s`
  )
})

Effect.runPromise(Effect.scoped(program)).catch((e) => {
  console.error(e)
  process.exit(1)
})
