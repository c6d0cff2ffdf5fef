/**
 * Rows staged as their pages arrive: each group of pages gets its own tables in the in-memory
 * database `STAGE_DB`, filled through DuckDB's appender (each appender on a connection of its
 * own; the tables made and dropped on a staging connection) while the warehouse's connection
 * lands the group before. A page's rows are then native as soon as it is normalized: held as JS
 * objects until their group's commit, they outlived two scavenges and were copied into V8's old
 * space (measured: bytes promoted 280 -> 210 MB a run, CPU about 5% less; docs/BENCHMARKS.md).
 *
 * A group's tables are created on the first page with rows for them (or ahead, `prepare`),
 * sealed (appenders flushed and closed) before its commit reads them, and dropped after it.
 * Appends are synchronous: a page's rows join a group in one step, so a group is never sealed
 * halfway through a page.
 */
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api"
import { Effect } from "effect"
import type { Row, TableSpec } from "../normalize/Table.js"
import { ident, STAGE_DB } from "./Database.js"
import { appendRows, keyRepeats, stageTableSql } from "./PageStager.js"
import { sqlError, WarehouseError } from "./WarehouseError.js"

/** A table of a group as staged: its rows so far, and whether no key came twice. */
export interface StagedTable {
  readonly spec: TableSpec
  /** The staging table, qualified, for SQL. */
  readonly name: string
  readonly rows: number
  readonly uniqueKeys: boolean
}

interface Appending {
  readonly spec: TableSpec
  readonly name: string
  /** Each appender has a connection of its own: an appender flushing a chunk on a connection that is running a statement breaks that statement. */
  readonly conn: DuckDBConnection
  readonly app: DuckDBAppender
  readonly repeats: (rows: ReadonlyArray<Row>) => boolean
}

/**
 * Runs the staging tables' statements (create, drop) one after another on one connection, and
 * opens the appenders' connections.
 */
export class Stager {
  private turn: Promise<unknown> = Promise.resolve()
  private groups = 0
  constructor(
    private readonly db: { readonly staging: () => Promise<DuckDBConnection>; readonly connect: () => Promise<DuckDBConnection> },
    private readonly specOf: (table: string, runId: string) => TableSpec
  ) {}

  run<A>(f: (conn: DuckDBConnection) => Promise<A>): Promise<A> {
    const done = this.turn.then(() => this.db.staging()).then(f)
    this.turn = done.catch(() => undefined)
    return done
  }

  /** A connection for one appender (the staging database is attached by then). */
  connect(): Promise<DuckDBConnection> {
    return this.db.staging().then(() => this.db.connect())
  }

  /** A new, empty group of run `runId`. */
  open(runId: string): Stage {
    return new Stage(this, ++this.groups, (table) => this.specOf(table, runId))
  }
}

export class Stage {
  /** The group's tables in the order their first rows came. */
  readonly tables = new Map<string, StagedTable>()
  private readonly creating = new Map<string, Promise<void>>()
  private readonly appending = new Map<string, Appending>()
  private failure: WarehouseError | undefined
  private sealed = false

  constructor(
    private readonly stager: Stager,
    readonly id: number,
    private readonly specOf: (table: string) => TableSpec
  ) {}

  /** Whether every table of `tables` can take rows now. */
  has(tables: ReadonlyArray<string>): boolean {
    for (const t of tables) if (!this.appending.has(t)) return false
    return true
  }

  /** Creates the staging tables of `tables` this group lacks (resolves when all are ready). */
  prepare(tables: Iterable<string>): Promise<void> {
    const waits: Array<Promise<void>> = []
    for (const table of tables) {
      let created = this.creating.get(table)
      if (created === undefined) this.creating.set(table, (created = this.create(table)))
      waits.push(created)
    }
    return Promise.all(waits).then(() => undefined)
  }

  private create(table: string): Promise<void> {
    if (this.sealed) return Promise.reject(new Error(`staging group ${this.id} is sealed`))
    const local = `g${this.id}_${table}`
    const name = `${STAGE_DB}.main.${ident(local)}`
    return new Promise<TableSpec>((resolve) => resolve(this.specOf(table))).then((spec) =>
      this.stager
        .run((conn) => conn.run(stageTableSql(spec, name)))
        .then(() => this.stager.connect())
        .then(async (conn) => {
          try {
            const app = await conn.createAppender(local, "main", STAGE_DB)
            this.appending.set(table, { spec, name, conn, app, repeats: keyRepeats(spec) })
          } catch (e) {
            conn.disconnectSync()
            throw e
          }
        })
    )
  }

  /**
   * Appends one page's rows and returns its row count per table. Every table with rows must be
   * ready (`has`). A value a column refuses marks the group failed: its commit fails with the
   * value's place, and nothing more is appended to it.
   */
  append(rows: ReadonlyMap<string, ReadonlyArray<Row>>): Record<string, number> {
    if (this.sealed) throw new Error(`staging group ${this.id} is sealed`)
    const counts: Record<string, number> = {}
    for (const [table, list] of rows) {
      counts[table] = list.length
      if (this.failure !== undefined) continue
      const known = this.tables.get(table)
      if (list.length === 0) {
        if (known !== undefined) continue
        try {
          this.tables.set(table, { spec: this.specOf(table), name: "", rows: 0, uniqueKeys: true })
        } catch (e) {
          this.failure = sqlError(`Cannot stage rows of ${table}`, e)
        }
        continue
      }
      const a = this.appending.get(table)
      if (a === undefined) throw new Error(`staging table of ${table} is not ready`)
      const before = known?.rows ?? 0
      try {
        appendRows(a.app, a.spec, list, before)
      } catch (e) {
        this.failure = e instanceof WarehouseError ? e : sqlError(`Cannot stage rows of ${table}`, e)
        continue
      }
      const uniqueKeys = (known?.uniqueKeys ?? true) && !a.repeats(list)
      this.tables.set(table, { spec: a.spec, name: a.name, rows: before + list.length, uniqueKeys })
    }
    return counts
  }

  /** Ends the group: its appenders are flushed and closed; fails if any page could not be staged. */
  async seal(): Promise<void> {
    this.sealed = true
    const created = await Promise.allSettled(this.creating.values())
    for (const { app, conn } of this.appending.values()) {
      try {
        if (this.failure === undefined) app.flushSync()
      } catch (e) {
        this.failure = sqlError("Cannot flush the staged rows", e)
      } finally {
        try {
          app.closeSync()
        } catch {
          // a row cut short by a bad value: the group failed already
        }
        conn.disconnectSync()
      }
    }
    this.appending.clear()
    const refused = created.find((c): c is PromiseRejectedResult => c.status === "rejected")
    if (this.failure === undefined && refused) {
      this.failure = refused.reason instanceof WarehouseError ? refused.reason : sqlError("Cannot create a staging table", refused.reason)
    }
    if (this.failure !== undefined) throw this.failure
  }

  /** Drops the group's tables (sealing it first if it was not). */
  async drop(): Promise<void> {
    if (!this.sealed) await this.seal().catch(() => undefined)
    const names = [...this.creating.keys()].map((t) => `DROP TABLE IF EXISTS ${STAGE_DB}.main.${ident(`g${this.id}_${t}`)}`)
    this.creating.clear()
    if (names.length > 0) await this.stager.run((conn) => conn.run(names.join("; ")))
  }
}

/** Drops the tables of groups that will not land (or have landed); a failure to drop is ignored. */
export const dropStages = (stages: Iterable<Stage>) =>
  Effect.forEach(stages, (s) => Effect.promise(() => s.drop().catch(() => undefined)), { discard: true })
