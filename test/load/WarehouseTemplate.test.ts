/**
 * The empty warehouse the build ships (`writeWarehouseTemplate`, `scripts/bundle.mjs`): a new
 * warehouse file starts from its bytes instead of DuckDB building the bookkeeping tables again.
 * It is found only under the name of what made it (DuckDB's version, the block size, the
 * bookkeeping's DDL), so a template of another DuckDB, block size or bookkeeping is never used.
 */
import { describe, expect, it } from "@effect/vitest"
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { BOOKKEEPING_TABLES, FORMAT_VERSION } from "../../src/load/Bookkeeping.js"
import { shippedTemplate, templateName, writeWarehouseTemplate } from "../../src/load/WarehouseFile.js"
import { tempDir } from "./fixtures.js"

/** What DuckDB reads from the file, opened read-only. */
const readBack = async (file: string) => {
  const db = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" })
  try {
    const conn = await db.connect()
    const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS()
    const [size] = await rows("SELECT block_size FROM pragma_database_size()")
    const tables = (await rows("SELECT table_name FROM duckdb_tables()")).map((r) => String(r.table_name))
    const [version] = await rows("SELECT value FROM _meta WHERE key = 'format_version'")
    conn.closeSync()
    return { blockSize: Number(size!.block_size), tables, version: Number(version!.value) }
  } finally {
    db.closeSync()
  }
}

describe("the shipped empty warehouse", () => {
  it.effect("is DuckDB's empty warehouse of the block size, under the name of what made it; other templates go", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      fs.writeFileSync(nodePath.join(dir, "0123-an-older-template.duckdb"), "old")
      const file = yield* writeWarehouseTemplate(dir, 16_384)
      expect(fs.readdirSync(dir)).toEqual([templateName(16_384)])
      expect(file).toBe(nodePath.join(dir, templateName(16_384)))
      const read = yield* Effect.promise(() => readBack(file))
      expect(read.blockSize).toBe(16_384)
      expect(read.version).toBe(FORMAT_VERSION)
      expect([...read.tables].sort()).toEqual([...BOOKKEEPING_TABLES].sort())
    })
  )

  it.effect(
    "is read only under its own name, whole and with DuckDB's magic: another block size, a file cut short or not DuckDB's is not a template",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const file = yield* writeWarehouseTemplate(dir, 16_384)
        expect(shippedTemplate(16_384, dir)?.equals(fs.readFileSync(file))).toBe(true)
        expect(templateName(32_768)).not.toBe(templateName(16_384))
        expect(shippedTemplate(32_768, dir)).toBeUndefined()
        expect(shippedTemplate(16_384, null)).toBeUndefined()
        // cut short inside a block: not whole
        const bytes = fs.readFileSync(file)
        fs.writeFileSync(file, bytes.subarray(0, bytes.length - 100))
        expect(shippedTemplate(16_384, dir)).toBeUndefined()
        // whole blocks, but not DuckDB's
        fs.writeFileSync(file, Buffer.alloc(bytes.length))
        expect(shippedTemplate(16_384, dir)).toBeUndefined()
      })
  )
})
