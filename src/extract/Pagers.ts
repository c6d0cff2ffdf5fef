/**
 * The pager shapes the spec's operations need: a single call, offset pages, cursor pages that
 * follow `next`, and time windows for incremental feeds (split so no read needs an offset past a
 * cap).
 *
 * Every pager trusts the service's signals over its own request: offset pages advance by what
 * came back (`returned`, else the records' length), go on while the declared `count` says more
 * remain, and end on an empty page, at `count`, or at a cap; cursor pages follow `next` whatever
 * a page's length. A short page ends a slice only when the response carries neither a count nor a
 * next link (the spec never says a page holds `limit` results), and then only once an empty page
 * confirms it (a capped page proves nothing). A page that makes no progress
 * ends its slice as `stalled`, never a loop.
 */
import { Effect } from "effect"
import { pagingPolicy, type PagingPolicyShape } from "./PagingPolicy.js"
import type { Fetched, Pager, PagerStep, SliceEnd } from "./Source.js"

/** One call, no paging. */
export const single = <R, E, Ctx>(fetch: () => Effect.Effect<Fetched<R>, E, Ctx>): Pager<{}, R, E, Ctx> => ({
  start: () => ({}),
  fetch: (pos) => Effect.map(fetch(), (fetched) => ({ fetched, next: pos, done: true, declared: fetched.total }))
})

/** How far a page moved an offset: the service's `returned` when it says so, else what came. */
export const advanceOf = (fetched: Fetched<unknown>): number =>
  typeof fetched.returned === "number" && Number.isFinite(fetched.returned) && fetched.returned > 0
    ? fetched.returned
    : fetched.records.length

/**
 * Whether more remain after a page, by the service's signals: its count (compared with how far
 * the slice has read), else its next link, else whether the page held anything. Without a count
 * and without a next link a short page proves nothing (a service may cap its pages below `limit`
 * and say nothing), so the slice reads on until an empty page: one call more than needed, the
 * price of knowing it is complete.
 */
const moreAfter = (fetched: Fetched<unknown>, read: number): boolean => {
  if (fetched.total !== undefined) return read < fetched.total
  if (fetched.next !== undefined) return fetched.next !== null
  return fetched.records.length > 0
}

const stalled = (detail: string): SliceEnd => ({ kind: "stalled", detail })

/** How to split a query the service will not page through, for the end's line. */
const SPLIT_ADVICE = "narrow the query (by place, price, type or date) into parts that each hold fewer records"

/**
 * A paged list walked by offsets, or by the service's own `next` links when its answers carry
 * them (then offsets only count what was read). Shared by the offset and window pagers.
 */
interface ListWalk {
  /** Records read so far (the next offset while the service gives no links). */
  readonly offset: number
  /** The service's next link to follow; absent: compute the offset. */
  readonly next?: string | undefined
  /** The count the last page declared: a drop says records left the list while it was read. */
  readonly declared?: number | undefined
  /** Paid pages read again to repair a list that shifted. */
  readonly rereads?: number | undefined
  /** The page at this position reads records again on purpose (see `PagerStep.reread`). */
  readonly rereading?: boolean | undefined
  /** After a repair: the position up to which the list was read before it (pages below it are re-reads). */
  readonly rereadUntil?: number | undefined
}

/**
 * Unpaid re-reads a slice may make to repair a list that keeps shifting (a bound, so a list that
 * changes on every read still ends). Assumed: a few removals during one read, never hundreds.
 */
const FREE_REREADS = 100

/** Whether the list's count dropped since the last page (records left it while it was read). */
const shrank = (walk: ListWalk, fetched: Fetched<unknown>) =>
  walk.declared !== undefined && fetched.total !== undefined && fetched.total < walk.declared

/** What a page says about where its list goes on (see `ListWalk`). */
const walkOn = (
  walk: ListWalk,
  fetched: Fetched<unknown>,
  options: { readonly follow: boolean; readonly paidRereads: number }
): { readonly next: ListWalk; readonly more: boolean; readonly shifted?: SliceEnd | undefined } => {
  const got = advanceOf(fetched)
  const declared = fetched.total
  const link = options.follow && typeof fetched.next === "string" ? fetched.next : undefined
  const offset = walk.offset + got
  const base = { offset, ...(declared !== undefined ? { declared } : {}), ...(walk.rereads ? { rereads: walk.rereads } : {}) }
  // The count dropped since the last page: records before this page may have left the list and
  // shifted unread ones to before this page's position. Read again by offset from `removed`
  // records before this page (the records read twice merge by their keys); links, if the service
  // gives them, are followed again from the page after.
  if (shrank(walk, fetched)) {
    const removed = walk.declared! - declared!
    const paid = fetched.units > 0
    const rereads = (walk.rereads ?? 0) + 1
    const from = Math.max(0, offset - got - removed)
    if (rereads > (paid ? options.paidRereads : FREE_REREADS)) {
      return {
        next: base,
        more: false,
        shifted: {
          kind: "shifted",
          detail:
            `the list shrank from ${walk.declared} to ${declared} records while it was read (records left it between pages), ` +
            `and repairing it would read more than ${paid ? `${options.paidRereads} paid page(s) again (budget.paidRereads)` : `${FREE_REREADS} pages again`}; rerun later`
        }
      }
    }
    return { next: { offset: from, declared, rereads, rereading: true, rereadUntil: offset }, more: true }
  }
  const more = moreAfter(fetched, offset)
  // pages that start before the position read before a repair read known records on purpose
  const still = walk.rereadUntil !== undefined && offset < walk.rereadUntil ? { rereading: true, rereadUntil: walk.rereadUntil } : {}
  const next = { ...base, ...still }
  return { next: link !== undefined ? { ...next, next: link } : next, more }
}

