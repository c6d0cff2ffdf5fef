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
 * Whether more remain after `nextOffset`, by the service's signals. Without a count and without a
 * next link a short page proves nothing (a service may cap its pages below `limit` and say
 * nothing), so the slice reads on until an empty page: one call more than needed, the price of
 * knowing it is complete.
 */
const moreAfter = (fetched: Fetched<unknown>, nextOffset: number): boolean => {
  if (fetched.total !== undefined) return nextOffset < fetched.total
  if (fetched.next !== undefined) return fetched.next !== null
  return fetched.records.length > 0
}

const stalled = (detail: string): SliceEnd => ({ kind: "stalled", detail })

export interface OffsetPosition {
  readonly offset: number
  /** Pages read so far in this slice. */
  readonly pages?: number
}

/** Offset pages of (at most) `limit`, walked as the service's answers say (see the header). */
export const offset = <R, E, Ctx>(options: {
  readonly limit: number
  /** The user's bound on pages read (`maxPages`): reaching it while more remain is a `cap`. */
  readonly maxPages?: number
  /** The service's deepest offset (e.g. 50,000): reaching it while more remain is a `limit`. */
  readonly maxOffset?: number
  readonly fetch: (page: { offset: number; limit: number }) => Effect.Effect<Fetched<R>, E, Ctx>
}): Pager<OffsetPosition, R, E, Ctx> => ({
  start: () => ({ offset: 0, pages: 0 }),
  fetch: (pos) =>
    Effect.map(options.fetch({ offset: pos.offset, limit: options.limit }), (fetched): PagerStep<OffsetPosition, R> => {
      const pages = (pos.pages ?? 0) + 1
      const declared = fetched.total
      const got = advanceOf(fetched)
      if (got === 0) {
        const short = declared !== undefined && pos.offset < declared
        return {
          fetched,
          next: pos,
          done: true,
          declared,
          ...(short ? { end: stalled(`an empty page at offset ${pos.offset} while the count says ${declared}`) } : {})
        }
      }
      const next = { offset: pos.offset + got, pages }
      const more = moreAfter(fetched, next.offset)
      if (!more) return { fetched, next, done: true, declared }
      if (options.maxPages !== undefined && pages >= options.maxPages) {
        return { fetched, next, done: true, declared, end: { kind: "cap", detail: `maxPages ${options.maxPages}` } }
      }
      if (options.maxOffset !== undefined && next.offset > options.maxOffset) {
        return { fetched, next, done: true, declared, end: { kind: "limit", detail: `the service's offset limit ${options.maxOffset}` } }
      }
      return { fetched, next, done: false, declared }
    })
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
  readonly maxPages?: number
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
  const step = (pos: WindowPosition): Effect.Effect<PagerStep<WindowPosition, R>, E, Ctx> => {
    const [window, ...rest] = pos.windows
    if (window === undefined) return Effect.succeed({ fetched: emptyPage, next: pos, done: true, declared: pos.declared })
    return Effect.flatMap(
      options.fetch({ from: window[0], to: window[1], offset: pos.offset, limit: options.limit }),
      (fetched): Effect.Effect<PagerStep<WindowPosition, R>, E, Ctx> => {
        const splittable = Date.parse(window[1]) - Date.parse(window[0]) >= 2000
        // a service may send fewer than `limit` a page: the split is judged by what it sends
        const size = Math.max(1, Math.min(options.limit, advanceOf(fetched)))
        if (pos.offset === 0 && !fits(fetched.total, size) && splittable) {
          return step({ ...pos, windows: [...halves(window), ...rest] })
        }
        let watermark = pos.watermark
        for (const r of fetched.records) watermark = later(watermark, options.stampOf(r))
        const declared = pos.offset === 0 && fetched.total !== undefined ? (pos.declared ?? 0) + fetched.total : pos.declared
        const got = advanceOf(fetched)
        const nextOffset = pos.offset + got
        const windowDone: WindowPosition = { windows: rest, offset: 0, watermark, ...(declared !== undefined ? { declared } : {}) }
        if (got === 0) {
          // the window's own count (this page's total) says whether an empty page is early
          const short = fetched.total !== undefined && pos.offset < fetched.total
          if (short) {
            return Effect.succeed({
              fetched,
              next: pos,
              done: true,
              declared,
              end: stalled(
                `an empty page at offset ${pos.offset} of window [${window[0]}, ${window[1]}) while the count says ${fetched.total}`
              )
            })
          }
          return Effect.succeed({ fetched, next: windowDone, done: rest.length === 0, declared })
        }
        const more = moreAfter(fetched, nextOffset)
        if (more && nextOffset > options.maxOffset) {
          return Effect.succeed({
            fetched,
            next: windowDone,
            done: true,
            declared,
            end: { kind: "limit", detail: `the service's offset limit ${options.maxOffset} in window [${window[0]}, ${window[1]})` }
          })
        }
        const next: WindowPosition = more
          ? { ...pos, offset: nextOffset, watermark, ...(declared !== undefined ? { declared } : {}) }
          : windowDone
        return Effect.succeed({ fetched, next, done: next.windows.length === 0, declared })
      }
    )
  }
  return {
    incremental: true,
    start: (previous) => {
      const mark = previous?.watermark ?? options.initialFrom
      const from = previous === undefined ? seconds(Date.parse(mark)) : seconds(Date.parse(mark) - options.overlapMs)
      const to = seconds(Date.parse(options.now()))
      return { windows: Date.parse(to) > Date.parse(from) ? [[from, to]] : [], offset: 0, watermark: mark, declared: 0 }
    },
    fetch: step
  }
}
