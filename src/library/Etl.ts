/**
 * The library API for Effect users: every function returns an `Effect` (run it with your own
 * runtime, or use the Promise wrappers of `Promises.ts`).
 *
 * - `extract(pipelineOrName, options)`: one run in its own session (default: a throwaway
 *   in-memory DuckDB), with the CLI's guards (unit cap checked against the plan before any call,
 *   retry budget, rate-limit pacing), returning the tables as Arrow or plain objects.
 * - `session(options)`: several runs into one warehouse, SQL over them, exports (scoped).
 * - `query` (plain objects), `queryArrow`, `writeArrow`, `writeParquet`: over a warehouse file,
 *   without any service.
 */
import type * as arrow from "apache-arrow"
import { Duration, Effect } from "effect"
import * as fs from "node:fs"
import { MEMORY } from "../load/Database.js"
import { Warehouse } from "../load/Warehouse.js"
import { InvalidInput } from "../pipeline/RunError.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import type { ParamsOf, PipelineRef } from "./PipelineRef.js"
import type { ReadOptions } from "./PlainRows.js"
import {
  type ExtractionOf,
  inLibraryTerms,
  resolveSettings,
  session,
  type ExtractError,
  type RunOptions,
  type SessionOptions
} from "./Session.js"
import { warehouseReads, writeArrowTable } from "./WarehouseReads.js"

export { session } from "./Session.js"
export type { ExtractError, ExtractionOf, ExtractSession, RunOptions, SessionOptions } from "./Session.js"
export { byName, type NamedPipeline, type PipelineName, type PipelineRef } from "./PipelineRef.js"
export type { BigintMode, ReadOptions } from "./PlainRows.js"
export type { Extraction } from "./Extraction.js"
export type { WrittenFile } from "./WarehouseReads.js"

/** Options of a one-shot extraction: the session's and the run's (`params` typed by the pipeline). */
export interface ExtractOptions<Params = Record<string, unknown>> extends SessionOptions, RunOptions<Params> {}

/**
 * Runs one pipeline and reads its tables: a built-in's name, an inline `definePipeline`
 * declaration, or `byName(name)` for one of the settings' modules (see `PipelineRef`).
 */
export const extract = <X extends PipelineRef>(
  pipeline: X,
  options: ExtractOptions<ParamsOf<X>> = {}
): Effect.Effect<ExtractionOf<X>, ExtractError> =>
  Effect.scoped(Effect.flatMap(session(options), (s) => s.run(pipeline, options))).pipe(
    Effect.withSpan("Etl.extract", { attributes: { pipeline: typeof pipeline === "string" ? pipeline : (pipeline as Pipeline).name } })
  )

/** Where a warehouse read goes: a DuckDB file, or the settings' warehouse. */
export interface WarehouseOptions {
  /** The DuckDB file. Default: the settings' `warehouse`. */
  readonly warehouse?: string | undefined
  /** Settings (object or file path) whose `warehouse` is used when `warehouse` is not given. */
  readonly settings?: SessionOptions["settings"]
  /**
   * How long to wait for a warehouse another process holds (a run writing it), as the CLI's
   * `--lock-wait`: a duration (`"30 seconds"`, `Duration.minutes(2)`, ms as a number). Default 30 s;
   * beyond it a `WarehouseError` of reason `Locked`.
   */
  readonly lockWait?: Duration.DurationInput | undefined
}

/** The CLI's default `--lock-wait`. */
const DEFAULT_READ_LOCK_WAIT = Duration.seconds(30)

/**
 * Opens the warehouse to read it: read-only (a statement that writes is refused, as the CLI's
 * `query` refuses it), waiting for a writer as `lockWait` says; never created.
 */
const withReads = <A, E>(options: WarehouseOptions, f: (reads: ReturnType<typeof warehouseReads>) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const path = options.warehouse ?? (yield* Effect.mapError(resolveSettings(options.settings), inLibraryTerms)).warehouse
    // A read never creates a warehouse: a mistyped path is an error, not a new empty file.
    if (path !== MEMORY && !fs.existsSync(path)) {
      return yield* new InvalidInput({ field: "warehouse", detail: `no warehouse file at ${path}` })
    }
    const open = path === MEMORY ? { path } : { path, readOnly: true, lockTimeout: options.lockWait ?? DEFAULT_READ_LOCK_WAIT }
    return yield* Effect.flatMap(Warehouse, (w) => f(warehouseReads(w))).pipe(Effect.provide(Warehouse.Default(open)))
  }).pipe(Effect.scoped)

/**
 * SQL over a warehouse file, as plain objects: BIGINT, HUGEINT and integral DECIMAL values as
 * `number` when exact, `bigint` beyond 2^53 (`bigint: "keep"`: always `bigint`), so the result
 * goes to `JSON.stringify` as is. `Row` is asserted, not checked.
 */
export const query = <Row extends object = Record<string, unknown>>(sql: string, options: WarehouseOptions & ReadOptions = {}) =>
  withReads(options, (r) => r.query<Row>(sql, options)).pipe(Effect.withSpan("Etl.query"))

/** The same as `query`. */
export const rows = <Row extends object = Record<string, unknown>>(sql: string, options: WarehouseOptions & ReadOptions = {}) =>
  withReads(options, (r) => r.query<Row>(sql, options)).pipe(Effect.withSpan("Etl.rows"))

/** SQL over a warehouse file, as an Arrow table. */
export const queryArrow = (sql: string, options: WarehouseOptions = {}) =>
  withReads(options, (r) => r.queryArrow(sql)).pipe(Effect.withSpan("Etl.queryArrow"))

/**
 * Writes an Arrow IPC file: an Arrow table as is (no warehouse opened), or a table name / query
 * of a warehouse file.
 */
export const writeArrow = (tableOrSql: arrow.Table | string, path: string, options: WarehouseOptions = {}) =>
  (typeof tableOrSql === "string" ? withReads(options, (r) => r.writeArrow(tableOrSql, path)) : writeArrowTable(tableOrSql, path)).pipe(
    Effect.withSpan("Etl.writeArrow")
  )

/** Writes a table name or a query of a warehouse file as a Parquet file. */
export const writeParquet = (tableOrSql: string, path: string, options: WarehouseOptions = {}) =>
  withReads(options, (r) => r.writeParquet(tableOrSql, path)).pipe(Effect.withSpan("Etl.writeParquet"))