export interface OffsetPosition extends ListWalk {
  /** Pages read so far in this slice. */
  readonly pages?: number
}

/**
 * Offset pages of (at most) `limit`, walked as the service's answers say (see the header). When an
 * answer carries a next link and `follow` is given, the slice follows the link instead of
 * computing the next offset: a service that pages by links (and ignores `offset`) is read as it
 * pages. A count that drops between pages (records left the list) is repaired by reading again
 * from before the shift, within `paidRereads` paid pages (`PagingPolicy`).
 */
export const offset = <R, E, Ctx>(options: {
  readonly limit: number
  /** The user's bound on pages read (`maxPages`): reaching it while more remain is a `cap`. */
  readonly maxPages?: number | undefined
  /** The service's deepest offset (e.g. 50,000): reaching it while more remain is a `limit`. */
  readonly maxOffset?: number
  readonly fetch: (page: { offset: number; limit: number }) => Effect.Effect<Fetched<R>, E, Ctx>
  /** Fetches the page a next link names (GET it, or the same request sent to it: the client's choice). */
  readonly follow?: ((next: string) => Effect.Effect<Fetched<R>, E, Ctx>) | undefined
}): Pager<OffsetPosition, R, E, Ctx> => ({
  start: () => ({ offset: 0, pages: 0 }),
  fetch: (pos) =>
    Effect.flatMap(pagingPolicy, (policy) =>
      Effect.map(
        pos.next !== undefined && options.follow ? options.follow(pos.next) : options.fetch({ offset: pos.offset, limit: options.limit }),
        (fetched): PagerStep<OffsetPosition, R> => {
          const pages = (pos.pages ?? 0) + 1
          const declared = fetched.total
          const reread = pos.rereading === true
          const same = { declared, ...(reread ? { reread } : {}) }
          // an empty page of a list that shrank is a shift to repair, not the end
          if (advanceOf(fetched) === 0 && !shrank(pos, fetched)) {
            const short = declared !== undefined && pos.offset < declared
            return {
              fetched,
              next: pos,
              done: true,
              ...same,
              ...(short ? { end: stalled(`an empty page at offset ${pos.offset} while the count says ${declared}`) } : {})
            }
          }
          const walked = walkOn(pos, fetched, { follow: options.follow !== undefined, paidRereads: policy.paidRereads })
          const next: OffsetPosition = { ...walked.next, pages }
          if (walked.shifted) return { fetched, next, done: true, ...same, end: walked.shifted }
          if (!walked.more) return { fetched, next, done: true, ...same }
          if (options.maxPages !== undefined && pages >= options.maxPages) {
            return { fetched, next, done: true, ...same, end: { kind: "cap", detail: `maxPages ${options.maxPages}` } }
          }
          if (next.next === undefined && options.maxOffset !== undefined && next.offset > options.maxOffset) {
            return {
              fetched,
              next,
              done: true,
              ...same,
              end: { kind: "limit", detail: `the service's offset limit ${options.maxOffset}; ${SPLIT_ADVICE}` }
            }
          }
          return { fetched, next, done: false, ...same }
        }
      )
    )
})

export interface CursorPosition {
  /** `null` before the first page; then the `next` URL the service returned. */
  readonly next: string | null
  /** Pages read so far in this slice. */
  readonly pages?: number
  /** Records received so far in this slice (to tell an empty page that makes no progress). */
  readonly received?: number
  /** Empty pages in a row (a service that keeps sending empty pages with a next link). */
  readonly empties?: number
  /** What the first page handed on to the later ones (`CursorPage.context`). */
  readonly context?: unknown
}

/**
 * Empty pages in a row, each with a next link and no count, before a cursor slice counts as
 * stalled. Assumed: a service may send an empty page now and then (filtered results), never three.
 */
const MAX_EMPTY_PAGES = 3

