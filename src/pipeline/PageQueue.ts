/**
 * The queue between the slices that fetch pages and the loader that lands them, as groups: a
 * slice adds its page to the open group (after the page journal has it) and may fetch the next
 * one at once; the loader takes the oldest full group, or else the open one, and lands it as one
 * transaction. While the loader commits, pages pile up in the open group, so the groups grow
 * exactly when commits are the bottleneck, up to `maxGroup` pages.
 *
 * The group is a staging group (`load/Stage.ts`): a page's rows go into DuckDB when it joins, so
 * the queue holds no rows. Adding a page is synchronous, so a group the loader takes never misses
 * half a page.
 *
 * `capacity` bounds the pages waiting and `capacityRows` their records (by `weight`): a slice whose
 * page finds the queue full waits (after its page is queued, so it waits holding nothing unsaved)
 * until the loader frees room. Both bounds, as a group's: many small pages (a fan-out of one
 * request per key) wait and land in the numbers their records allow, large pages in few.
 */
import { Duration, Effect, Option, Queue } from "effect"

export interface PageQueueOptions {
  /** Pages held before fetching slices wait. */
  readonly capacity: number
  /** Records (by the queue's `weight`) held before fetching slices wait. */
  readonly capacityRows: number
  /** Most pages landed in one transaction. */
  readonly maxGroup: number
  /**
   * Most records (by the queue's `weight`: the runner weighs a page by the records it brought, live
   * and replayed alike) landed in one transaction: a group closes at `maxGroup` pages or at this
   * many records, whichever comes first, so a transaction's memory does not grow with the pages'
   * size (a group of 7 pages of 500 alerts did not fit DuckDB's 80MB landing limit).
   */
  readonly maxGroupRows: number
  /**
   * How long the loader waits for the open group to fill before it lands it part full (ms). A
   * full group lands at once, and so does what is left when the queue closes.
   */
  readonly fillWaitMs: number
}

/** A group of queued pages (`open` makes an empty one). */
export interface PageGroup<A> {
  readonly pages: Array<A>
}

const END: unique symbol = Symbol("PageQueue.end")

/**
 * Splits `items` into groups of at most `maxGroup` items and, past the first item of a group,
 * at most `maxGroupRows` by `weight` (a replay of journaled pages lands in such groups).
 */
export const groupsOf = <A>(items: ReadonlyArray<A>, options: PageQueueOptions, weight: (a: A) => number): Array<Array<A>> => {
  const groups: Array<Array<A>> = []
  let rows = 0
  for (const item of items) {
    const last = groups[groups.length - 1]
    const w = weight(item)
    if (last && last.length < Math.max(1, options.maxGroup) && rows + w <= options.maxGroupRows) {
      last.push(item)
      rows += w
    } else {
      groups.push([item])
      rows = w
    }
  }
  return groups
}

export const makePageQueue = <A, G extends PageGroup<A>>(open: () => G, options: PageQueueOptions, weight: (a: A) => number = () => 0) =>
  Effect.gen(function* () {
    const arrivals = yield* Queue.unbounded<typeof END | undefined>()
    const room = yield* Effect.makeSemaphore(Math.max(1, options.capacity))
    const rowRoom = Math.max(1, options.capacityRows)
    const roomRows = yield* Effect.makeSemaphore(rowRoom)
    /** The records of a page as the queue's room counts them (a page larger than the room takes it all). */
    const held = (rows: number) => Math.min(Math.max(0, rows), rowRoom)
    const clock = yield* Effect.clock
    const full: Array<G> = []
    let current: G | undefined
    let currentRows = 0
    let openedAt = 0

    /** The group a page joins now (opened on first use). */
    const group = (): G => {
      if (current === undefined) {
        current = open()
        currentRows = 0
        openedAt = clock.unsafeCurrentTimeMillis()
      }
      return current
    }
    /** Adds `page` to `group()` now (no waiting: call it right after the page is journaled). */
    const put = (page: A) => {
      const g = group()
      g.pages.push(page)
      currentRows += weight(page)
      if (g.pages.length >= Math.max(1, options.maxGroup) || currentRows >= options.maxGroupRows) {
        full.push(g)
        current = undefined
      }
      arrivals.unsafeOffer(undefined)
    }
    /**
     * Waits until the queue has room for one more page of `rows` records (its `weight`; call it
     * after `put`, before fetching on).
     */
    const reserve = (rows: number) => Effect.zipRight(room.take(1), roomRows.take(held(rows)))
    /** No more pages are coming: the loader lands what is queued and returns. */
    const close = Queue.offer(arrivals, END)
    /** The groups not landed (to discard when the run stops early). */
    const left = (): ReadonlyArray<G> => [...full, ...(current ? [current] : [])]

    /** The oldest full group; else the open one once the queue closed or it waited `fillWaitMs`. */
    const next = (ended: boolean): G | undefined => {
      const g = full.shift()
      if (g !== undefined) return g
      if (current === undefined || current.pages.length === 0) return undefined
      if (!ended && clock.unsafeCurrentTimeMillis() - openedAt < options.fillWaitMs) return undefined
      const taken = current
      current = undefined
      return taken
    }

    /** Lands queued groups until `close`; a failed group ends it with the failure. */
    const drain = <E, R>(land: (group: G) => Effect.Effect<void, E, R>): Effect.Effect<void, E, R> =>
      Effect.gen(function* () {
        let ended = false
        while (true) {
          const g = next(ended)
          if (g !== undefined) {
            yield* land(g)
            yield* room.release(g.pages.length)
            yield* roomRows.release(g.pages.reduce((n, p) => n + held(weight(p)), 0))
            continue
          }
          if (ended) return
          const take = Queue.takeBetween(arrivals, 1, Number.MAX_SAFE_INTEGER)
          // an open group part full: wake when it has waited long enough, if nothing comes before
          const waiting = current !== undefined && current.pages.length > 0
          const signals = waiting
            ? Option.getOrElse(
                yield* Effect.timeoutTo(take, {
                  duration: Duration.millis(Math.max(0, options.fillWaitMs - (clock.unsafeCurrentTimeMillis() - openedAt))),
                  onSuccess: Option.some,
                  onTimeout: Option.none
                }),
                () => []
              )
            : yield* take
          for (const s of signals) if (s === END) ended = true
        }
      })

    return { group, put, reserve, close, left, drain } as const
  })
