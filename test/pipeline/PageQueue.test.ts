/**
 * The page queue's groups under the test clock: a full group lands at once, a part-full one only
 * once it has waited `fillWaitMs` (or the queue closed), so commits carry full groups whenever
 * pages come faster than they land; the pages waiting are bounded by count and by records;
 * `landingPolicyOf` reads `duckdb.groupPages`, `duckdb.groupRecords` and `duckdb.groupWaitMs` over
 * the defaults.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { DEFAULT_LANDING_POLICY, landingPolicyOf } from "../../src/pipeline/LandingPolicy.js"
import { groupsOf, makePageQueue, type PageGroup } from "../../src/pipeline/PageQueue.js"

const options = { capacity: 16, capacityRows: 2_000_000, maxGroup: 4, maxGroupRows: 1_000_000, fillWaitMs: 1000 }

/** A queue whose loader records the pages of each group it lands. */
const harness = (o = options) =>
  Effect.gen(function* () {
    const queue = yield* makePageQueue<number, PageGroup<number>>(() => ({ pages: [] }), o)
    const landed: Array<ReadonlyArray<number>> = []
    const loader = yield* Effect.fork(queue.drain((g) => Effect.sync(() => void landed.push([...g.pages]))))
    return { queue, landed, loader }
  })

describe("PageQueue groups", () => {
  it.effect("a full group lands at once; a part-full one waits for the fill wait", () =>
    Effect.gen(function* () {
      const { queue, landed, loader } = yield* harness()
      for (const p of [1, 2, 3, 4, 5]) queue.put(p)
      yield* TestClock.adjust("10 millis")
      expect(landed).toEqual([[1, 2, 3, 4]])
      // page 5 waits in the open group, even when more pages wake the loader
      yield* TestClock.adjust("500 millis")
      queue.put(6)
      yield* TestClock.adjust("10 millis")
      expect(landed).toEqual([[1, 2, 3, 4]])
      // a second after the group opened, it lands part full
      yield* TestClock.adjust("480 millis")
      expect(landed).toEqual([
        [1, 2, 3, 4],
        [5, 6]
      ])
      yield* queue.close
      yield* Fiber.join(loader)
    })
  )

  it.effect("closing the queue lands the open group without waiting", () =>
    Effect.gen(function* () {
      const { queue, landed, loader } = yield* harness()
      queue.put(1)
      queue.put(2)
      yield* TestClock.adjust("10 millis")
      expect(landed).toEqual([])
      yield* queue.close
      yield* Fiber.join(loader)
      expect(landed).toEqual([[1, 2]])
    })
  )

  it.effect("a fill wait of 0 lands whatever has arrived as soon as the loader is free", () =>
    Effect.gen(function* () {
      const { queue, landed, loader } = yield* harness({ ...options, fillWaitMs: 0 })
      queue.put(1)
      yield* TestClock.adjust("1 millis")
      expect(landed).toEqual([[1]])
      yield* queue.close
      yield* Fiber.join(loader)
    })
  )

  it("the settings' group size and wait over the defaults, with room for two groups", () => {
    expect(landingPolicyOf(undefined)).toEqual(DEFAULT_LANDING_POLICY)
    expect(landingPolicyOf({ groupPages: 64 })).toEqual({ ...DEFAULT_LANDING_POLICY, capacity: 128, maxGroup: 64 })
    expect(DEFAULT_LANDING_POLICY.capacity).toBe(2 * DEFAULT_LANDING_POLICY.maxGroup)
    expect(DEFAULT_LANDING_POLICY.capacityRows).toBe(2 * DEFAULT_LANDING_POLICY.maxGroupRows)
    expect(landingPolicyOf({ groupWaitMs: 0 })).toEqual({ ...DEFAULT_LANDING_POLICY, fillWaitMs: 0 })
    expect(landingPolicyOf({ groupRecords: 12_800 })).toEqual({ ...DEFAULT_LANDING_POLICY, capacityRows: 25_600, maxGroupRows: 12_800 })
  })

  it("a run's landing policy: the defaults in one place, the settings over them", () => {
    expect(DEFAULT_LANDING_POLICY).toEqual({
      capacity: 512,
      capacityRows: 16_000,
      maxGroup: 256,
      maxGroupRows: 8000,
      fillWaitMs: 1000,
      rejectSample: 100
    })
    expect(landingPolicyOf({ groupPages: 8, groupWaitMs: 50 })).toEqual({
      ...DEFAULT_LANDING_POLICY,
      capacity: 16,
      maxGroup: 8,
      fillWaitMs: 50
    })
  })

  it.effect("a group closes at its row bound before its page bound: large pages land in small transactions", () =>
    Effect.gen(function* () {
      const queue = yield* makePageQueue<number, PageGroup<number>>(
        () => ({ pages: [] }),
        { ...options, maxGroupRows: 2500 },
        (rows) => rows
      )
      const landed: Array<ReadonlyArray<number>> = []
      const loader = yield* Effect.fork(queue.drain((g) => Effect.sync(() => void landed.push([...g.pages]))))
      // pages of 1000 rows: three make a group (3000 >= 2500); small pages fill up to four
      for (const rows of [1000, 1000, 1000, 10, 10, 10, 10]) queue.put(rows)
      yield* TestClock.adjust("10 millis")
      expect(landed).toEqual([
        [1000, 1000, 1000],
        [10, 10, 10, 10]
      ])
      yield* queue.close
      yield* Fiber.join(loader)
    })
  )

  it("a replay splits by pages and rows: no group over the row bound unless one page is", () => {
    const o = { ...options, maxGroupRows: 2500 }
    expect(groupsOf([1000, 1000, 1000, 10, 3000, 10], o, (r) => r)).toEqual([[1000, 1000], [1000, 10], [3000], [10]])
    expect(groupsOf([1, 1, 1, 1, 1], o, (r) => r)).toEqual([[1, 1, 1, 1], [1]])
  })

  it.effect("a fetching slice waits for room by its page's records: two groups' worth, whatever the page count", () =>
    Effect.gen(function* () {
      // room for 4 pages' worth of records (2 groups of 2), far more pages than that
      const queue = yield* makePageQueue<number, PageGroup<number>>(
        () => ({ pages: [] }),
        { capacity: 100, capacityRows: 40, maxGroup: 50, maxGroupRows: 20, fillWaitMs: 1000 },
        (rows) => rows
      )
      const landed: Array<ReadonlyArray<number>> = []
      const gate = yield* Effect.makeLatch(false)
      const loader = yield* Effect.fork(
        queue.drain((g) =>
          Effect.zipRight(
            gate.await,
            Effect.sync(() => void landed.push([...g.pages]))
          )
        )
      )
      const admitted: Array<number> = []
      // a slice puts each page, then reserves its room before fetching the next (as the runner does)
      const slice = yield* Effect.fork(
        Effect.forEach([10, 10, 10, 10, 10, 10], (rows, i) =>
          Effect.zipRight(
            Effect.sync(() => queue.put(rows)),
            Effect.tap(queue.reserve(rows), () => Effect.sync(() => void admitted.push(i)))
          )
        )
      )
      yield* TestClock.adjust("10 millis")
      // four pages of 10 fill the room of 40: the slice waits holding its fifth page, queued
      expect(admitted).toEqual([0, 1, 2, 3])
      yield* gate.open
      yield* TestClock.adjust("10 millis")
      expect(admitted).toEqual([0, 1, 2, 3, 4, 5])
      yield* Fiber.join(slice)
      yield* queue.close
      yield* Fiber.join(loader)
      expect(landed).toEqual([
        [10, 10],
        [10, 10],
        [10, 10]
      ])
    })
  )

  it.effect("small pages group up to the page bound: a fan-out of one small answer per key lands in few transactions", () =>
    Effect.gen(function* () {
      const queue = yield* makePageQueue<number, PageGroup<number>>(
        () => ({ pages: [] }),
        DEFAULT_LANDING_POLICY,
        (rows) => rows
      )
      const landed: Array<number> = []
      const loader = yield* Effect.fork(queue.drain((g) => Effect.sync(() => void landed.push(g.pages.length))))
      // 500 answers of 17 records (a time series a location): two groups, not sixteen of 32
      yield* Effect.forEach(
        Array.from({ length: 500 }, () => 17),
        (rows) =>
          Effect.zipRight(
            Effect.sync(() => queue.put(rows)),
            queue.reserve(rows)
          )
      )
      yield* queue.close
      yield* Fiber.join(loader)
      expect(landed).toEqual([256, 244])
    })
  )
})
