/**
 * The library API for code that does not use Effect: the same functions as `Etl.ts`, returning
 * Promises. A failure rejects with the error itself (a tagged `Error`: `InvalidInput`,
 * `BudgetExhausted`, `LibraryError`, ...), never a wrapper.
 */
import type * as arrow from "apache-arrow"
import { Cause, Effect, Exit, Option, Scope } from "effect"
import type { SandboxHandle } from "../sandbox/Sandbox.js"
import * as Etl from "./Etl.js"
import type { ParamsOf, PipelineRef } from "./PipelineRef.js"
import type { ReadOptions } from "./PlainRows.js"
import type { ExtractionOf, RunOptions, SessionOptions } from "./Session.js"
import type { WrittenFile } from "./WarehouseReads.js"

/** Runs an effect that needs nothing; rejects with its error (not a FiberFailure). */
export const runToPromise = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => (Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))))

/** See `Etl.extract`: `extract("plots-germany", { params })` is typed by the pipeline's declaration. */
export const extract = <X extends PipelineRef>(pipeline: X, options: Etl.ExtractOptions<ParamsOf<X>> = {}): Promise<ExtractionOf<X>> =>
  runToPromise(Etl.extract(pipeline, options))

/** SQL over a warehouse file, as plain objects, exact integers as numbers (see `Etl.query`). */
export const query = <Row extends object = Record<string, unknown>>(
  sql: string,
  options: Etl.WarehouseOptions & ReadOptions = {}
): Promise<Array<Row>> => runToPromise(Etl.query<Row>(sql, options))

/** The same as `query`. */
export const rows = <Row extends object = Record<string, unknown>>(
  sql: string,
  options: Etl.WarehouseOptions & ReadOptions = {}
): Promise<Array<Row>> => runToPromise(Etl.rows<Row>(sql, options))

/** SQL over a warehouse file, as an Arrow table. */
export const queryArrow = (sql: string, options: Etl.WarehouseOptions = {}): Promise<arrow.Table> =>
  runToPromise(Etl.queryArrow(sql, options))

/** An Arrow table, or a table name / query of a warehouse file, written as an Arrow IPC file. */
export const writeArrow = (tableOrSql: arrow.Table | string, path: string, options: Etl.WarehouseOptions = {}): Promise<WrittenFile> =>
  runToPromise(Etl.writeArrow(tableOrSql, path, options))

/** A table name or query of a warehouse file written as a Parquet file. */
export const writeParquet = (tableOrSql: string, path: string, options: Etl.WarehouseOptions = {}): Promise<WrittenFile> =>
  runToPromise(Etl.writeParquet(tableOrSql, path, options))

/** An open session (see `Etl.session`); call `close()` when done (or use `withSession`). */
export interface Session {
  readonly settings: Etl.ExtractSession["settings"]
  readonly into: "memory" | "warehouse"
  readonly warehousePath: string
  /** The sandbox the session talks to, if any. */
  readonly sandbox: SandboxHandle | undefined
  /** See `ExtractSession.run`. */
  readonly run: <X extends PipelineRef>(pipeline: X, options?: RunOptions<ParamsOf<X>>) => Promise<ExtractionOf<X>>
  /** SQL as plain objects, exact integers as numbers (see `Etl.query`). */
  readonly query: <Row extends object = Record<string, unknown>>(sql: string, options?: ReadOptions) => Promise<Array<Row>>
  /** The same as `query`. */
  readonly rows: <Row extends object = Record<string, unknown>>(sql: string, options?: ReadOptions) => Promise<Array<Row>>
  /** SQL as an Arrow table. */
  readonly queryArrow: (sql: string) => Promise<arrow.Table>
  readonly writeArrow: (tableOrSql: string | arrow.Table, path: string) => Promise<WrittenFile>
  readonly writeParquet: (tableOrSql: string, path: string) => Promise<WrittenFile>
  readonly tableCounts: () => Promise<Record<string, number>>
  /** Closes the warehouse (dropping an in-memory one) and stops an embedded sandbox. */
  readonly close: () => Promise<void>
}

export const openSession = async (options: SessionOptions = {}): Promise<Session> => {
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  try {
    const s = await runToPromise(Scope.extend(Etl.session(options), scope))
    return {
      settings: s.settings,
      into: s.into,
      warehousePath: s.warehousePath,
      sandbox: Option.getOrUndefined(s.sandbox),
      run: (pipeline, runOptions) => runToPromise(s.run(pipeline, runOptions)),
      query: (sql, o) => runToPromise(s.query(sql, o)),
      rows: (sql, o) => runToPromise(s.query(sql, o)),
      queryArrow: (sql) => runToPromise(s.queryArrow(sql)),
      writeArrow: (t, path) => runToPromise(s.writeArrow(t, path)),
      writeParquet: (t, path) => runToPromise(s.writeParquet(t, path)),
      tableCounts: () => runToPromise(s.tableCounts()),
      close
    }
  } catch (e) {
    await close()
    throw e
  }
}

/** Opens a session, passes it to `f`, and closes it however `f` ends. */
export const withSession = async <A>(options: SessionOptions, f: (session: Session) => Promise<A>): Promise<A> => {
  const s = await openSession(options)
  try {
    return await f(s)
  } finally {
    await s.close()
  }
}