/** A cursor page; `context` (first page only) is carried to every later page of the slice. */
type CursorPage<R> = Fetched<R> & { readonly context?: unknown }

/**
 * Cursor pages: a first call, then each `next` URL until there is none (or `maxPages` are read).
 * What the first page returns as `context` (a search id, the phrases it applied) is kept in the
 * position and handed to `follow`, so cursor pages can carry it to their records.
 */
export const cursor = <R, E, Ctx>(options: {
  readonly first: () => Effect.Effect<CursorPage<R>, E, Ctx>
  readonly follow: (next: string, context: unknown) => Effect.Effect<CursorPage<R>, E, Ctx>
  /** The user's bound on pages read: reaching it while a next link remains is a `cap`. */
  readonly maxPages?: number | undefined
}): Pager<CursorPosition, R, E, Ctx> => ({
  start: () => ({ next: null, pages: 0, received: 0, empties: 0 }),
  fetch: (pos) =>
    Effect.map(pos.next === null ? options.first() : options.follow(pos.next, pos.context), (page): PagerStep<CursorPosition, R> => {
      const pages = (pos.pages ?? 0) + 1
      const received = (pos.received ?? 0) + page.records.length
      const declared = page.total
      const empties = page.records.length === 0 ? (pos.empties ?? 0) + 1 : 0
      const context = pos.next === null ? page.context : pos.context
      const next: CursorPosition = { next: page.next ?? null, pages, received, empties, ...(context !== undefined ? { context } : {}) }
      if (!page.next) return { fetched: page, next, done: true, declared }
      if (page.next === pos.next) {
        return { fetched: page, next: pos, done: true, declared, end: stalled("the service returned the same cursor again") }
      }
      if (page.records.length === 0) {
        if (declared !== undefined && received >= declared) return { fetched: page, next, done: true, declared }
        if (declared !== undefined || empties >= MAX_EMPTY_PAGES) {
          return {
            fetched: page,
            next: pos,
            done: true,
            declared,
            end: stalled(
              declared !== undefined
                ? `an empty page while the count says ${declared} and ${received} came`
                : `${empties} empty pages in a row, each with a next link`
            )
          }
        }
      }
      if (options.maxPages !== undefined && pages >= options.maxPages) {
        return { fetched: page, next, done: true, declared, end: { kind: "cap", detail: `maxPages ${options.maxPages}` } }
      }
      return { fetched: page, next, done: false, declared }
    })
})

export interface WindowPosition {
  /** Windows still to read, oldest first, as [from, to) ISO instants. */
  readonly windows: ReadonlyArray<readonly [string, string]>
  readonly offset: number
  /**
   * The newest record time landed so far (the incremental source's own time, e.g. an alert's
   * `created_at`): where the next run starts, less an overlap. Never this machine's clock.
   */
  readonly watermark: string
  /** Records the service declared for the windows read so far in this run. */
  readonly declared?: number
  /** Within the current window: the service's next link, its last count, re-reads (see `ListWalk`). */
  readonly next?: string | undefined
  readonly windowCount?: number | undefined
  readonly rereads?: number | undefined
  readonly rereading?: boolean | undefined
  readonly rereadUntil?: number | undefined
}

const emptyPage: Fetched<never> = { records: [], raw: "", units: 0, charges: [], empty: true }

/** An ISO instant at whole seconds (the spec's date-times have no fraction). */
const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString()
const later = (a: string, b: string | undefined) => (b !== undefined && Date.parse(b) > Date.parse(a) ? seconds(Date.parse(b)) : a)

/**
 * Incremental time windows. A run reads [watermark - overlap, now); a window whose count would
 * need an offset past `maxOffset` is split in halves (to whole seconds) until each fits. The
 * watermark is the newest record time landed (`stampOf`), so a client clock ahead of or behind
 * the service's skips nothing; records read again in the overlap merge by their key.
 */
