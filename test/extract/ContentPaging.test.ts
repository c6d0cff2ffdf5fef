/**
 * Paging checked by what arrives (issue "Pay once for each record"), through the loop production
 * runs (`extractInto`): a page of keys read before stops its slice at once; a service's own next
 * links are followed; a list that shrinks between pages is read again from before the shift,
 * within the paid re-read bound; a limit the service names ends the slice as a limit.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ExtractPlan, extractInto, type Page } from "../../src/extract/Extract.js"
import { offset, windows } from "../../src/extract/Pagers.js"
import { PagingPolicy } from "../../src/extract/PagingPolicy.js"
import { keyHash } from "../../src/extract/SeenKeys.js"
import type { Fetched, Source } from "../../src/extract/Source.js"
import { paged } from "../../src/extract/Sources.js"
import { PlatformProblem } from "../../src/service/ServiceError.js"

type Rec = { readonly id: string }
const ids = (n: number, from = 0): Array<Rec> => Array.from({ length: n }, (_, i) => ({ id: `p${from + i}` }))
const page = (records: ReadonlyArray<Rec>, signals: Partial<Fetched<Rec>> = {}): Fetched<Rec> => ({
  records,
  raw: "",
  units: 40,
  charges: [],
  operation: "ai_search_premises",
  ...signals
})
const identity = (r: unknown) => (r as Rec).id
const plan = (extra: Partial<ExtractPlan> = {}): ExtractPlan => ({ mode: "fresh", positions: new Map(), identity, ...extra })

/** Every page the loop hands on, in order. */
const walk = <E>(source: Source<unknown, Rec, E, never>, p: ExtractPlan = plan()) =>
  Effect.gen(function* () {
    const pages: Array<Page<Rec>> = []
    yield* extractInto(source, {}, p, (pg) => Effect.sync(() => void pages.push(pg as Page<Rec>)))
    return pages
  })
const keysOf = (pages: ReadonlyArray<Page<Rec>>) => new Set(pages.flatMap((p) => p.fetched.records.map((r) => r.id)))

describe("progress by content", () => {
  it.effect("a service that ignores offset: the second page repeats the first, the slice stops at once as stalled, naming it", () =>
    Effect.gen(function* () {
      const all = ids(57)
      let calls = 0
      const source = paged(() => offset({ limit: 20, fetch: () => Effect.sync(() => (calls++, page(all.slice(0, 20), { total: 57 }))) }))
      const pages = yield* walk(source)
      // one wasted page, not a night of repeats
      expect(calls).toBe(2)
      expect(pages.map((p) => p.fresh)).toEqual([20, 0])
      const last = pages.at(-1)!
      expect(last.end?.kind).toBe("stalled")
      expect(last.end?.detail).toMatch(
        /^ai_search_premises page 2 brought no new key: its 20 record\(s\) were read before .*"p0", "p1", "p2"/
      )
      // the slice keeps the position that repeated, unfinished, for a resume
      expect(last.checkpoint).toEqual({ key: "*", value: { offset: 20, declared: 57, pages: 1 }, done: false })
    })
  )

  it.effect("a page with some new keys is progress; its fresh count is what the slice's distinct keys add up from", () =>
    Effect.gen(function* () {
      const all = ids(30)
      // pages overlap by 5 records (a service whose offsets drift), never by all of them
      const source = paged(() =>
        offset({
          limit: 10,
          fetch: ({ offset }) => Effect.sync(() => page(all.slice(Math.max(0, offset - 5), offset + 10), { total: 30, returned: 10 }))
        })
      )
      const pages = yield* walk(source)
      expect(keysOf(pages).size).toBe(30)
      expect(pages.reduce((n, p) => n + p.fresh, 0)).toBe(30)
      expect(pages.every((p) => p.end === undefined)).toBe(true)
    })
  )

  it.effect("a resumed slice knows the keys it read before the kill: a page of them is a repeat", () =>
    Effect.gen(function* () {
      const all = ids(40)
      const source = paged(() => offset({ limit: 20, fetch: () => Effect.succeed(page(all.slice(0, 20), { total: 40 })) }))
      const seen = all.slice(0, 20).map((r) => keyHash(r.id))
      const pages = yield* walk(
        source,
        plan({ mode: "resume", positions: new Map([["*", { value: { offset: 20, pages: 1 }, done: false }]]), seen: () => seen })
      )
      expect(pages).toHaveLength(1)
      expect(pages[0]!.end?.kind).toBe("stalled")
    })
  )

  it.effect("records without a readable key never make a page a repeat", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() =>
        offset({ limit: 2, fetch: ({ offset }) => Effect.sync(() => (calls++, page(offset < 4 ? [{ id: "" }, { id: "" }] : []))) })
      )
      const pages = yield* walk(source, plan({ identity: (r) => ((r as Rec).id === "" ? undefined : (r as Rec).id) }))
      expect(calls).toBe(3)
      expect(pages.map((p) => p.fresh)).toEqual([2, 2, 0])
      expect(pages.every((p) => p.end === undefined)).toBe(true)
    })
  )
})

