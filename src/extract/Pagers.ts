/**
 * The pager shapes the spec's operations need: a single call, offset pages, cursor pages that
 * follow `next`, and time windows for incremental feeds (split so no read needs an offset past a cap).
 */
import { Effect } from "effect"
import type { Fetched, Pager, PagerStep } from "./Source.js"

/** One call, no paging. */
export const single = <R, E, Ctx>(fetch: () => Effect.Effect<Fetched<R>, E, Ctx>): Pager<{}, R, E, Ctx> => ({
  start: () => ({}),
  fetch: (pos) => Effect.map(fetch(), (fetched) => ({ fetched, next: pos, done: true }))
})

export interface OffsetPosition {
  readonly offset: number
}

/** Offset pages of `limit`: stops on a short page, when `total` is reached, or past `maxOffset`. */
export const offset = <R, E, Ctx>(options: {
  readonly limit: number
  readonly maxOffset?: number
  readonly fetch: (page: { offset: number; limit: number }) => Effect.Effect<Fetched<R>, E, Ctx>
}): Pager<OffsetPosition, R, E, Ctx> => ({
  start: () => ({ offset: 0 }),
  fetch: (pos) =>
    Effect.map(options.fetch({ offset: pos.offset, limit: options.limit }), (fetched) => {
      const next = pos.offset + options.limit
      const done = fetched.records.length < options.limit ||
        (fetched.total !== undefined && next >= fetched.total) ||
        (options.maxOffset !== undefined && next > options.maxOffset)
      return { fetched, next: { offset: next }, done }
    })
})

export interface CursorPosition {
  /** `null` before the first page; then the `next` URL the service returned. */
  readonly next: string | null
  /** Pages read so far in this slice. */
  readonly pages?: number
}

/** Cursor pages: a first call, then each `next` URL until there is none (or `maxPages` are read). */
export const cursor = <R, E, Ctx>(options: {
  readonly first: () => Effect.Effect<Fetched<R> & { readonly next: string | null }, E, Ctx>
  readonly follow: (next: string) => Effect.Effect<Fetched<R> & { readonly next: string | null }, E, Ctx>
  readonly maxPages?: number
}): Pager<CursorPosition, R, E, Ctx> => ({
  start: () => ({ next: null, pages: 0 }),
  fetch: (pos) =>
    Effect.map(pos.next === null ? options.first() : options.follow(pos.next), (page) => {
      const pages = (pos.pages ?? 0) + 1
      return {
        fetched: page,
        next: { next: page.next, pages },
        done: !page.next || (options.maxPages !== undefined && pages >= options.maxPages)
      }
    })
})

export interface WindowPosition {
  /** Windows still to read, oldest first, as [from, to) ISO instants. */
  readonly windows: ReadonlyArray<readonly [string, string]>
  readonly offset: number
  /** The end of the last window fully read: where the next run starts. */
  readonly watermark: string
}

const emptyPage: Fetched<never> = { records: [], raw: "", units: 0, charges: [], empty: true }

/**
 * Incremental time windows. A run reads [watermark, now); a window whose count would need an
 * offset past `maxOffset` is split in halves (to whole seconds) until each fits. The watermark
 * survives the run, so a rerun fetches only what is new.
 */
export const windows = <R, E, Ctx>(options: {
  readonly limit: number
  readonly maxOffset: number
  /** Where the very first run starts (ISO instant). */
  readonly initialFrom: string
  /** The end of this run's range, read once when the slice starts (a resume reads the same range). */
  readonly now: () => string
  readonly fetch: (page: { from: string; to: string; offset: number; limit: number }) => Effect.Effect<Fetched<R>, E, Ctx>
}): Pager<WindowPosition, R, E, Ctx> => {
  const fits = (total: number | undefined) => total === undefined || total <= options.maxOffset + options.limit
  const halves = ([from, to]: readonly [string, string]): Array<readonly [string, string]> => {
    const a = Date.parse(from)
    const mid = new Date(a + Math.floor((Date.parse(to) - a) / 2000) * 1000).toISOString()
    return [[from, mid], [mid, to]]
  }
  const step = (pos: WindowPosition): Effect.Effect<PagerStep<WindowPosition, R>, E, Ctx> => {
    const [window, ...rest] = pos.windows
    if (window === undefined) return Effect.succeed({ fetched: emptyPage, next: pos, done: true })
    return Effect.flatMap(
      options.fetch({ from: window[0], to: window[1], offset: pos.offset, limit: options.limit }),
      (fetched) => {
        const splittable = Date.parse(window[1]) - Date.parse(window[0]) >= 2000
        if (pos.offset === 0 && !fits(fetched.total) && splittable) {
          return step({ ...pos, windows: [...halves(window), ...rest] })
        }
        const nextOffset = pos.offset + options.limit
        const more = fetched.records.length === options.limit && nextOffset <= options.maxOffset &&
          (fetched.total === undefined || nextOffset < fetched.total)
        const next: WindowPosition = more
          ? { ...pos, offset: nextOffset }
          : { windows: rest, offset: 0, watermark: window[1] }
        return Effect.succeed({ fetched, next, done: next.windows.length === 0 })
      }
    )
  }
  return {
    incremental: true,
    start: (previous) => {
      const from = previous?.watermark ?? options.initialFrom
      const to = options.now()
      return { windows: Date.parse(to) > Date.parse(from) ? [[from, to]] : [], offset: 0, watermark: from }
    },
    fetch: step
  }
}
