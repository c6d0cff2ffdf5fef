/**
 * What counts as DuckDB running out of memory (`isOutOfMemory`): a group commit that does is landed
 * again with the landing limit doubled (`LandingSettings.withMemoryToLand`), anything else is not.
 * DuckDB words it two ways: a statement fails with `Out of Memory Error`, a commit with
 * `TransactionContext Error: Failed to commit: could not allocate block ...`, which a 30-day alerts
 * backlog met at a 48MB landing limit (the run paused until the commit's wording was recognised;
 * `CHAOS=full npx vitest run test/cli/backlog.test.ts` with that limit lands it).
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { describe, expect, it } from "vitest"
import { isFatal, isOutOfMemory, sqlError } from "../../src/load/WarehouseError.js"

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
    expect(isOutOfMemory(commit('Constraint Error: Duplicate key "id: 1" violates primary key constraint'))).toBe(false)
    expect(isOutOfMemory(commit("TransactionContext Error: Failed to commit: PRIMARY KEY or UNIQUE constraint violation"))).toBe(false)
    const fatal = commit("FATAL Error: Failed: database has been invalidated because of a previous fatal error")
    expect(isFatal(fatal)).toBe(true)
  })
})
