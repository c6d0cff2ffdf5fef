/**
 * The queue between the slices that fetch pages and the loader that lands them. A slice puts its
 * page in (after the page journal has it) and may fetch the next one at once; the loader takes
 * whatever is waiting, up to `maxGroup` pages, and lands it as one transaction. While the loader
 * commits, pages pile up, so the groups grow exactly when commits are the bottleneck.
 *
 * `capacity` bounds the pages held in memory: a slice whose page finds the queue full waits
 * (after its page is queued, so it waits holding nothing unsaved) until the loader frees room.
 */
import { Chunk, Effect, Queue } from "effect"

export interface PageQueueOptions {
  /** Pages held before fetching slices wait. */
  readonly capacity: number
  /** Most pages landed in one transaction. */
  readonly maxGroup: number
}

const END: unique symbol = Symbol("PageQueue.end")

export const DEFAULT_PAGE_QUEUE: PageQueueOptions = { capacity: 64, maxGroup: 32 }

export const makePageQueue = <A>(options: PageQueueOptions = DEFAULT_PAGE_QUEUE) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<A | typeof END>()
    const room = yield* Effect.makeSemaphore(Math.max(1, options.capacity))

    /** Queues a page now (no waiting: call it right after the page is journaled). */
    const put = (page: A) => {
      queue.unsafeOffer(page)
    }
    /** Waits until the queue has room for one more page (call it after `put`, before fetching on). */
    const reserve = room.take(1)
    /** No more pages are coming: the loader lands what is queued and returns. */
    const close = Queue.offer(queue, END)

    /** Lands queued pages group by group until `close`; a failed group ends it with the failure. */
    const drain = <E, R>(land: (group: ReadonlyArray<A>) => Effect.Effect<void, E, R>): Effect.Effect<void, E, R> =>
      Effect.gen(function* () {
        while (true) {
          const taken = Chunk.toReadonlyArray(yield* Queue.takeBetween(queue, 1, Math.max(1, options.maxGroup)))
          const end = taken.indexOf(END)
          const group = (end >= 0 ? taken.slice(0, end) : taken) as ReadonlyArray<A>
          if (group.length > 0) {
            yield* land(group)
            yield* room.release(group.length)
          }
          if (end >= 0) return
        }
      })

    return { put, reserve, close, drain } as const
  })
