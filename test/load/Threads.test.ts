/**
 * DuckDB's threads (`WAREHOUSE_THREADS`, `duckdb.threads`): a warehouse opened to write runs every
 * statement on one thread from its creation on, so a run lands without changing DuckDB's threads
 * (each change starts or stops DuckDB's worker threads, and DuckDB trims the process's `malloc`
 * arenas then and whenever such a thread idles: `Database.ts`); one opened read-only keeps
 * DuckDB's own; the setting sets both.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as os from "node:os"
import * as nodePath from "node:path"
import { makeWarehouse, WAREHOUSE_THREADS, type WarehouseApi } from "../../src/load/Warehouse.js"
import { page, plotRow, plots, tempDir } from "./fixtures.js"

const threadsOf = (wh: WarehouseApi) => Effect.map(wh.query(`SELECT current_setting('threads')::INTEGER AS n`), (r) => Number(r[0]!.n))

/** A warehouse at `file` with one run landed and finished, DuckDB's query log kept meanwhile. */
const landOneRun = (file: string, threads?: number) =>
  Effect.gen(function* () {
    const wh = yield* makeWarehouse({ path: file, rawDir: false, threads })
    const before = yield* threadsOf(wh)
    yield* wh.ensureTables([plots])
    yield* wh.withConnection("the query log on", (conn) => conn.run("CALL enable_logging('QueryLog')"))
    yield* wh.startRun({ runId: "r", pipeline: "plots" })
    yield* wh.commitPages([page("r", { plots: [plotRow(1), plotRow(2)] }, { key: "ES", value: 1 })])
    const during = yield* threadsOf(wh)
    yield* wh.finishRun("r", "done")
    const after = yield* threadsOf(wh)
    const log = yield* wh.query(`SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp`)
    const setThreads = log.map((r) => String(r.message)).filter((m) => /^\s*SET\s+threads/i.test(m))
    return { before, during, after, setThreads }
  })

describe("DuckDB's threads", () => {
  it.scoped("a warehouse opened to write has one from its creation, and a run lands without setting them", () =>
    Effect.gen(function* () {
      const got = yield* landOneRun(nodePath.join(tempDir(), "warehouse.duckdb"))
      expect(got).toEqual({ before: WAREHOUSE_THREADS, during: WAREHOUSE_THREADS, after: WAREHOUSE_THREADS, setThreads: [] })
    })
  )

  it.scoped("one opened read-only keeps DuckDB's own (one per core)", () =>
    Effect.gen(function* () {
      const file = nodePath.join(tempDir(), "warehouse.duckdb")
      yield* Effect.scoped(landOneRun(file))
      const reader = yield* makeWarehouse({ path: file, rawDir: false, readOnly: true })
      expect(yield* threadsOf(reader)).toBe(os.availableParallelism())
    })
  )

  it.scoped("duckdb.threads sets both, and a run keeps it throughout", () =>
    Effect.gen(function* () {
      const file = nodePath.join(tempDir(), "warehouse.duckdb")
      const got = yield* Effect.scoped(landOneRun(file, 3))
      expect(got).toEqual({ before: 3, during: 3, after: 3, setThreads: [] })
      const reader = yield* makeWarehouse({ path: file, rawDir: false, readOnly: true, threads: 3 })
      expect(yield* threadsOf(reader)).toBe(3)
    })
  )
})
