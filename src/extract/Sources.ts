/**
 * Source constructors: a plain paged source (one slice), a fan-out over keys (one slice per key,
 * fetched concurrently), and a fan-out whose keys are read from an earlier table.
 */
import { Context, Effect } from "effect"
import type { Pager, Slice, Source } from "./Source.js"

/** One slice walked by one pager (a single call, offset pages or a cursor). */
export const paged = <P, R, E, Ctx>(pager: (params: P) => Pager<any, R, E, Ctx>): Source<P, R, E, Ctx> => ({
  slices: (params) => Effect.succeed([{ key: "*", pager: pager(params) }]),
  concurrency: 1
})

/**
 * A fan-out: one slice per key (location id, place, target...), `concurrency` at a time.
 * `key` names a slice in checkpoints and decides its shard, so it must be stable across runs.
 */
export const fanOut = <P, K, R, E, Ctx, E2 = never, Ctx2 = never>(options: {
  readonly keys: (params: P) => Effect.Effect<ReadonlyArray<K>, E2, Ctx2> | ReadonlyArray<K>
  readonly key: (k: K) => string
  readonly pager: (k: K, params: P) => Pager<any, R, E, Ctx>
  readonly concurrency: number | ((params: P) => number)
  /**
   * Keys the service does not know (404) are data: each lands a `_missing` row (plus the records
   * `missing(k)` returns, if a function is given) and the run goes on. Off by default.
   */
  readonly missing?: true | ((k: K) => ReadonlyArray<R>)
}): Source<P, R, E | E2, Ctx | Ctx2> => ({
  concurrency: options.concurrency,
  slices: (params) => {
    const keys = options.keys(params)
    return Effect.map(Effect.isEffect(keys) ? keys : Effect.succeed(keys), (ks) =>
      ks.map((k): Slice<R, E, Ctx> => ({
        key: options.key(k),
        pager: options.pager(k, params),
        ...(options.missing === undefined
          ? {}
          : { missing: typeof options.missing === "function" ? { records: () => (options.missing as (k: K) => ReadonlyArray<R>)(k) } : {} })
      }))
    )
  }
})

/** Which rows of a table give keys (all of them when empty); read by `load/KeyReads.ts`. */
export interface KeyFilter {
  /** Only rows whose column (the key) equals the value (text), for every entry. */
  readonly equals?: Readonly<Record<string, string>>
  /**
   * Only rows whose `column` is later than the start (`_runs.started_at`) of the last run of
   * `lastDoneRunOf` that ended `done`; every row while that pipeline has no done run. `column`
   * must be a TIMESTAMP this machine's clock wrote, as it wrote `_runs.started_at`: a table's
   * `extracted_at` (the run's start), an append table's `_extracted_at`, `_missing.at`. A
   * service's own time (an alert's `created_at`) is not comparable with it.
   */
  readonly since?: { readonly column: string; readonly lastDoneRunOf: string }
}

/** Which rows of a table give keys, and what a table that does not exist yet means. */
export interface KeyOptions extends KeyFilter {
  /**
   * A table that does not exist yet gives no keys, silently: it is not the source's input but
   * what it knows already (ids landed before). Default: the source's input, so a plan or a run
   * says which pipeline writes it first.
   */
  readonly optional?: boolean
}

/** Reads key values from a column of a table in the warehouse (a source fed by an earlier table). */
export class TableKeys extends Context.Tag("extract/TableKeys")<
  TableKeys,
  {
    readonly read: (table: string, column: string, options?: KeyOptions) => Effect.Effect<ReadonlyArray<string>, Error>
    /**
     * What each slice of `pipeline`'s last complete full pull took (no cap, no incremental read
     * or stop, no limit: `_full_pulls`; before one, its last done run whose slices all ended as the
     * service said), by slice key: what a full pull is planned at. Empty before any (and where the
     * warehouse cannot say).
     */
    readonly lastFullRead?: (pipeline: string) => Effect.Effect<ReadonlyMap<string, FullRead>, Error>
  }
>() {}

