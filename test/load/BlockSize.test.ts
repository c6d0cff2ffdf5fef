/**
 * The block size of the warehouses the toolkit creates (`WAREHOUSE_BLOCK_SIZE`, `duckdb.blockSize`):
 * DuckDB fixes it when a file is made, so it applies to a new warehouse only, and every file keeps
 * the one it was made with, whatever a later open asks for.
 */
import { describe, expect, it } from "@effect/vitest"
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { decodeSettings } from "../../src/config/loadSettings.js"
import { blockSizeBytes } from "../../src/config/Settings.js"
import { makeWarehouse, WAREHOUSE_BLOCK_SIZE } from "../../src/load/Warehouse.js"
import { tempDir } from "./fixtures.js"

/** The block size DuckDB reads from the file's own header (opened read-only, nothing written). */
const blockSizeOf = async (file: string): Promise<number> => {
  const db = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" })
  try {
    const conn = await db.connect()
    const rows = (await conn.runAndReadAll("SELECT block_size FROM pragma_database_size()")).getRowObjectsJS()
    conn.closeSync()
    return Number(rows[0]!.block_size)
  } finally {
    db.closeSync()
  }
}

/** Opens (creating) the warehouse at `file` with `blockSize`, lands a row, and closes it. */
const openAndWrite = (file: string, blockSize?: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const w = yield* makeWarehouse({ path: file, rawDir: false, journal: false, blockSize })
      yield* w.query("CREATE TABLE IF NOT EXISTS t AS SELECT 1 AS x")
    })
  )

describe("the block size of a new warehouse", () => {
  it.effect("is WAREHOUSE_BLOCK_SIZE unless asked otherwise, per file, and a file keeps its own", () =>
    Effect.gen(function* () {
      const dir = tempDir("bs-")
      const byDefault = nodePath.join(dir, "default.duckdb")
      const duckdbs = nodePath.join(dir, "duckdbs.duckdb")
      yield* openAndWrite(byDefault)
      // a second size in the same process: the empty warehouse this process made first is not reused for it
      yield* openAndWrite(duckdbs, 262_144)
      yield* openAndWrite(nodePath.join(dir, "again.duckdb"))
      expect(yield* Effect.promise(() => blockSizeOf(byDefault))).toBe(WAREHOUSE_BLOCK_SIZE)
      expect(yield* Effect.promise(() => blockSizeOf(duckdbs))).toBe(262_144)
      expect(yield* Effect.promise(() => blockSizeOf(nodePath.join(dir, "again.duckdb")))).toBe(WAREHOUSE_BLOCK_SIZE)
      expect(WAREHOUSE_BLOCK_SIZE).toBeLessThan(262_144)

      // opened again asking for another size: the files are read and written as they were made
      yield* openAndWrite(byDefault, 262_144)
      yield* openAndWrite(duckdbs, 16_384)
      expect(yield* Effect.promise(() => blockSizeOf(byDefault))).toBe(WAREHOUSE_BLOCK_SIZE)
      expect(yield* Effect.promise(() => blockSizeOf(duckdbs))).toBe(262_144)
      fs.rmSync(dir, { recursive: true, force: true })
    })
  )

  it("is a setting that names the sizes DuckDB accepts", () => {
    const ok = decodeSettings({ duckdb: { blockSize: "256KB" } }, "s.json")
    expect(Either.isRight(ok) && ok.right.duckdb.blockSize).toBe("256KB")
    expect(blockSizeBytes("16KB")).toBe(16_384)
    expect(blockSizeBytes("256KB")).toBe(262_144)
    const bad = decodeSettings({ duckdb: { blockSize: "100KB" } }, "s.json")
    expect(Either.isLeft(bad)).toBe(true)
    const message = Either.isLeft(bad) ? bad.left.message : ""
    expect(message).toContain("duckdb.blockSize")
    for (const size of ["16KB", "32KB", "64KB", "128KB", "256KB"]) expect(message).toContain(size)
  })
})
