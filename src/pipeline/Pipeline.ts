/**
 * The pipeline declaration: what a file under `pipelines/` exports. It says what to fetch (a
 * source), how its parameters are checked, what it costs, which tables it lands in by which keys,
 * and how a record becomes rows. No HTTP and no SQL: calls go through the typed host clients,
 * rows through the warehouse.
 */
import type { Effect, Schema } from "effect"
import type { Operation } from "../config/Operations.js"
import type { Source } from "../extract/Source.js"
import type { RecordMapping } from "../normalize/Normalizer.js"
import type { PageContext } from "../normalize/PageContext.js"
import type { TableSpec } from "../normalize/Table.js"
import type { Planning, TableKeys } from "../extract/Sources.js"
import type { PlatformClient } from "../service/PlatformClient.js"
import type { TokenClient } from "../service/TokenClient.js"

/** What a pipeline's source may use: the two host clients and keys read from earlier tables. */
export type PipelineServices = PlatformClient | TokenClient | TableKeys

/** What a page's rows may know about where they came from (defined with the normaliser). */
export type { PageContext }

/** What a plan expects a run to do, before anything paid is called. */
export interface PlanEstimate {
  readonly requests: number
  readonly pages: number
  /** Records expected, when a free count exists. */
  readonly records?: number | undefined
  /** Whether the figures are exact (known page counts) or an upper bound / estimate. */
  readonly exact: boolean
  readonly note?: string | undefined
  /**
   * Requests of a full pull, when this estimate is of an incremental read (a newest-first stop, a
   * read since the last one): `plan` shows what reading less saves. Absent: the same as `requests`.
   */
  readonly fullRequests?: number | undefined
}

/**
 * The cost model: which metered operation the pipeline's requests are, and how many requests a
 * run makes. Units come from the cost table (settings, or the operation's default).
 */
export interface CostModel<P, E, Ctx> {
  /**
   * The operation the pipeline's requests are, e.g. `plot_search`: a key of the cost table on the
   * platform host, a token operation otherwise (`config/Operations.ts`; a misspelt name does not
   * compile). Its pages and charges carry the operation the client's answer names.
   */
  readonly operation: Operation
  /**
   * May read the warehouse (`keysFromTable`, `plannedSlicesReadBefore`, `fullReadPlan`), e.g.
   * whether a read is incremental; `Planning` names the pipeline planned (its own, when derived).
   */
  readonly estimate: (
    params: P
  ) => Effect.Effect<Omit<PlanEstimate, "pages"> & { readonly pages?: number }, E | Error, Ctx | TableKeys | Planning>
}

export interface Pipeline<P = any, R = any, E = any, Ctx extends PipelineServices = PipelineServices, I = any> {
  /** CLI and table-prefix name, kebab-case (`plots-germany`). */
  readonly name: string
  readonly description: string
  /** Which host it reads; the platform host is metered. */
  readonly host: "platform" | "token"
  /** Parameters: a schema from the settings' JSON (defaults filled in by the schema). */
  readonly params: Schema.Schema<P, I>
  readonly source: Source<P, unknown, E, Ctx>
  readonly cost: CostModel<P, E, Ctx>
  readonly tables: ReadonlyArray<TableSpec>
  readonly records: RecordMapping<R, PageContext>
  /** Keep each page's raw body compressed for `reload`. Default: on for the platform host. */
  readonly archiveRaw?: boolean
  /**
   * The records of an archived raw body (for `reload`). Default: the body's `results` list, or the
   * body itself when it is a list.
   */
  readonly fromRaw?: (raw: string) => ReadonlyArray<unknown>
  /**
   * Why `reload` cannot rebuild this pipeline's records from raw bodies alone (they carry context
   * a body lacks: the slice's input, a search id from the first page); `reload` then refuses with
   * this reason instead of landing rejects. Default: reloadable.
   */
  readonly notReloadable?: string
  /** Whether `--shard i/n` splits this pipeline (fan-out or sliced sources). */
  readonly shardable?: boolean
  /**
   * A change-driven refresh names the pipeline whose full re-pull it stands in for (e.g.
   * `properties-changed` for `sourcing-search`): `plan` counts that pipeline's units as what the
   * refresh saves.
   */
  readonly standsInFor?: string
  /**
   * Pipelines whose landed rows this one reads (e.g. `properties-changed` reads what `alerts`
   * landed). In one command, a pipeline is not run when one of these ended without landing all
   * it read (failed, paused, incomplete, interrupted): it would pay for what it cannot know.
   */
  readonly readsFrom?: ReadonlyArray<string>
  /**
   * Top-level parameters that only choose the slices (points, places), each slice's key saying
   * which: left out of the scope whose records a complete full pull may close
   * (`pipeline/CloseScope.ts`), so adding a point does not keep the leads found before from
   * closing. Paging parameters (`pageSize`, `maxPages`, ...) are left out anyway.
   */
  readonly scopeIgnores?: ReadonlyArray<string>
}

/**
 * Marks a declaration made with `definePipeline`, so a module loaded from a user's repository
 * (`settings.pipelineModules`) is told from any other export. `Symbol.for`: the mark survives two
 * copies of this package and object spreads (`{ ...builtIn, name }`).
 */
export const PipelineMark: unique symbol = Symbol.for("estate-etl/Pipeline")

/**
 * What a declaration keeps as types beside `Pipeline`, for the library: its name, its tables
 * (typed when made by `flatTable.of`) and its main table.
 */
export interface PipelineTypes<N extends string, T extends ReadonlyArray<TableSpec>, M extends string> {
  readonly name: N
  readonly tables: T
  readonly records: { readonly table: M }
}

/** Declares a pipeline with its types checked (a copy of `pipeline` carrying `PipelineMark`). */
export const definePipeline = <
  P,
  R,
  E,
  Ctx extends PipelineServices,
  const N extends string,
  I,
  const T extends ReadonlyArray<TableSpec>,
  const M extends string
>(
  pipeline: Pipeline<P, R, E, Ctx, I> & PipelineTypes<N, T, M>
): Pipeline<P, R, E, Ctx, I> & PipelineTypes<N, T, M> =>
  ({ ...pipeline, [PipelineMark]: true }) as Pipeline<P, R, E, Ctx, I> & PipelineTypes<N, T, M>

/** Whether `u` was declared with `definePipeline` (by this copy of the package or another). */
export const isPipeline = (u: unknown): u is Pipeline =>
  typeof u === "object" && u !== null && (u as Record<symbol, unknown>)[PipelineMark] === true
