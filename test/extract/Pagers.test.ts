import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { extract, shardOf } from "../../src/extract/Extract.js"
import { cursor, offset, windows } from "../../src/extract/Pagers.js"
import type { Fetched } from "../../src/extract/Source.js"
import { fanOut, paged } from "../../src/extract/Sources.js"

const page = <R>(records: ReadonlyArray<R>, total?: number): Fetched<R> => ({ records, raw: "", units: 0, charges: [], ...(total !== undefined ? { total } : {}) })
const items = Array.from({ length: 23 }, (_, i) => i)

const collect = <A, E>(s: Stream.Stream<A, E>) => Effect.map(Stream.runCollect(s), Chunk.toReadonlyArray)

describe("pagers", () => {
  it.effect("offset pages stop on a short page and checkpoint each position", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() => offset({ limit: 5, fetch: ({ offset, limit }) => Effect.sync(() => (calls++, page(items.slice(offset, offset + limit)))) }))
      const pages = yield* collect(extract(source, {}, { mode: "fresh", positions: new Map() }))
      expect(pages.flatMap((p) => p.fetched.records)).toEqual(items)
      expect(calls).toBe(5)
      expect(pages.at(-1)!.checkpoint).toEqual({ key: "*", value: { offset: 25 }, done: true })
      expect(pages[1]!.checkpoint).toEqual({ key: "*", value: { offset: 10 }, done: false })
    }))

  it.effect("offset pages use the total to save the last request", () =>
    Effect.gen(function* () {
      let calls = 0
      const source = paged(() => offset({ limit: 5, fetch: ({ offset, limit }) => Effect.sync(() => (calls++, page(items.slice(0, 20).slice(offset, offset + limit), 20))) }))
      const pages = yield* collect(extract(source, {}, { mode: "fresh", positions: new Map() }))
      expect(pages.flatMap((p) => p.fetched.records)).toHaveLength(20)
      expect(calls).toBe(4)
    }))

  it.effect("a resumed slice continues from its checkpoint; finished slices are skipped", () =>
    Effect.gen(function* () {
      const fetched: Array<string> = []
      const source = fanOut({
        keys: () => ["a", "b", "c"],
        key: (k) => k,
        concurrency: 2,
        pager: (k) => offset({ limit: 5, fetch: ({ offset, limit }) => Effect.sync(() => (fetched.push(`${k}@${offset}`), page(items.slice(offset, offset + limit)))) })
      })
      const positions = new Map([["a", { value: { offset: 20 }, done: false }], ["b", { value: { offset: 25 }, done: true }]])
      const pages = yield* collect(extract(source, {}, { mode: "resume", positions }))
      expect(fetched.filter((f) => f.startsWith("a"))).toEqual(["a@20"])
      expect(fetched.some((f) => f.startsWith("b"))).toBe(false)
      expect(pages.filter((p) => p.slice === "c").flatMap((p) => p.fetched.records)).toEqual(items)
    }))

  it.effect("cursor pages follow next until there is none", () =>
    Effect.gen(function* () {
      const source = paged(() => cursor({
        first: () => Effect.succeed({ ...page([1, 2]), next: "n1" }),
        follow: (n) => Effect.succeed(n === "n1" ? { ...page([3]), next: "n2" } : { ...page([4]), next: null })
      }))
      const pages = yield* collect(extract(source, {}, { mode: "fresh", positions: new Map() }))
      expect(pages.flatMap((p) => p.fetched.records)).toEqual([1, 2, 3, 4])
      expect(pages.map((p) => p.checkpoint.value)).toEqual([{ next: "n1", pages: 1 }, { next: "n2", pages: 2 }, { next: null, pages: 3 }])
    }))

  it.effect("windows split until no read needs an offset past the cap, and keep a watermark", () =>
    Effect.gen(function* () {
      // one event per second over 1000 s; reads are capped at offset 100 with pages of 50
      const t0 = Date.parse("2026-01-01T00:00:00Z")
      const events = Array.from({ length: 1000 }, (_, i) => t0 + i * 1000)
      const offsets: Array<number> = []
      const pager = windows({
        limit: 50,
        maxOffset: 100,
        initialFrom: new Date(t0).toISOString(),
        now: () => new Date(t0 + 1_000_000).toISOString(),
        fetch: ({ from, to, offset, limit }) =>
          Effect.sync(() => {
            offsets.push(offset)
            const inWindow = events.filter((e) => e >= Date.parse(from) && e < Date.parse(to))
            return page(inWindow.slice(offset, offset + limit), inWindow.length)
          })
      })
      const pages = yield* collect(extract(paged(() => pager), {}, { mode: "fresh", positions: new Map() }))
      const seen = pages.flatMap((p) => p.fetched.records)
      expect(new Set(seen).size).toBe(1000)
      expect(seen).toHaveLength(1000)
      expect(Math.max(...offsets)).toBeLessThanOrEqual(100)
      const last = pages.at(-1)!.checkpoint
      expect(last.done).toBe(true)
      expect((last.value as { watermark: string }).watermark).toBe(new Date(t0 + 1_000_000).toISOString())
      // the next run starts at the watermark: nothing new, nothing fetched
      const next = windows({ ...{ limit: 50, maxOffset: 100 }, initialFrom: "x", now: () => new Date(t0 + 1_000_000).toISOString(), fetch: () => Effect.die("no fetch expected") })
      expect(next.start(last.value as never).windows).toEqual([])
    }))

  it("shards split keys deterministically and completely", () => {
    const keys = Array.from({ length: 200 }, (_, i) => `loc-${i}`)
    const shards = [0, 1, 2].map((i) => keys.filter((k) => shardOf(k, 3) === i))
    expect(shards.flat().sort()).toEqual([...keys].sort())
    expect(shards.every((s) => s.length > 30)).toBe(true)
  })
})