/** What a slice's last full read took: its pages, and the records they brought (repeats counted: they filled pages too). */
export interface FullRead {
  readonly pages: number
  readonly records: number
}

/**
 * The pipeline a plan is made for, given by the planner to its cost model: its own name, so a
 * pipeline derived from another (`new pipeline --from`) is priced by its own runs, not its base's.
 */
export class Planning extends Context.Tag("extract/Planning")<Planning, { readonly pipeline: string }>() {}

/**
 * Keys for a fan-out from `table.column` (distinct, ordered), of the rows `options` keeps: e.g.
 * `{ since: { column: "extracted_at", lastDoneRunOf: "properties-changed" } }` reads only the rows
 * landed since that pipeline's last done run (see `KeyFilter`).
 */
export const keysFromTable = (
  table: string,
  column: string,
  options?: KeyOptions
): Effect.Effect<ReadonlyArray<string>, Error, TableKeys> => Effect.flatMap(TableKeys, (t) => t.read(table, column, options))

/**
 * The slice keys of `pipeline` that hold a position from an earlier run (`_checkpoints`): where an
 * incremental read (see `Incremental.ts`) reads less, for its plan. None on a new warehouse or
 * after `--full-refresh`.
 */
export const slicesReadBefore = (pipeline: string): Effect.Effect<ReadonlySet<string>, Error, TableKeys> =>
  Effect.map(keysFromTable("_checkpoints", "key", { equals: { pipeline }, optional: true }), (keys) => new Set(keys))

/** The planned pipeline's slice keys that hold a position from an earlier run (`slicesReadBefore` of `Planning`'s pipeline). */
export const plannedSlicesReadBefore: Effect.Effect<ReadonlySet<string>, Error, TableKeys | Planning> = Effect.flatMap(Planning, (p) =>
  slicesReadBefore(p.pipeline)
)

/**
 * The pages a slice's last full read comes to in pages of `pageSize`. Pages no larger than the
 * read's own (its records over its pages, rounded up: no more than the page size it asked for,
 * nor than a page the service held to) come to its records over `pageSize`; larger pages, to at
 * most its own pages (a service may hold pages to a size it does not tell). Without a page size,
 * its own pages.
 */
export const pagesAt = (read: FullRead, pageSize: number | undefined): number => {
  if (pageSize === undefined || read.records <= 0) return read.pages
  const perPage = Math.ceil(read.records / Math.max(1, read.pages))
  return pageSize < perPage ? Math.ceil(read.records / pageSize) : read.pages
}

/**
 * A full pull's pages as the planned pipeline's last full read took them (in pages of
 * `pageSize` when given: `pagesAt`), per slice key: at most `maxPages` a slice when the user
 * bounds them; a slice never read in full counts `maxPages`, or one page without a bound (its
 * first page's count says the rest). For plans of pipelines that read until the service says the
 * end (no page bound by default).
 */
export const fullReadPlan = (
  slices: ReadonlyArray<string>,
  bounds: { readonly maxPages?: number | undefined; readonly pageSize?: number | undefined } = {}
): Effect.Effect<{ readonly pages: number; readonly known: number }, Error, TableKeys | Planning> =>
  Effect.flatMap(Effect.all([TableKeys, Planning]), ([t, planning]) =>
    Effect.map(t.lastFullRead ? t.lastFullRead(planning.pipeline) : Effect.succeed(new Map<string, FullRead>()), (last) => {
      const { maxPages, pageSize } = bounds
      let pages = 0
      let known = 0
      for (const s of slices) {
        const read = last.get(s)
        if (read !== undefined) known++
        pages += read === undefined ? (maxPages ?? 1) : Math.min(pagesAt(read, pageSize), maxPages ?? Infinity)
      }
      return { pages, known }
    })
  )

/** "1 page of 50", "3 pages of 50": a plan note's page count. */
export const pagesOf = (pages: number, size: number): string => `${pages} ${pages === 1 ? "page" : "pages"} of ${size}`

/** Splits a list in batches of at most `size` (match-by-listings: 100; time series groups: 10). */
export const batches = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
