/**
 * The page record: what the walker (`Extract.ts`) yields for every page, and the one shape a
 * page keeps from the pager to the warehouse. Whoever handles it later adds to it by wrapping it,
 * never by copying its fields into a sibling type: the page journal numbers it in its run
 * (`load/PageJournal.ts`, `JournalEntry` = `{ seq, page, body }`), the loader stages its rows
 * beside it (`load/PageCommit.ts`, `StagedPage` = `{ entry, counts, rejects, ... }`), and the group
 * commit reads its bookkeeping (ledger, checkpoint, `_calls`, `_slices`, `_missing`) from it.
 */
import type { Attempts } from "../service/RetryBudget.js"
import type { Fetched, SliceEnd } from "./Source.js"

/** Where a slice stands after a page: its key (the slice's), its position, whether it is finished. */
export interface Checkpoint {
  readonly key: string
  readonly value: unknown
  readonly done: boolean
}

/** A fan-out key the service answered 404 for. */
export interface Missing {
  readonly key: string
  readonly status: number
  readonly requestId?: string | undefined
  readonly detail: string
}

export interface Page<R = unknown> {
  /** The slice's key (its checkpoint's key). */
  readonly slice: string
  /** Page number within the slice for this run (0-based). */
  readonly seq: number
  /** What the request brought: records, raw body, units and charges, the operation, the paid request. */
  readonly fetched: Fetched<R>
  readonly checkpoint: Checkpoint
  /** What the service declared the slice holds, as of this page. */
  readonly declared?: number | undefined
  /** Why the slice ended early, on its last page. */
  readonly end?: SliceEnd | undefined
  /** The slice's key is unknown to the service (a 404): a `_missing` row, not a failure. */
  readonly missing?: Missing | undefined
  /** The requests this page took, and how many of them were retries or answered 429. */
  readonly attempts: Attempts
  /**
   * When the page's fetch began (ISO) and how long it took, ms: every attempt, retry waits and
   * rate-limit waits included (`_calls`, what `trace` reads).
   */
  readonly timing?: { readonly startedAt: string; readonly ms: number } | undefined
  /**
   * Keys this page brought that its slice had not read before in this run (records without a
   * readable key count one each): what the slice's completeness counts, never rows.
   */
  readonly fresh: number
  /** The hashes of those keys (`SeenKeys.keyHash`), so a resume knows what the slice read. */
  readonly freshKeys?: Float64Array | undefined
}

/**
 * The page without its records and its body's text: what waits for its group once its rows are
 * staged and its body is kept as bytes (JS objects waiting there would grow V8's old space).
 */
export const withoutPayload = <R>(page: Page<R>): Page<R> => ({ ...page, fetched: { ...page.fetched, records: [], raw: "" } })

/** Whether the page ended its slice as a repeat (a `stalled` end): an answer not worth reusing. */
export const isStalled = (page: Page<unknown>): boolean => page.end?.kind === "stalled"
