/**
 * A test's SQL over a warehouse file (its assertions' reads, and the odd change a test makes to
 * set a case up): the file attached to one in-memory DuckDB that the worker keeps, the statements
 * run, the file detached (DuckDB checkpoints a change then, as a close would). Rows come back as
 * the toolkit's `query` gives them (`jsValue`: BIGINT as a number when exact, dates as `Date`).
 *
 * Why not the toolkit's `Warehouse` for every read: each opening of it creates a DuckDB instance
 * and closes it again (~55 ms of CPU), and DuckDB trims the whole process's `malloc` arenas when
 * an instance closes (`malloc_trim`; `WAREHOUSE_THREADS` in src/load/Database.ts). A test worker
 * holds hundreds of MB of Node's memory, so each trim and the page faults after it cost that
 * worker; the dialect matrix alone read its warehouses ~300 times. Detaching a file leaves the
 * instance and the process's memory alone.
 *
 * A file the toolkit holds open in this process, or one that does not exist yet, goes through the
 * toolkit's `Warehouse` as before (it refuses the first, `Locked`, and creates the second).
 */
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { duckdb } from "../../src/load/DuckDbApi.js"
import { isOpenInProcess, literal, rowsOf } from "../../src/load/Database.js"
import { jsValue, Warehouse } from "../../src/load/Warehouse.js"

type Row = Record<string, unknown>

let reader: Promise<DuckDBInstance> | undefined
const instance = () =>
  (reader ??= duckdb.DuckDBInstance.create(":memory:", { threads: "1" }).then(async (i) => {
    const conn = await i.connect()
    // as the toolkit's own connections (Database.ts): timestamps read as UTC
    await conn.run("SET TimeZone = 'UTC'")
    conn.closeSync()
    return i
  }))

/** One use of a file at a time: DuckDB attaches a file once. */
const queues = new Map<string, Promise<unknown>>()
let attached = 0

const viaWarehouse = (file: string, sqls: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.flatMap(Warehouse, (w) => Effect.forEach(sqls, (sql) => w.query(sql))).pipe(
      Effect.provide(Warehouse.Default({ path: file })),
      Effect.scoped
    )
  )

export interface QueryOptions {
  /** Attach the file read-only: nothing written, a WAL replayed in memory only (a killed run's file stays as it was). */
  readonly readOnly?: boolean
  /** Values as DuckDB's `getRowObjectsJS` gives them (BIGINT as bigint), not as the toolkit's `query`. Default false. */
  readonly raw?: boolean
}

const viaAttach = async (file: string, sqls: ReadonlyArray<string>, options: QueryOptions): Promise<Array<Array<Row>>> => {
  const alias = `test_${++attached}`
  const conn: DuckDBConnection = await (await instance()).connect()
  try {
    await conn.run(`ATTACH ${literal(file)} AS ${alias}${options.readOnly ? " (READ_ONLY)" : ""}`)
    try {
      await conn.run(`USE ${alias}`)
      const out: Array<Array<Row>> = []
      for (const sql of sqls) {
        const rows = await rowsOf(conn, sql)
        out.push(options.raw ? rows : rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsValue(v)]))))
      }
      return out
    } finally {
      await conn.run("USE memory")
      await conn.run(`DETACH ${alias}`)
    }
  } finally {
    conn.closeSync()
  }
}

/**
 * The rows of each of `sqls` over the warehouse at `file`, in order. Unless `readOnly`, a file
 * the toolkit holds in this process or one not there yet goes through the toolkit's `Warehouse`.
 */
export const queryWarehouse = (file: string, sqls: ReadonlyArray<string>, options: QueryOptions = {}): Promise<Array<Array<Row>>> => {
  const path = nodePath.resolve(file)
  if (!options.readOnly && (isOpenInProcess(path) || !fs.existsSync(path))) return viaWarehouse(path, sqls)
  const before = queues.get(path) ?? Promise.resolve()
  const run = () => viaAttach(path, sqls, options)
  const read = before.then(run, run)
  const settled = read.catch(() => undefined)
  queues.set(path, settled)
  void settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path)
  })
  return read
}
