/**
 * What counts as DuckDB running out of memory (`isOutOfMemory`): a group commit that does is landed
 * again with the landing limit doubled (`LandingSettings.withMemoryToLand`), anything else is not.
 * DuckDB words it two ways: a statement fails with `Out of Memory Error`, a commit with
 * `TransactionContext Error: Failed to commit: could not allocate block ...`, which a 30-day alerts
 * backlog met at a 48MB landing limit (the run paused until the commit's wording was recognised;
 * `CHAOS=full npx vitest run test/cli/backlog.test.ts` with that limit lands it).
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { rowsOf } from "../../src/load/Database.js"
import { makeWarehouse, type WarehouseApi } from "../../src/load/Warehouse.js"
import type { TableSpec } from "../../src/normalize/Table.js"
import { isFatal, isOutOfMemory, sqlError } from "../../src/load/WarehouseError.js"
import { page, plotRow, plots, tempDir } from "./fixtures.js"

/** The error DuckDB (the installed version) gives a statement that does not fit `limit`. */
const statementOutOfMemory = async (limit: string): Promise<unknown> => {
  const db = await DuckDBInstance.create(":memory:", { threads: "1" })
  const conn = await db.connect()
  try {
    await conn.run(`SET memory_limit = '${limit}'`)
    await conn.run(`CREATE TABLE t AS SELECT repeat('x', 100) || i AS a, md5(i::VARCHAR) AS b FROM range(200000) r(i)`)
    return undefined
  } catch (e) {
    return e
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

/**
 * DuckDB held at what it holds already: any statement that needs a block more runs out of memory
 * until the limit is raised.
 */
const squeeze = (wh: WarehouseApi) =>
  wh.withConnection("squeeze", async (conn) => {
    const [held] = await rowsOf(conn, `SELECT sum(memory_usage_bytes)::BIGINT AS b FROM duckdb_memory()`)
    await conn.run(`SET memory_limit = '${Math.max(Number(held!.b), 1 << 20)} bytes'`)
  })

describe("out of memory, as DuckDB says it", () => {
  it("a statement over the limit (DuckDB's own error, raised here) is out of memory, not fatal", async () => {
    const cause = await statementOutOfMemory("1MB")
    expect(cause, "DuckDB ran the statement within 1MB").toBeInstanceOf(Error)
    const e = sqlError("Cannot commit 1 page(s)", cause)
    expect(isOutOfMemory(e), String(cause)).toBe(true)
    expect(isFatal(e)).toBe(false)
  })

  it("a commit that cannot allocate a block is out of memory; other commit failures and a fatal error are not retried as such", () => {
    const commit = (message: string) => sqlError("Cannot commit 1 page(s) of run r", new Error(message))
    // the wording met landing the backlog at 48MB (DuckDB 1.5)
    expect(
      isOutOfMemory(
        commit("TransactionContext Error: Failed to commit: could not allocate block of size 256.0 KiB (45.6 MiB/45.7 MiB used)")
      )
    ).toBe(true)
    expect(isOutOfMemory(commit("TransactionContext Error: Failed to commit: failed to pin block of size 256.0 KiB"))).toBe(true)
    // the wording met finishing a 1,034,151-property pull at 160MB
    expect(
      isOutOfMemory(
        commit("TransactionContext Error: Failed to commit: failed to allocate data of size 512.0 KiB (152.2 MiB/152.5 MiB used)")
      )
    ).toBe(true)
    expect(isOutOfMemory(commit('Constraint Error: Duplicate key "id: 1" violates primary key constraint'))).toBe(false)
    expect(isOutOfMemory(commit("TransactionContext Error: Failed to commit: PRIMARY KEY or UNIQUE constraint violation"))).toBe(false)
    const fatal = commit("FATAL Error: Failed: database has been invalidated because of a previous fatal error")
    expect(isFatal(fatal)).toBe(true)
  })

  effectIt.scoped(
    "while landing, a group commit that runs DuckDB out of memory is landed again with the limit raised, and the run then finishes",
    () =>
      Effect.gen(function* () {
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
        yield* wh.ensureTables([plots])
        yield* wh.startRun({ runId: "r", pipeline: "plots" })

        const limit = Effect.map(wh.query(`SELECT current_setting('memory_limit') AS m`), (r) => String(r[0]!.m))
        yield* squeeze(wh)
        const tight = yield* limit
        yield* wh.commitPages([page("r", { plots: Array.from({ length: 2000 }, (_, i) => plotRow(i)) }, { key: "ES", value: 1 })])
        expect(yield* wh.tableCounts()).toEqual({ plots: 2000 })
        expect(yield* limit).not.toBe(tight)
        yield* squeeze(wh)
        yield* wh.finishRun("r", "done")
        const [run] = yield* wh.query(`SELECT status FROM _runs WHERE run_id = 'r'`)
        expect(run!.status).toBe("done")
      })
  )

  effectIt.scoped(
    "while landing, a run's finish (its history closing) gets room before it starts: squeezed to what DuckDB holds, it ends done",
    () =>
      Effect.gen(function* () {
        const history: TableSpec = { ...plots, disposition: "history" }
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
        yield* wh.ensureTables([history])
        yield* wh.startRun({ runId: "r", pipeline: "plots", params: { scope: "a" } })
        for (let p = 0; p < 10; p++)
          yield* wh.commitPages([
            page(
              "r",
              { plots: Array.from({ length: 2000 }, (_, i) => plotRow(p * 2000 + i)) },
              { key: "A", value: p, done: p === 9 },
              {
                slice: { key: "A", received: 2000, landed: 2000, rejected: 0, done: p === 9 }
              }
            )
          ])
        yield* squeeze(wh)
        yield* wh.finishRun("r", "done", undefined, {
          pipeline: "plots",
          scope: "a",
          full: true,
          shard: undefined,
          closeAt: new Date().toISOString(),
          scopeOfRun: (params) => (params as { scope?: string } | null)?.scope,
          tables: [history]
        })
        expect(yield* wh.query(`SELECT status FROM _runs WHERE run_id = 'r'`)).toEqual([{ status: "done" }])
        expect(yield* wh.query(`SELECT count(*)::INTEGER AS n FROM _history_members`)).toEqual([{ n: 20_000 }])
      })
  )
})
