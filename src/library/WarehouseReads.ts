/**
 * Reads and exports over an open warehouse: SQL as plain objects (`query`, also named `rows`) or
 * as an Arrow table (`queryArrow`), and any table or query written as an Arrow IPC file or a
 * Parquet file. Files appear atomically (written beside the target, then renamed).
 */
import type * as arrow from "apache-arrow"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { ident, literal } from "../load/Database.js"
import type { Warehouse } from "../load/Warehouse.js"
import { queryArrowWith } from "../export/ArrowExport.js"
import { writeArrowFile } from "./Arrow.js"
import { LibraryError } from "./LibraryError.js"
import { plainRows, type ReadOptions } from "./PlainRows.js"

export interface WrittenFile {
  readonly path: string
  readonly rows: number
  readonly bytes: number
}

/** A bare identifier names a table; anything else is a query. */
export const selectOf = (tableOrSql: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(tableOrSql.trim()) ? `SELECT * FROM ${ident(tableOrSql.trim())}` : tableOrSql

/** An Arrow table written as an Arrow IPC file. */
export const writeArrowTable = (table: arrow.Table, path: string) =>
  Effect.try({
    try: (): WrittenFile => writeArrowFile(table, path),
    catch: (cause) => new LibraryError({ reason: "Io", detail: `cannot write ${path}: ${String(cause)}`, cause })
  })

export const warehouseReads = (warehouse: Warehouse) => {
  /** Any SQL, as an Arrow table. */
  const queryArrow = (sql: string) => warehouse.withConnection(`Query failed: ${sql.slice(0, 120)}`, (conn) => queryArrowWith(conn, sql))

  /** Any SQL, as plain objects (exact integers as numbers: see `PlainRows.ts`); `Row` is asserted, not checked. */
  const query = <Row extends object = Record<string, unknown>>(sql: string, options: ReadOptions = {}) =>
    warehouse.withConnection(
      `Query failed: ${sql.slice(0, 120)}`,
      async (conn) => plainRows(await conn.runAndReadAll(sql), options) as Array<Row>
    )

  /** A table (bare name), a query, or an Arrow table, written as an Arrow IPC file. */
  const writeArrow = (tableOrSql: string | arrow.Table, path: string) =>
    Effect.gen(function* () {
      const table = typeof tableOrSql === "string" ? yield* queryArrow(selectOf(tableOrSql)) : tableOrSql
      return yield* writeArrowTable(table, path)
    })

  /** A table (bare name) or a query written as one Parquet file (zstd). */
  const writeParquet = (tableOrSql: string, path: string) =>
    warehouse.withConnection(`Cannot write ${path}`, async (conn): Promise<WrittenFile> => {
      fs.mkdirSync(nodePath.dirname(nodePath.resolve(path)), { recursive: true })
      const sql = selectOf(tableOrSql)
      const tmp = `${path}.${process.pid}.tmp`
      const counted = await conn.runAndReadAll(`SELECT count(*) AS n FROM (${sql})`)
      await conn.run(`COPY (${sql}) TO ${literal(tmp)} (FORMAT parquet, COMPRESSION zstd)`)
      fs.renameSync(tmp, path)
      return { path, rows: Number(counted.getRowObjectsJS()[0]!.n), bytes: fs.statSync(path).size }
    })

  return { query, queryArrow, rows: query, writeArrow, writeParquet } as const
}
