/**
 * The warehouse's tables read: any SQL (`query`), row counts, the keys a fan-out reads from an
 * earlier table, the declared specs, and the connection itself for exports and merges.
 */
import { Effect } from "effect"
import type { KeyFilter } from "../extract/Sources.js"
import type { TableSpec } from "../normalize/Table.js"
import { type Database, ident, rowsOf } from "./Database.js"
import { readKeys } from "./KeyReads.js"
import type { TableRegistry } from "./TableRegistry.js"
import type { WarehouseError } from "./WarehouseError.js"

/**
 * Assumed: `query` returns BIGINT values as numbers when they fit exactly (counts print and
 * serialise as JSON), as `bigint` otherwise, also inside lists and structs; DATE/TIMESTAMP(TZ)
 * stay `Date`s, DECIMAL is a number, JSON stays text, LIST/STRUCT are arrays and objects.
 */
export const jsValue = (v: unknown): unknown =>
  typeof v === "bigint"
    ? v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(v)
      : v
    : Array.isArray(v)
      ? v.map(jsValue)
      : v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsValue(x)]))
        : v

export const makeTableReads = (db: Database, registry: TableRegistry) => ({
  /** The warehouse file (absolute), or `":memory:"`. */
  path: db.path,

  /** Any SQL; rows as objects of JS values (see `jsValue`). */
  query: (sql: string, params?: ReadonlyArray<string | number | boolean | bigint | null>) =>
    db
      .use("Query failed", (conn) => rowsOf(conn, sql, params))
      .pipe(Effect.map((rows) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsValue(v)]))))),

  /** Row counts of the declared tables. */
  tableCounts: () =>
    db.use("Cannot count rows", async (conn) => {
      const out: Record<string, number> = {}
      for (const name of [...registry.names()].sort())
        out[name] = Number((await rowsOf(conn, `SELECT count(*) AS n FROM ${ident(name)}`))[0]!.n)
      return out
    }),

  /**
   * The distinct non-null values of `table.column` as text, ordered, of the rows `filter` keeps
   * (keys of a fan-out fed by an earlier table; see `KeyReads.ts`); `undefined` when the
   * warehouse has no such table yet.
   */
  keysOf: (table: string, column: string, filter?: KeyFilter): Effect.Effect<ReadonlyArray<string> | undefined, WarehouseError> =>
    db.use(`Cannot read keys from ${table}.${column}`, (conn) => readKeys(conn, table, column, filter)),

  /** The declared table specs (from this process or the `_tables` registry). */
  tables: (): Array<TableSpec> => [...registry.all()],

  /** Exclusive use of the connection, for exports and merges. */
  withConnection: db.use
})

/** The warehouse's tables read (part of the `Warehouse` service). */
export type TableReadsApi = ReturnType<typeof makeTableReads>
