/**
 * The library API for Effect users: every function returns an `Effect` (run it with your own
 * runtime, or use the Promise wrappers of `Promises.ts`).
 *
 * - `extract(pipelineOrName, options)`: one run in its own session (default: a throwaway
 *   in-memory DuckDB), with the CLI's guards (unit cap checked against the plan before any call,
 *   retry budget, rate-limit pacing), returning the tables as Arrow or plain objects.
 * - `session(options)`: several runs into one warehouse, SQL over them, exports (scoped).
 * - `query`, `writeArrow`, `writeParquet`: over a warehouse file, without any service.
 */
import type * as arrow from "apache-arrow"
import { Effect } from "effect"
import * as fs from "node:fs"
import { MEMORY } from "../load/Database.js"
import { Warehouse } from "../load/Warehouse.js"
import { InvalidInput } from "../pipeline/RunError.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import type { Extraction } from "./Extraction.js"
import { resolveSettings, session, type ExtractError, type RunOptions, type SessionOptions } from "./Session.js"
import { warehouseReads, writeArrowTable } from "./WarehouseReads.js"

export { session } from "./Session.js"
export type { ExtractError, ExtractSession, RunOptions, SessionOptions } from "./Session.js"
export type { Extraction } from "./Extraction.js"
export type { WrittenFile } from "./WarehouseReads.js"

/** Options of a one-shot extraction: the session's and the run's. */
export interface ExtractOptions extends SessionOptions, RunOptions {}

/** Runs one pipeline (a catalogue name or an inline `definePipeline` declaration) and reads its tables. */
export const extract = <P>(pipeline: Pipeline<P> | string, options: ExtractOptions = {}): Effect.Effect<Extraction, ExtractError> =>
  Effect.scoped(Effect.flatMap(session(options), (s) => s.run(pipeline, options))).pipe(
    Effect.withSpan("Etl.extract", { attributes: { pipeline: typeof pipeline === "string" ? pipeline : pipeline.name } })
  )

/** Where a warehouse read goes: a DuckDB file, or the settings' warehouse. */
export interface WarehouseOptions {
  /** The DuckDB file. Default: the settings' `warehouse`. */
  readonly warehouse?: string | undefined
  /** Settings (object or file path) whose `warehouse` is used when `warehouse` is not given. */
  readonly settings?: SessionOptions["settings"]
}

const withReads = <A, E>(options: WarehouseOptions, f: (reads: ReturnType<typeof warehouseReads>) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const path = options.warehouse ?? (yield* resolveSettings(options.settings)).warehouse
    // A read never creates a warehouse: a mistyped path is an error, not a new empty file.
    if (path !== MEMORY && !fs.existsSync(path)) {
      return yield* new InvalidInput({ field: "warehouse", detail: `no warehouse file at ${path}` })
    }
    return yield* Effect.flatMap(Warehouse, (w) => f(warehouseReads(w))).pipe(Effect.provide(Warehouse.Default({ path })))
  }).pipe(Effect.scoped)

/** SQL over a warehouse file, as an Arrow table. */
export const query = (sql: string, options: WarehouseOptions = {}) =>
  withReads(options, (r) => r.query(sql)).pipe(Effect.withSpan("Etl.query"))

/** SQL over a warehouse file, as plain objects. */
export const rows = (sql: string, options: WarehouseOptions = {}) =>
  withReads(options, (r) => r.rows(sql)).pipe(Effect.withSpan("Etl.rows"))

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
