/**
 * The pagers, driven through the loop production runs (`extractInto`): each page is handed to
 * `accept` inside its slice, as the runner's journal and queue receive it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Data, Effect } from "effect"
import { type ExtractPlan, extractInto, type Page, shardOf } from "../../src/extract/Extract.js"
import { cursor, offset, single, windows } from "../../src/extract/Pagers.js"
import type { Fetched, Source } from "../../src/extract/Source.js"
import { fanOut, paged } from "../../src/extract/Sources.js"
import { TokenProblem } from "../../src/service/ServiceError.js"

type Signals = { readonly total?: number; readonly returned?: number; readonly next?: string | null }

/** A page as a fetch function returns it; `signals` are the service's count / returned / next. */
const page = <R>(records: ReadonlyArray<R>, signals: Signals = {}): Fetched<R> => ({ records, raw: "", units: 0, charges: [], ...signals })
const range = (n: number) => Array.from({ length: n }, (_, i) => i)
const items = range(23)

const fresh = (): ExtractPlan => ({ mode: "fresh", positions: new Map() })
const resumeFrom = (key: string, value: unknown): ExtractPlan => ({ mode: "resume", positions: new Map([[key, { value, done: false }]]) })

/** `accept`'s refusal once a run has handed on `take` pages. */
class Enough extends Data.TaggedError("Enough") {}

/**
 * A run's pages in the order `accept` received them; `take` bounds a pager that would loop (the
 * run stops there and the test then fails on its assertions).
 */
const collect = <R, E>(source: Source<{}, R, E, never>, plan: ExtractPlan, take = 200) =>
  Effect.suspend(() => {
    const pages: Array<Page<R>> = []
    return extractInto(source, {}, plan, (p) =>
      pages.length >= take ? Effect.fail(new Enough()) : Effect.sync(() => void pages.push(p))
    ).pipe(
      Effect.catchIf(
        (e): e is Enough => e instanceof Enough,
        () => Effect.void
      ),
      Effect.as(pages as ReadonlyArray<Page<R>>)
    )
  })
const recordsOf = <R>(pages: ReadonlyArray<Page<R>>) => pages.flatMap((p) => p.fetched.records)
/** A fetch that refuses to be called more than `max` times (a loop guard inside the pager's effect). */
const guard = (calls: { n: number }, max: number) =>
  Effect.suspend(() => (++calls.n > max ? Effect.die(`looped: more than ${max} calls`) : Effect.void))

