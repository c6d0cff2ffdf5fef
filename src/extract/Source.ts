/**
 * Source declarations: what a pipeline pulls, as data. One interpreter (`Extract.ts`) turns a
 * source into a `Stream` of pages; a new source is a declaration, not new control flow.
 *
 * Every source is a set of *slices* (one for a single call or a plain paged source; one per key
 * for a fan-out), each walked by a *pager* whose position is a small JSON value. The position
 * after a committed page is that slice's checkpoint, so a crashed run resumes each slice where it
 * stopped and skips the slices that finished.
 */
import type { Effect } from "effect"
import type { PaidRequest } from "../service/PaidAnswers.js"

/** What one request brought back. */
export interface Fetched<R = unknown> {
  /** The records of the page (decoded later, per record, by the normaliser). */
  readonly records: ReadonlyArray<R>
  /** The raw response body, kept compressed in the raw archive for paid sources. */
  readonly raw: string
  /** Units the service charged for the call (0 on the token host). */
  readonly units: number
  /** Charges to enter in the ledger (request id, operation, units). */
  readonly charges: ReadonlyArray<Charge>
  /** Total matching records, when the service reports one (plans, progress and completeness). */
  readonly total?: number | undefined
  /**
   * Records the service says this page holds (`returned`), when it says so. Offset pagers advance
   * by it (else by `records.length`), never by the page size they asked for.
   */
  readonly returned?: number | undefined
  /**
   * The service's `next` link, when its body has the member (null: the member says there is no
   * more). Undefined: the body has no such member. A short page ends an offset slice only when
   * the body carries neither a count nor a next link.
   */
  readonly next?: string | null | undefined
  /** Whether the service answered "no content" (e.g. a time-series 204). */
  readonly empty?: boolean | undefined
  /**
   * Where `records` sits in `raw` (a dotted path, `ListPage.recordsAt`) when they are exactly the
   * value there: the page journal then keeps only the body and re-reads the records from it.
   */
  readonly recordsAt?: string | undefined
  /** The operation that answered (a page's line in errors and the raw archive). */
  readonly operation?: string | undefined
  /**
   * The paid request this page answers, canonically (`service/PaidAnswers.ts`): an archived answer
   * to the same request is reused instead of bought again while it is fresh.
   */
  readonly request?: PaidRequest | undefined
}

export type { PaidRequest }

export interface Charge {
  readonly requestId: string
  readonly operation: string
  readonly units: number
  readonly at: string
}

/**
 * Walks one slice: `fetch` gets the page at a position and says where the next one starts and
 * whether the slice is finished. The returned position is the slice's checkpoint.
 */
export interface Pager<S = unknown, R = unknown, E = unknown, Ctx = never> {
  /**
   * The position to start from. `previous` is this slice's position left by the last *finished*
   * run; incremental pagers (time windows) continue from it, the others start over.
   */
  readonly start: (previous: S | undefined) => S
  readonly fetch: (position: S) => Effect.Effect<PagerStep<S, R>, E, Ctx>
  /** Incremental pagers keep their last position across runs (a watermark). */
  readonly incremental?: boolean
  /**
   * Whether a read that ended at `position` (the slice's last checkpoint) read only part of what
   * the slice lists, by design (a read "since a date"). Such a read proves nothing about records
   * it did not bring, so the run closes no history rows (`load/HistoryClosing.ts`) and `plan`
   * does not take its pages for a full pull's. Undefined: a plain pager reads everything; an
   * `incremental` pager that does not say counts as partial.
   */
  readonly partial?: (position: S) => boolean
}

export interface PagerStep<S, R> {
  readonly fetched: Fetched<R>
  readonly next: S
  readonly done: boolean
  /**
   * What the service declared the slice holds, as of this page (its `count`; summed over the
   * windows of a windowed slice). Absent when the service declares nothing.
   */
  readonly declared?: number | undefined
  /** Why the slice ended before the service's signals said it was complete (see `SliceEnd`). */
  readonly end?: SliceEnd | undefined
  /**
   * This page read records again on purpose (a list that shifted while it was read is read again
   * from before the shift): bringing no new key is then no repeat.
   */
  readonly reread?: boolean | undefined
}

/**
 * A slice that ended early. `cap`: a limit the user set (`maxPages`): a shortfall (the run is
 * incomplete) unless the run is a sample (`--sample`, `sample: true`), then reported.
 * `caught-up`: an incremental read reached data it had landed before (newest-first
 * pages ending in records landed before): reported, not a failure; the rest was landed by earlier
 * runs. `limit`: a limit of the service (the 50,000 offset cap, `page_depth_exceeded`): the run is
 * incomplete, with what was reachable landed. `stalled`: a page made no progress (a page of keys
 * read before, the same cursor again, an empty page while the count says more remain): the slice
 * stops at once, keeps its position for a resume, and the run is incomplete. `shifted`: the list
 * moved while it was read (its count changed) beyond what the slice may read again to repair it.
 */
export interface SliceEnd {
  readonly kind: SliceEndKind
  readonly detail: string
}

export type SliceEndKind = "cap" | "caught-up" | "limit" | "stalled" | "shifted"

/** One unit of work with its own checkpoint. `key` is stable across runs (used by `--shard`). */
export interface Slice<R = unknown, E = unknown, Ctx = never> {
  readonly key: string
  readonly pager: Pager<any, R, E, Ctx>
  /**
   * A key the service does not know (404) is data, not a failure: the slice ends with a `_missing`
   * row (and these records, if given) and the run goes on. Fan-outs over ids set this.
   */
  readonly missing?: { readonly records?: () => ReadonlyArray<R> } | undefined
}

/** A whole source for given parameters: its slices and how many run at once. */
export interface Source<P, R = unknown, E = unknown, Ctx = never> {
  readonly slices: (params: P) => Effect.Effect<ReadonlyArray<Slice<R, E, Ctx>>, E, Ctx>
  /** Slices fetched concurrently (fan-out width), fixed or from the parameters. Default 1. */
  readonly concurrency?: number | ((params: P) => number)
}