describe("the service's own paging", () => {
  it.effect("a service that pages by next links and ignores offset: the slice follows its links and reads everything", () =>
    Effect.gen(function* () {
      const all = ids(57)
      const byOffset: Array<number> = []
      const followed: Array<string> = []
      const at = (from: number) => page(all.slice(from, from + 20), { next: from + 20 < 57 ? `/v1/ai/search?cursor=c${from + 20}` : null })
      const source = paged(() =>
        offset({
          limit: 20,
          // the first request; any offset gets the first page (the service ignores it)
          fetch: ({ offset }) => Effect.sync(() => (byOffset.push(offset), at(0))),
          follow: (next) => Effect.sync(() => (followed.push(next), at(Number(/c(\d+)$/.exec(next)![1]))))
        })
      )
      const pages = yield* walk(source)
      expect(keysOf(pages).size).toBe(57)
      expect(byOffset).toEqual([0])
      expect(followed).toEqual(["/v1/ai/search?cursor=c20", "/v1/ai/search?cursor=c40"])
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("a service that does not page at all: one wasted page, then a named stop", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() =>
        offset({
          limit: 20,
          fetch: () => Effect.sync(() => (calls++, page(ids(20), { total: 57, returned: 20 }))),
          follow: () => Effect.die("no link")
        })
      )
      const pages = yield* walk(source)
      expect(calls).toBe(2)
      expect(pages.at(-1)!.end?.kind).toBe("stalled")
    })
  )
})