describe("offset pager", () => {
  it.effect("without count or next, reads past a short page until an empty one, and checkpoints each position", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() =>
        offset({ limit: 5, fetch: ({ offset, limit }) => Effect.sync(() => (calls++, page(items.slice(offset, offset + limit)))) })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toEqual(items)
      // the short fifth page proves nothing: an empty sixth confirms the end
      expect(calls).toBe(6)
      // advanced by what came (3 on the fifth page), not by the limit
      expect(pages.at(-2)!.checkpoint).toEqual({ key: "*", value: { offset: 23, pages: 5 }, done: false })
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 23, pages: 5 }, done: true })
      expect(pages[1]!.checkpoint).toEqual({ key: "*", value: { offset: 10, pages: 2 }, done: false })
      expect(pages.every((p) => p.end === undefined && p.declared === undefined)).toBe(true)
    })
  )

  it.effect("uses the count to save the last request", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() =>
        offset({
          limit: 5,
          fetch: ({ offset, limit }) => Effect.sync(() => (calls++, page(items.slice(0, 20).slice(offset, offset + limit), { total: 20 })))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toHaveLength(20)
      expect(calls).toBe(4)
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("a service that caps pages at 50 (limit 100, count 212): every record, offsets advance by what came", () =>
    Effect.gen(function* () {
      const all = range(212)
      const offsets: Array<number> = []
      const source = paged(() =>
        offset({
          limit: 100,
          fetch: ({ offset, limit }) =>
            Effect.sync(() => (offsets.push(offset), page(all.slice(offset, offset + Math.min(limit, 50)), { total: 212 })))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toEqual(all)
      expect(offsets).toEqual([0, 50, 100, 150, 200])
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 212, declared: 212, pages: 5 }, done: true })
      expect(pages.map((p) => p.declared)).toEqual([212, 212, 212, 212, 212])
      expect(pages.every((p) => p.end === undefined)).toBe(true)
    })
  )

  it.effect("advances by the service's `returned` when it says so", () =>
    Effect.gen(function* () {
      const all = range(212)
      const offsets: Array<number> = []
      const source = paged(() =>
        offset({
          limit: 100,
          fetch: ({ offset, limit }) =>
            Effect.sync(() => {
              offsets.push(offset)
              const records = all.slice(offset, offset + Math.min(limit, 50))
              return page(records, { total: 212, returned: records.length })
            })
        })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toEqual(all)
      expect(offsets).toEqual([0, 50, 100, 150, 200])
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 212, declared: 212, pages: 5 }, done: true })
      expect(pages.every((p) => p.declared === 212)).toBe(true)

      // `returned` wins over the records' length (a page that lost a record it counted)
      const offsets2: Array<number> = []
      const lossy = paged(() =>
        offset({
          limit: 100,
          fetch: ({ offset, limit }) =>
            Effect.sync(() => {
              offsets2.push(offset)
              const held = all.slice(offset, offset + Math.min(limit, 50))
              return page(held.slice(1), { total: 212, returned: held.length })
            })
        })
      )
      const pages2 = yield* collect(lossy, fresh())
      expect(offsets2).toEqual([0, 50, 100, 150, 200])
      expect(pages2.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 212, declared: 212, pages: 5 }, done: true })
    })
  )

  it.effect("without a count or a next member, a capped short page does not end the slice: every record comes", () =>
    Effect.gen(function* () {
      const offsets: Array<number> = []
      // asked for 10, the service sends at most 5 and declares nothing
      const source = paged(() =>
        offset({ limit: 10, fetch: ({ offset }) => Effect.sync(() => (offsets.push(offset), page(items.slice(offset, offset + 5)))) })
      )
      const pages = yield* collect(source, fresh())
      expect(offsets).toEqual([0, 5, 10, 15, 20, 23])
      expect(recordsOf(pages)).toEqual(items)
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 23, pages: 5 }, done: true })
    })
  )

  it.effect("without a count but with a non-null next member, the slice goes on past short pages; next null ends it", () =>
    Effect.gen(function* () {
      const offsets: Array<number> = []
      const source = paged(() =>
        offset({
          limit: 10,
          fetch: ({ offset }) =>
            Effect.sync(() => {
              offsets.push(offset)
              const records = items.slice(offset, offset + 5)
              return page(records, { next: offset + records.length < items.length ? `https://svc/list?offset=${offset + 5}` : null })
            })
        })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toEqual(items)
      expect(offsets).toEqual([0, 5, 10, 15, 20])
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 23, pages: 5 }, done: true })
    })
  )

  it.effect("next: null ends the slice, even after a full page", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() =>
        offset({
          limit: 5,
          fetch: ({ offset, limit }) => Effect.sync(() => (calls++, page(items.slice(offset, offset + limit), { next: null })))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(calls).toBe(1)
      expect(recordsOf(pages)).toEqual([0, 1, 2, 3, 4])
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
      expect(pages.at(-1)!.end).toBeUndefined()
    })
  )

  it.effect("an empty page while the count says more remain ends the slice as stalled, position kept for a resume", () =>
    Effect.gen(function* () {
      const calls = { n: 0 }
      const offsets: Array<number> = []
      const source = paged(() =>
        offset({
          limit: 10,
          fetch: ({ offset, limit }) =>
            Effect.zipRight(
              guard(calls, 10),
              Effect.sync(() => (offsets.push(offset), page(offset >= 20 ? [] : range(100).slice(offset, offset + limit), { total: 100 })))
            )
        })
      )
      const pages = yield* collect(source, fresh(), 20)
      expect(offsets).toEqual([0, 10, 20])
      const last = pages.at(-1)!
      expect(last.end?.kind).toBe("stalled")
      expect(last.checkpoint).toEqual({ key: "*", value: { offset: 20, declared: 100, pages: 2 }, done: false })
      expect(recordsOf(pages)).toHaveLength(20)

      // a resume asks again from the kept position
      offsets.length = 0
      yield* collect(source, resumeFrom("*", last.checkpoint.value), 20)
      expect(offsets).toEqual([20])
    })
  )

  it.effect("an empty page when the count is reached (or absent) ends the slice normally", () =>
    Effect.gen(function* () {
      const source = paged(() =>
        offset({
          limit: 5,
          fetch: ({ offset, limit }) => Effect.succeed(page(items.slice(offset, offset + limit).slice(0, offset >= 20 ? 0 : 5)))
        })
      )
      const pages = yield* collect(source, fresh(), 20)
      expect(recordsOf(pages)).toHaveLength(20)
      expect(pages.at(-1)!.end).toBeUndefined()
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("maxPages reached while more remain is a cap", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() =>
        offset({
          limit: 10,
          maxPages: 3,
          fetch: ({ offset, limit }) => Effect.sync(() => (calls++, page(range(100).slice(offset, offset + limit), { total: 100 })))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(calls).toBe(3)
      expect(recordsOf(pages)).toEqual(range(30))
      expect(pages.at(-1)!.end?.kind).toBe("cap")
      expect(pages.slice(0, -1).every((p) => p.end === undefined)).toBe(true)
    })
  )

  it.effect("maxPages reached exactly at the end is no cap", () =>
    Effect.gen(function* () {
      const source = paged(() =>
        offset({
          limit: 10,
          maxPages: 3,
          fetch: ({ offset, limit }) => Effect.succeed(page(range(30).slice(offset, offset + limit), { total: 30 }))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(pages).toHaveLength(3)
      expect(pages.at(-1)!.end).toBeUndefined()
    })
  )

  it.effect("the service's maxOffset reached while more remain is a limit", () =>
    Effect.gen(function* () {
      const offsets: Array<number> = []
      const source = paged(() =>
        offset({
          limit: 10,
          maxOffset: 30,
          fetch: ({ offset, limit }) =>
            Effect.sync(() => (offsets.push(offset), page(range(100).slice(offset, offset + limit), { total: 100 })))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(offsets).toEqual([0, 10, 20, 30])
      expect(Math.max(...offsets)).toBeLessThanOrEqual(30)
      expect(pages.at(-1)!.end?.kind).toBe("limit")
      expect(pages.at(-1)!.declared).toBe(100)
    })
  )

  it.effect("a resumed slice continues from its checkpoint; finished slices are skipped", () =>
    Effect.gen(function* () {
      const fetched: Array<string> = []
      const source = fanOut({
        keys: () => ["a", "b", "c"],
        key: (k) => k,
        concurrency: 2,
        pager: (k) =>
          offset({
            limit: 5,
            fetch: ({ offset, limit }) => Effect.sync(() => (fetched.push(`${k}@${offset}`), page(items.slice(offset, offset + limit))))
          })
      })
      const positions = new Map([
        ["a", { value: { offset: 20 }, done: false }],
        ["b", { value: { offset: 25 }, done: true }]
      ])
      const pages = yield* collect(source, { mode: "resume", positions })
      // a short page without a count is confirmed by an empty one
      expect(fetched.filter((f) => f.startsWith("a"))).toEqual(["a@20", "a@23"])
      expect(fetched.some((f) => f.startsWith("b"))).toBe(false)
      expect(pages.filter((p) => p.slice === "c").flatMap((p) => p.fetched.records)).toEqual(items)
    })
  )
})

describe("cursor pager", () => {
  it.effect("follows next until there is none, whatever a page's length", () =>
    Effect.gen(function* () {
      const source = paged(() =>
        cursor({
          first: () => Effect.succeed(page([1, 2], { next: "n1" })),
          follow: (n) =>
            Effect.succeed(
              n === "n1" ? page([3], { next: "n2" }) : n === "n2" ? page<number>([], { next: "n3" }) : page([4], { next: null })
            )
        })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toEqual([1, 2, 3, 4])
      expect(pages.map((p) => p.checkpoint.value)).toEqual([
        { next: "n1", pages: 1, received: 2, empties: 0 },
        { next: "n2", pages: 2, received: 3, empties: 0 },
        { next: "n3", pages: 3, received: 3, empties: 1 },
        { next: null, pages: 4, received: 4, empties: 0 }
      ])
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
      expect(pages.every((p) => p.end === undefined)).toBe(true)
    })
  )

  it.effect("short pages with a next link continue (the spec never says a page holds a limit)", () =>
    Effect.gen(function* () {
      let follows = 0
      const source = paged(() =>
        cursor({
          first: () => Effect.succeed(page([0], { next: "c1", total: 5 })),
          follow: (n) =>
            Effect.sync(() => (follows++, page([Number(n.slice(1))], { next: n === "c4" ? null : `c${Number(n.slice(1)) + 1}`, total: 5 })))
        })
      )
      const pages = yield* collect(source, fresh())
      expect(recordsOf(pages)).toEqual([0, 1, 2, 3, 4])
      expect(follows).toBe(4)
      expect(pages.every((p) => p.declared === 5)).toBe(true)
    })
  )

  it.effect("the same cursor returned again ends the slice as stalled, not a loop", () =>
    Effect.gen(function* () {
      const calls = { n: 0 }
      const source = paged(() =>
        cursor({
          first: () => Effect.succeed(page([1], { next: "a" })),
          follow: () => Effect.zipRight(guard(calls, 10), Effect.succeed(page([2], { next: "a" })))
        })
      )
      const pages = yield* collect(source, fresh(), 20)
      expect(pages).toHaveLength(2)
      expect(calls.n).toBe(1)
      const last = pages.at(-1)!
      expect(last.end?.kind).toBe("stalled")
      expect(last.checkpoint.done).toBe(false)
      expect(last.checkpoint.value).toMatchObject({ next: "a", pages: 1 })
    })
  )

  it.effect("an empty page with a next link while the count says more remain is stalled", () =>
    Effect.gen(function* () {
      const calls = { n: 0 }
      const source = paged(() =>
        cursor({
          first: () => Effect.succeed(page([1, 2], { next: "a", total: 10 })),
          follow: (n) => Effect.zipRight(guard(calls, 10), Effect.succeed(page<number>([], { next: `${n}x`, total: 10 })))
        })
      )
      const pages = yield* collect(source, fresh(), 20)
      expect(pages).toHaveLength(2)
      expect(pages.at(-1)!.end?.kind).toBe("stalled")
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { next: "a", pages: 1, received: 2, empties: 0 }, done: false })
    })
  )

  it.effect("three empty pages in a row with next links and no count are stalled; fewer are not", () =>
    Effect.gen(function* () {
      const calls = { n: 0 }
      const source = paged(() =>
        cursor({
          first: () => Effect.succeed(page([1], { next: "c1" })),
          follow: (n) => Effect.zipRight(guard(calls, 10), Effect.succeed(page<number>([], { next: `c${Number(n.slice(1)) + 1}` })))
        })
      )
      const pages = yield* collect(source, fresh(), 20)
      expect(pages).toHaveLength(4)
      expect(pages.slice(0, 3).every((p) => p.end === undefined)).toBe(true)
      expect(pages.at(-1)!.end?.kind).toBe("stalled")
      expect(pages.at(-1)!.checkpoint.done).toBe(false)

      // two empties, then records: the run goes on
      const recovering = paged(() =>
        cursor({
          first: () => Effect.succeed(page([1], { next: "c1" })),
          follow: (n) => Effect.succeed(n === "c3" ? page([2], { next: null }) : page<number>([], { next: `c${Number(n.slice(1)) + 1}` }))
        })
      )
      const pages2 = yield* collect(recovering, fresh(), 20)
      expect(recordsOf(pages2)).toEqual([1, 2])
      expect(pages2.every((p) => p.end === undefined)).toBe(true)
      expect(pages2.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("maxPages reached while a next link remains is a cap", () =>
    Effect.gen(function* () {
      const calls = { n: 0 }
      const source = paged(() =>
        cursor({
          maxPages: 3,
          first: () => Effect.succeed(page([0], { next: "c1" })),
          follow: (n) =>
            Effect.zipRight(guard(calls, 10), Effect.succeed(page([Number(n.slice(1))], { next: `c${Number(n.slice(1)) + 1}` })))
        })
      )
      const pages = yield* collect(source, fresh(), 20)
      expect(recordsOf(pages)).toEqual([0, 1, 2])
      expect(pages.at(-1)!.end?.kind).toBe("cap")
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("the first page's context is handed to every follow, and kept in the checkpoint for a resume", () =>
    Effect.gen(function* () {
      const seen: Array<[string, unknown]> = []
      const pager = () =>
        cursor({
          first: () => Effect.succeed({ ...page(["a"], { next: "n1" }), context: { searchId: "s-1" } }),
          follow: (n, context) =>
            Effect.sync(() => {
              seen.push([n, context])
              // a later page's own context is not taken
              return n === "n1" ? { ...page(["b"], { next: "n2" }), context: "other" } : page(["c"], { next: null })
            })
        })
      const pages = yield* collect(paged(pager), fresh())
      expect(recordsOf(pages)).toEqual(["a", "b", "c"])
      expect(seen).toEqual([
        ["n1", { searchId: "s-1" }],
        ["n2", { searchId: "s-1" }]
      ])
      expect(pages[0]!.checkpoint.value).toMatchObject({ next: "n1", context: { searchId: "s-1" } })

      seen.length = 0
      yield* collect(paged(pager), resumeFrom("*", pages[0]!.checkpoint.value))
      expect(seen).toEqual([
        ["n1", { searchId: "s-1" }],
        ["n2", { searchId: "s-1" }]
      ])
    })
  )
})

describe("windows pager", () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z")
  const iso = (ms: number) => new Date(ms).toISOString()
  /** A feed of event times (ms); `cap` is the most it returns per page whatever the limit. */
  const feed =
    (events: ReadonlyArray<number>, calls: Array<{ from: string; to: string; offset: number }>, cap = Infinity) =>
    ({ from, to, offset, limit }: { from: string; to: string; offset: number; limit: number }) =>
      Effect.sync(() => {
        calls.push({ from, to, offset })
        const inWindow = events.filter((e) => e >= Date.parse(from) && e < Date.parse(to))
        return page(inWindow.slice(offset, offset + Math.min(limit, cap)), { total: inWindow.length })
      })

  it.effect("split until no read needs an offset past maxOffset; every record once; the watermark is the newest record time", () =>
    Effect.gen(function* () {
      // one event per second over 1000 s; reads are capped at offset 100 with pages of 50; the clock is far later
      const events = range(1000).map((i) => t0 + i * 1000)
      const calls: Array<{ from: string; to: string; offset: number }> = []
      const now = t0 + 2_000_000
      const options = {
        limit: 50,
        maxOffset: 100,
        initialFrom: iso(t0),
        overlapMs: 600_000,
        now: () => iso(now),
        stampOf: (e: number) => iso(e)
      }
      const pages = yield* collect(
        paged(() => windows({ ...options, fetch: feed(events, calls) })),
        fresh(),
        1000
      )
      const seen = recordsOf(pages)
      expect(seen).toHaveLength(1000)
      expect(new Set(seen).size).toBe(1000)
      expect(Math.max(...calls.map((c) => c.offset))).toBeLessThanOrEqual(100)
      const last = pages.at(-1)!
      expect(last.checkpoint.done).toBe(true)
      expect(last.end).toBeUndefined()
      expect(last.declared).toBe(1000)
      // the newest record's time, not the window end nor the clock
      const watermark = (last.checkpoint.value as { watermark: string }).watermark
      expect(watermark).toBe(iso(t0 + 999_000))
      expect(watermark).not.toBe(iso(now))

      // the next run starts overlapMs before the watermark and ends at its own clock
      const now2 = now + 3_600_000
      const next = windows({ ...options, now: () => iso(now2), fetch: () => Effect.die("no fetch expected") })
      expect(next.start(last.checkpoint.value as never).windows).toEqual([[iso(t0 + 999_000 - 600_000), iso(now2)]])

      // driven through the loop: a fresh run with the saved position asks exactly that window and reads the overlap again
      const calls2: Array<{ from: string; to: string; offset: number }> = []
      const plan: ExtractPlan = { mode: "fresh", positions: new Map([["*", { value: last.checkpoint.value, done: true }]]) }
      const pages2 = yield* collect(
        paged(() => windows({ ...options, now: () => iso(now2), fetch: feed(events, calls2) })),
        plan,
        1000
      )
      expect(calls2[0]).toEqual({ from: iso(t0 + 399_000), to: iso(now2), offset: 0 })
      expect(recordsOf(pages2)).toEqual(range(601).map((i) => t0 + (399 + i) * 1000))
      expect((pages2.at(-1)!.checkpoint.value as { watermark: string }).watermark).toBe(iso(t0 + 999_000))
    })
  )

  it.effect("a run that lands nothing keeps the previous watermark (never the clock)", () =>
    Effect.gen(function* () {
      const options = {
        limit: 50,
        maxOffset: 100,
        initialFrom: iso(t0),
        overlapMs: 60_000,
        now: () => iso(t0 + 86_400_000),
        stampOf: (e: number) => iso(e)
      }
      const pages = yield* collect(
        paged(() => windows({ ...options, fetch: feed([], []) })),
        fresh()
      )
      expect((pages.at(-1)!.checkpoint.value as { watermark: string }).watermark).toBe(iso(t0))
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("a service that returns fewer than limit per page still reads every record of a window", () =>
    Effect.gen(function* () {
      const events = range(120).map((i) => t0 + i * 1000)
      const calls: Array<{ from: string; to: string; offset: number }> = []
      const pager = windows({
        limit: 50,
        maxOffset: 10_000,
        initialFrom: iso(t0),
        overlapMs: 0,
        now: () => iso(t0 + 200_000),
        stampOf: (e: number) => iso(e),
        fetch: feed(events, calls, 20)
      })
      const pages = yield* collect(
        paged(() => pager),
        fresh()
      )
      expect(recordsOf(pages)).toEqual(events)
      expect(calls.map((c) => c.offset)).toEqual([0, 20, 40, 60, 80, 100])
      expect(pages.at(-1)!.end).toBeUndefined()
      expect((pages.at(-1)!.checkpoint.value as { watermark: string }).watermark).toBe(iso(t0 + 119_000))
    })
  )

  // BUG (src/extract/Pagers.ts, windows): `fits` assumes full pages of `limit` (total <= maxOffset + limit),
  // but offsets advance by what came. A service capping pages at 20 (limit 50, maxOffset 100) with 150
  // records in one window is not split, needs offset 120 > 100, and the slice ends as `limit` with 30 records unread.
  it.effect("[BUG] a capped-page service is split so no read needs an offset past maxOffset", () =>
    Effect.gen(function* () {
      const events = range(150).map((i) => t0 + i * 1000)
      const calls: Array<{ from: string; to: string; offset: number }> = []
      const pager = windows({
        limit: 50,
        maxOffset: 100,
        initialFrom: iso(t0),
        overlapMs: 0,
        now: () => iso(t0 + 150_000),
        stampOf: (e: number) => iso(e),
        fetch: feed(events, calls, 20)
      })
      const pages = yield* collect(
        paged(() => pager),
        fresh()
      )
      expect(pages.find((p) => p.end !== undefined)?.end).toBeUndefined()
      expect(recordsOf(pages)).toEqual(events)
      expect(Math.max(...calls.map((c) => c.offset))).toBeLessThanOrEqual(100)
    })
  )

  it.effect("an empty page while the window's count says more remain is stalled, the position kept", () =>
    Effect.gen(function* () {
      const calls = { n: 0 }
      const pager = windows({
        limit: 10,
        maxOffset: 1000,
        initialFrom: iso(t0),
        overlapMs: 0,
        now: () => iso(t0 + 100_000),
        stampOf: (e: number) => iso(e),
        fetch: ({ offset }) =>
          Effect.zipRight(guard(calls, 10), Effect.succeed(page(offset >= 10 ? [] : range(10).map((i) => t0 + i * 1000), { total: 50 })))
      })
      const pages = yield* collect(
        paged(() => pager),
        fresh(),
        20
      )
      expect(pages).toHaveLength(2)
      expect(pages.at(-1)!.end?.kind).toBe("stalled")
      expect(pages.at(-1)!.checkpoint.done).toBe(false)
      expect(pages.at(-1)!.checkpoint.value).toMatchObject({ offset: 10 })
    })
  )
})

describe("fan-out keys the service does not know", () => {
  const notFound = { _tag: "TokenProblem", status: 404, reason: "not_found", operation: "x", message: "x failed with 404" } as const
  const source = <E>(error: E, missing?: true | ((k: string) => ReadonlyArray<string>)) =>
    fanOut({
      keys: () => ["a", "b", "c"],
      key: (k: string) => k,
      concurrency: 2,
      pager: (k: string) => single(() => (k === "b" ? Effect.fail(error) : Effect.succeed(page([`${k}1`, `${k}2`])))),
      ...(missing !== undefined ? { missing } : {})
    })

  it.effect("with missing: true a 404 is a page naming the key; the other keys land and the run goes on", () =>
    Effect.gen(function* () {
      for (const error of [notFound, new TokenProblem({ reason: "not_found", status: 404, operation: "x" })]) {
        const pages = yield* collect(source(error, true), fresh())
        const b = pages.filter((p) => p.slice === "b")
        expect(b).toHaveLength(1)
        expect(b[0]!.missing).toMatchObject({ key: "b", status: 404 })
        expect(b[0]!.missing!.detail).toMatch(/^x failed with 404/)
        expect(b[0]!.fetched.records).toEqual([])
        expect(b[0]!.checkpoint.done).toBe(true)
        expect(recordsOf(pages).sort()).toEqual(["a1", "a2", "c1", "c2"])
        expect(pages.filter((p) => p.missing !== undefined)).toHaveLength(1)
      }
    })
  )

  it.effect("with missing a function, its records are on the missing key's page", () =>
    Effect.gen(function* () {
      const pages = yield* collect(
        source(notFound, (k) => [`${k}:missing`]),
        fresh()
      )
      const b = pages.find((p) => p.slice === "b")!
      expect(b.missing?.key).toBe("b")
      expect(b.fetched.records).toEqual(["b:missing"])
      expect(recordsOf(pages).sort()).toEqual(["a1", "a2", "b:missing", "c1", "c2"])
    })
  )

  it.effect("without missing, the 404 fails the run", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(collect(source(notFound), fresh()))
      expect(error).toEqual(notFound)
    })
  )

  it.effect("with missing, errors other than a 404 still fail the stream", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(collect(source({ ...notFound, status: 500, reason: "server_error" }, true), fresh()))
      expect(error.status).toBe(500)
    })
  )
})

describe("shards", () => {
  it("split keys deterministically and completely", () => {
    const keys = Array.from({ length: 200 }, (_, i) => `loc-${i}`)
    const shards = [0, 1, 2].map((i) => keys.filter((k) => shardOf(k, 3) === i))
    expect(shards.flat().sort()).toEqual([...keys].sort())
    expect(shards.every((s) => s.length > 30)).toBe(true)
  })
})

describe("the loop: slices side by side, each page accepted before its slice pays for the next", () => {
  /** A fan-out over `keys`, `concurrency` at a time; each slice is 3 offset pages of 2 records at 1 unit a call. */
  const paidFanOut = (keys: ReadonlyArray<string>, concurrency: number, log: Array<string>, inFlight: { now: number; max: number }) =>
    fanOut({
      keys: () => keys,
      key: (k: string) => k,
      concurrency,
      pager: (k: string) =>
        offset({
          limit: 2,
          fetch: ({ offset, limit }) =>
            Effect.gen(function* () {
              inFlight.now++
              inFlight.max = Math.max(inFlight.max, inFlight.now)
              log.push(`fetch ${k}@${offset}`)
              // the call takes a while: the other slices run meanwhile
              for (let i = 0; i < 3; i++) yield* Effect.yieldNow()
              inFlight.now--
              const records = range(6).slice(offset, offset + limit)
              return {
                ...page(
                  records.map((r) => `${k}${r}`),
                  { total: 6 }
                ),
                units: 1,
                charges: [{ requestId: `${k}-${offset}`, operation: "plot_search", units: 1, at: "2026-01-01T00:00:00Z" }]
              }
            })
        })
    })

  it.effect("slices run up to the source's concurrency, and each page is accepted before its slice's next call", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const inFlight = { now: 0, max: 0 }
      const accepted: Array<Page<string>> = []
      yield* extractInto(paidFanOut(["a", "b", "c", "d", "e"], 2, log, inFlight), {}, fresh(), (p) =>
        Effect.gen(function* () {
          // a slow accept (the journal's write): its slice waits, the others go on
          for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
          log.push(`accept ${p.slice}@${(p.checkpoint.value as { offset: number }).offset - 2}`)
          accepted.push(p as Page<string>)
        })
      )
      // two slices at once, never more (the fan-out's width), and the two did overlap
      expect(inFlight.max).toBe(2)
      const sliceOf = (line: string) => line.split(" ")[1]!.split("@")[0]!
      const firstOf = (k: string) => log.findIndex((l) => sliceOf(l) === k)
      const lastOf = (k: string) => log.findLastIndex((l) => sliceOf(l) === k)
      expect(firstOf("b")).toBeLessThan(lastOf("a"))
      for (const k of ["a", "b", "c", "d", "e"]) {
        // per slice: fetch, accept, fetch, accept, ... : no call before the page before it was accepted
        expect(log.filter((l) => sliceOf(l) === k)).toEqual([
          `fetch ${k}@0`,
          `accept ${k}@0`,
          `fetch ${k}@2`,
          `accept ${k}@2`,
          `fetch ${k}@4`,
          `accept ${k}@4`
        ])
      }
      // every record once, every unit charged on an accepted page
      expect(recordsOf(accepted).sort()).toEqual(["a", "b", "c", "d", "e"].flatMap((k) => range(6).map((r) => `${k}${r}`)).sort())
      expect(accepted.reduce((n, p) => n + p.fetched.units, 0)).toBe(15)
      expect(new Set(accepted.flatMap((p) => p.fetched.charges.map((c) => c.requestId))).size).toBe(15)
    })
  )

  it.effect("a page accept refuses (the journal cannot write) stops the run before its slice pays for another", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const inFlight = { now: 0, max: 0 }
      const accepted: Array<Page<string>> = []
      const error = yield* Effect.flip(
        extractInto(paidFanOut(["a", "b"], 1, log, inFlight), {}, fresh(), (p) =>
          p.slice === "a" && p.seq === 1 ? Effect.fail("journal full" as const) : Effect.sync(() => void accepted.push(p as Page<string>))
        )
      )
      expect(error).toBe("journal full")
      // a@2 was paid and refused: the only call not accepted; nothing after it
      expect(log).toEqual(["fetch a@0", "fetch a@2"])
      expect(accepted.map((p) => `${p.slice}@${p.seq}`)).toEqual(["a@0"])
      expect(inFlight.max).toBe(1)
    })
  )
})
