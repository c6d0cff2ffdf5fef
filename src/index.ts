/**
 * estate-etl as a library: `import { extract, query, writeArrow } from "estate-etl"`.
 *
 * - Promise functions (`extract`, `openSession`, `withSession`, `query`, `queryArrow`, `writeArrow`,
 *   `writeParquet`) for scripts and notebooks that do not use Effect, typed by the built-in
 *   pipelines' declarations (`byName` for a pipeline only the settings know).
 * - The same functions returning `Effect`s under `Etl` (`Etl.extract`, `Etl.session`...).
 * - What a pipeline declaration needs (`definePipeline`, sources, pagers, `flatTable`, the
 *   clients and the request/record schemas under `Schemas`), to declare one inline.
 * - The catalogue, the settings schema, the errors, and the sandbox for offline work.
 * - `Effect` and `Schema` from "effect" (the copy this package uses), so a repository with only
 *   estate-etl installed can write a pipeline module (`pipelines/*.mjs`, see `estate-etl init`).
 */

// ---- Library API ---------------------------------------------------------------------------
export {
  extract,
  openSession,
  query,
  queryArrow,
  rows,
  runToPromise,
  type Session,
  withSession,
  writeArrow,
  writeParquet
} from "./library/Promises.js"
export * as Etl from "./library/Etl.js"
export type { ExtractOptions, WarehouseOptions } from "./library/Etl.js"
export type { ExtractError, ExtractionOf, ExtractSession, RunOptions, SessionOptions } from "./library/Session.js"
export type { Extraction } from "./library/Extraction.js"
export { byName, type NamedPipeline, type ParamsOf, type PipelineName, type PipelineRef } from "./library/PipelineRef.js"
export type { BigintMode, ReadOptions } from "./library/PlainRows.js"
export type { RowOf, TypedTableSpec, ValueOf } from "./normalize/RowType.js"
export type { WrittenFile } from "./library/WarehouseReads.js"
export { LibraryError } from "./library/LibraryError.js"
export { readArrowFile, rowsOfArrow, writeArrowFile } from "./library/Arrow.js"
export { type Plot, type PlotChart, plotSvg, type PlotSvgOptions } from "./report/PlotSvg.js"

// ---- Declaring pipelines -------------------------------------------------------------------
export { Effect, Schema } from "effect"
export { type BuiltInPipeline, catalogue } from "../pipelines/index.js"
export {
  builtInPipeline,
  builtInPipelines,
  type Catalogue,
  type LoadedSettings,
  loadCatalogue,
  loadSettingsAndCatalogue
} from "./wiring/Catalogue.js"
export { type DeriveOptions, derivePipeline } from "./wiring/derivePipeline.js"
export {
  type CostModel,
  definePipeline,
  isPipeline,
  type PageContext,
  type Pipeline,
  type PipelineServices,
  type PlanEstimate
} from "./pipeline/Pipeline.js"
export { resolveParams } from "./pipeline/Params.js"
export { type Plan, planPipeline } from "./pipeline/Planner.js"
export { runPipeline, type RunRequest, type RunSummary } from "./pipeline/Runner.js"
export { Progress, type RunEvent, type Totals } from "./pipeline/Progress.js"
export { makeRegistry, type Registry } from "./pipeline/Registry.js"
export {
  batches,
  fanOut,
  type KeyFilter,
  type KeyOptions,
  keysFromTable,
  paged,
  Planning,
  plannedSlicesReadBefore,
  slicesReadBefore,
  TableKeys
} from "./extract/Sources.js"
export { cursor, offset, single, windows } from "./extract/Pagers.js"
export { sinceWatermark, untilKnown } from "./extract/Incremental.js"
export type { Charge, Fetched, Pager, PagerStep, Slice, SliceEnd, Source } from "./extract/Source.js"
export { fetchedOf, pageOf } from "./extract/Responses.js"
export { type ColumnDef, type FlatTable, type FlatTableOptions, flatTable } from "./normalize/Flatten.js"
export type { ColumnType, Disposition, Row, TableSpec } from "./normalize/Table.js"
export type { RecordMapping } from "./normalize/Normalizer.js"
export { propertyRows } from "./normalize/records/PropertyRows.js"
export { PlatformClient } from "./service/PlatformClient.js"
export type { PlatformBody } from "./service/PlatformRequests.js"
export type { Operation, PlatformOperation, TokenOperation } from "./config/Operations.js"
export { TokenClient } from "./service/TokenClient.js"
export * as Schemas from "./service/schema/index.js"

// ---- Settings, environment, warehouse ------------------------------------------------------
export { Settings } from "./config/Settings.js"
export { decodeSettings, DEFAULT_CONFIG, DEFAULT_CONFIGS, INIT_CONFIG, loadSettings, settingsFile } from "./config/loadSettings.js"
export { type EnvironmentOptions, makeEnvironment } from "./wiring/Environment.js"
export { Warehouse, type WarehouseOptions as WarehouseFileOptions } from "./load/Warehouse.js"

// ---- Errors --------------------------------------------------------------------------------
export { ExitCode, exitCodeOf, InvalidInput, RunFailed } from "./pipeline/RunError.js"
export {
  AuthenticationFailed,
  BudgetExhausted,
  PaymentRequired,
  PlatformProblem,
  TokenProblem,
  TransportError
} from "./service/ServiceError.js"
export { WarehouseError } from "./load/WarehouseError.js"

// ---- Sandbox (offline work, tests) ---------------------------------------------------------
export { Sandbox, SandboxError, type SandboxHandle, startSandbox } from "./sandbox/Sandbox.js"
export type { SandboxOptions } from "./sandbox/SandboxConfig.js"
export { SANDBOX_API_KEY, SANDBOX_USER } from "./sandbox/Credentials.js"