describe("a list that moves while it is read", () => {
  /** 100 records; after the first page, `removed` records before offset 20 leave the list (sold). */
  const shrinking = (removed: number, counter: { calls: number; offsets: Array<number> }, units = 40) => {
    const all = ids(100)
    return paged(() =>
      offset({
        limit: 20,
        fetch: ({ offset }) =>
          Effect.sync(() => {
            counter.offsets.push(offset)
            const live = counter.calls++ === 0 ? all : all.filter((_, i) => i < 5 || i >= 5 + removed)
            return page(live.slice(offset, offset + 20), { total: live.length, units })
          })
      })
    )
  }
  const live = (removed: number) =>
    new Set(
      ids(100)
        .filter((_, i) => i < 5 || i >= 5 + removed)
        .map((r) => r.id)
    )

  it.effect("records removed between pages: the count drops, the slice reads again from before the shift, every live record lands", () =>
    Effect.gen(function* () {
      const counter = { calls: 0, offsets: [] as Array<number> }
      const pages = yield* walk(shrinking(3, counter))
      for (const id of live(3)) expect(keysOf(pages).has(id)).toBe(true)
      // offset 20 came back shifted by 3: read again from 17, then on
      expect(counter.offsets).toEqual([0, 20, 17, 37, 57, 77])
      expect(pages.every((p) => p.end === undefined)).toBe(true)
      // the re-read page brought one new key; a re-read is never taken for a repeat
      expect(pages[2]!.fresh).toBeGreaterThan(0)
    })
  )

  it.effect("a list read by its next links that shifts: repaired by offset, the pages after the repair are re-reads, not repeats", () =>
    Effect.gen(function* () {
      // 12 records, pages of 5, links carry the offset; after the first page positions 1..3 leave
      const all = ids(12)
      let served = 0
      const at = (offset: number) => {
        const listed = served++ === 0 ? all : all.filter((_, i) => i < 1 || i > 3)
        const records = listed.slice(offset, offset + 5)
        const end = offset + records.length
        return page(records, { total: listed.length, units: 1, next: end < listed.length ? `/leads?offset=${end}` : null })
      }
      const source = paged(() =>
        offset({
          limit: 5,
          fetch: ({ offset }) => Effect.sync(() => at(offset)),
          follow: (next) => Effect.sync(() => at(Number(/offset=(\d+)/.exec(next)![1])))
        })
      )
      const pages = yield* walk(source)
      for (const r of all.filter((_, i) => i < 1 || i > 3)) expect(keysOf(pages).has(r.id)).toBe(true)
      expect(pages.every((p) => p.end === undefined)).toBe(true)
      expect(pages.at(-1)!.checkpoint.done).toBe(true)
    })
  )

  it.effect("a paid list that keeps shifting beyond budget.paidRereads ends `shifted`, named", () =>
    Effect.gen(function* () {
      const all = ids(100)
      let calls = 0
      // every page loses one more record near the front
      const source = paged(() =>
        offset({
          limit: 20,
          fetch: ({ offset }) =>
            Effect.sync(() => {
              const gone = calls++
              const listed = all.slice(gone)
              return page(listed.slice(offset, offset + 20), { total: listed.length })
            })
        })
      )
      const pages = yield* walk(source).pipe(Effect.provideService(PagingPolicy, { paidRereads: 1 }))
      const last = pages.at(-1)!
      expect(last.end?.kind).toBe("shifted")
      expect(last.end?.detail).toMatch(/shrank from \d+ to \d+ .* more than 1 paid page\(s\) again \(budget\.paidRereads\)/)
      expect(calls).toBe(3)
    })
  )

  it.effect("windows read by next links and repaired shifts land every live record of a window", () =>
    Effect.gen(function* () {
      const all = ids(60)
      let calls = 0
      const source = paged(() =>
        windows({
          limit: 20,
          maxOffset: 50_000,
          initialFrom: "2026-01-01T00:00:00.000Z",
          overlapMs: 0,
          now: () => "2026-01-02T00:00:00.000Z",
          stampOf: () => undefined,
          fetch: ({ offset }) =>
            Effect.sync(() => {
              const listed = calls++ === 0 ? all : all.filter((_, i) => i !== 2)
              return page(listed.slice(offset, offset + 20), { total: listed.length, units: 0 })
            })
        })
      )
      const pages = yield* walk(source)
      const got = keysOf(pages)
      for (const r of all) if (r.id !== "p2") expect(got.has(r.id)).toBe(true)
    })
  )
})

describe("limits the service names", () => {
  it.effect("page_depth_exceeded ends the slice as a limit with what was reachable, never a failure", () =>
    Effect.gen(function* () {
      const all = ids(100)
      const source = paged(() =>
        offset({
          limit: 20,
          fetch: ({ offset, limit }) =>
            offset + limit > 60
              ? Effect.fail(
                  new PlatformProblem({
                    reason: "page_depth_exceeded",
                    status: 400,
                    operation: "ai_search_premises",
                    detail: "offset + limit may not exceed 60 on this plan"
                  })
                )
              : Effect.succeed(page(all.slice(offset, offset + 20), { total: 100 }))
        })
      )
      const pages = yield* walk(source)
      expect(keysOf(pages).size).toBe(60)
      const last = pages.at(-1)!
      expect(last.end?.kind).toBe("limit")
      expect(last.end?.detail).toMatch(/page_depth_exceeded: offset \+ limit may not exceed 60.*narrow the query/)
      expect(last.fetched.records).toHaveLength(0)
      expect(last.checkpoint.done).toBe(true)
    })
  )
})