export const windows = <R, E, Ctx>(options: {
  readonly limit: number
  readonly maxOffset: number
  /** Where the very first run starts (ISO instant). */
  readonly initialFrom: string
  /** How far before the watermark the next run starts again (late rows, clock skew), ms. */
  readonly overlapMs: number
  /** The end of this run's range, read once when the slice starts (a resume reads the same range). */
  readonly now: () => string
  /** A record's own time (ISO, UTC), which advances the watermark. */
  readonly stampOf: (record: R) => string | undefined
  readonly fetch: (page: { from: string; to: string; offset: number; limit: number }) => Effect.Effect<Fetched<R>, E, Ctx>
  /** Fetches the page a next link names: within a window the service's links are followed when its answers carry them. */
  readonly follow?: ((next: string) => Effect.Effect<Fetched<R>, E, Ctx>) | undefined
}): Pager<WindowPosition, R, E, Ctx> => {
  /** Whether a window of `total` records can be read without an offset past the cap, in pages of `size` (what the service sends). */
  const fits = (total: number | undefined, size: number) => total === undefined || total <= options.maxOffset + size
  const halves = ([from, to]: readonly [string, string]): Array<readonly [string, string]> => {
    const a = Date.parse(from)
    const mid = seconds(a + Math.floor((Date.parse(to) - a) / 2000) * 1000)
    return [
      [from, mid],
      [mid, to]
    ]
  }
  const step = (pos: WindowPosition, policy: PagingPolicyShape): Effect.Effect<PagerStep<WindowPosition, R>, E, Ctx> => {
    const [window, ...rest] = pos.windows
    if (window === undefined) return Effect.succeed({ fetched: emptyPage, next: pos, done: true, declared: pos.declared })
    const request =
      pos.next !== undefined && options.follow
        ? options.follow(pos.next)
        : options.fetch({ from: window[0], to: window[1], offset: pos.offset, limit: options.limit })
    return Effect.flatMap(request, (fetched): Effect.Effect<PagerStep<WindowPosition, R>, E, Ctx> => {
      const splittable = Date.parse(window[1]) - Date.parse(window[0]) >= 2000
      // a service may send fewer than `limit` a page: the split is judged by what it sends
      const size = Math.max(1, Math.min(options.limit, advanceOf(fetched)))
      if (pos.offset === 0 && pos.next === undefined && !fits(fetched.total, size) && splittable) {
        return step({ ...pos, windows: [...halves(window), ...rest] }, policy)
      }
      let watermark = pos.watermark
      for (const r of fetched.records) watermark = later(watermark, options.stampOf(r))
      const first = pos.offset === 0 && pos.next === undefined && pos.windowCount === undefined
      const declared = first && fetched.total !== undefined ? (pos.declared ?? 0) + fetched.total : pos.declared
      const reread = pos.rereading === true
      const same = { declared, ...(reread ? { reread } : {}) }
      const windowDone: WindowPosition = { windows: rest, offset: 0, watermark, ...(declared !== undefined ? { declared } : {}) }
      if (advanceOf(fetched) === 0 && !shrank({ offset: pos.offset, declared: pos.windowCount }, fetched)) {
        // the window's own count (this page's total) says whether an empty page is early
        const short = fetched.total !== undefined && pos.offset < fetched.total
        if (short) {
          return Effect.succeed({
            fetched,
            next: pos,
            done: true,
            ...same,
            end: stalled(
              `an empty page at offset ${pos.offset} of window [${window[0]}, ${window[1]}) while the count says ${fetched.total}`
            )
          })
        }
        return Effect.succeed({ fetched, next: windowDone, done: rest.length === 0, ...same })
      }
      const walked = walkOn(
        { offset: pos.offset, next: pos.next, declared: pos.windowCount, rereads: pos.rereads, rereadUntil: pos.rereadUntil },
        fetched,
        {
          follow: options.follow !== undefined,
          paidRereads: policy.paidRereads
        }
      )
      if (walked.shifted) return Effect.succeed({ fetched, next: windowDone, done: true, ...same, end: walked.shifted })
      if (walked.more && walked.next.next === undefined && walked.next.offset > options.maxOffset) {
        return Effect.succeed({
          fetched,
          next: windowDone,
          done: true,
          ...same,
          end: {
            kind: "limit",
            detail: `the service's offset limit ${options.maxOffset} in window [${window[0]}, ${window[1]}); ${SPLIT_ADVICE}`
          }
        })
      }
      const w = walked.next
      const next: WindowPosition = walked.more
        ? {
            windows: pos.windows,
            offset: w.offset,
            watermark,
            ...(declared !== undefined ? { declared } : {}),
            ...(w.next !== undefined ? { next: w.next } : {}),
            ...(w.declared !== undefined ? { windowCount: w.declared } : {}),
            ...(w.rereads ? { rereads: w.rereads } : {}),
            ...(w.rereading ? { rereading: true } : {}),
            ...(w.rereadUntil !== undefined ? { rereadUntil: w.rereadUntil } : {})
          }
        : windowDone
      return Effect.succeed({ fetched, next, done: next.windows.length === 0, ...same })
    })
  }
  return {
    incremental: true,
    start: (previous) => {
      const mark = previous?.watermark ?? options.initialFrom
      const from = previous === undefined ? seconds(Date.parse(mark)) : seconds(Date.parse(mark) - options.overlapMs)
      const to = seconds(Date.parse(options.now()))
      return { windows: Date.parse(to) > Date.parse(from) ? [[from, to]] : [], offset: 0, watermark: mark, declared: 0 }
    },
    fetch: (pos) => Effect.flatMap(pagingPolicy, (policy) => step(pos, policy))
  }
}
