/**
 * A slice that fails stops the others (`extractInto`, src/service/CallGate.ts): at their next page,
 * never in a request already sent, whose page is still handed on (a paid answer is charged whether
 * it is read or not); the slices not started never fetch; what still runs after `settleMs` stops.
 * Each failure reaches `plan.failed` as it happens; the extract fails with the first.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Either, Fiber, TestClock } from "effect"
import { type ExtractPlan, extractInto } from "../../src/extract/Extract.js"
import { single } from "../../src/extract/Pagers.js"
import type { Fetched } from "../../src/extract/Source.js"
import { fanOut } from "../../src/extract/Sources.js"

type Rec = { readonly id: string }
const answer = (id: string): Fetched<Rec> => ({ records: [{ id }], raw: "", units: 1, charges: [], operation: "sourcing_property" })

/** A fan-out over `keys`, two at a time, each key's one request being `fetch(key)`. */
const source = (keys: ReadonlyArray<string>, fetch: (key: string) => Effect.Effect<Fetched<Rec>, string>) =>
  fanOut({ keys: () => keys, key: (k: string) => k, pager: (k) => single(() => fetch(k)), concurrency: 2 })

const run = (keys: ReadonlyArray<string>, fetch: (key: string) => Effect.Effect<Fetched<Rec>, string>, extra: Partial<ExtractPlan> = {}) =>
  Effect.gen(function* () {
    const accepted: Array<string> = []
    const failed: Array<unknown> = []
    const plan: ExtractPlan = {
      mode: "fresh",
      positions: new Map(),
      failed: (cause) => Effect.sync(() => void failed.push(...Cause.failures(cause))),
      ...extra
    }
    const result = yield* Effect.either(
      extractInto(source(keys, fetch), {}, plan, (page) => Effect.sync(() => void accepted.push(page.slice)))
    )
    return { result, accepted, failed }
  })

describe("a slice that fails", () => {
  it.effect("lets the request in flight beside it finish and hands its page on; the slices not started never fetch", () =>
    Effect.gen(function* () {
      const sent = yield* Deferred.make<void>()
      const released = yield* Deferred.make<void>()
      const fetched: Array<string> = []
      const out = yield* run(["in-flight", "broken", "later-1", "later-2"], (key) =>
        Effect.zipRight(
          Effect.sync(() => void fetched.push(key)),
          key === "in-flight"
            ? // its request is out when the other slice fails, and answers after that
              Effect.zipRight(Deferred.succeed(sent, undefined), Effect.as(Deferred.await(released), answer(key)))
            : key === "broken"
              ? Effect.zipRight(
                  Deferred.await(sent),
                  Effect.zipRight(Effect.forkDaemon(Deferred.succeed(released, undefined)), Effect.fail("cut off"))
                )
              : Effect.succeed(answer(key))
        )
      )
      expect(out.result).toEqual(Either.left("cut off"))
      expect(out.accepted).toEqual(["in-flight"])
      expect(fetched.sort()).toEqual(["broken", "in-flight"])
      expect(out.failed).toEqual(["cut off"])
    })
  )

  it.effect("fails the extract with the first failure; every failure reaches `failed`, in order", () =>
    Effect.gen(function* () {
      const sent = yield* Deferred.make<void>()
      const firstFailed = yield* Deferred.make<void>()
      const out = yield* run(["b", "a"], (key) =>
        key === "a"
          ? Effect.zipRight(
              Deferred.await(sent),
              Effect.zipRight(Effect.forkDaemon(Deferred.succeed(firstFailed, undefined)), Effect.fail("a broke"))
            )
          : Effect.zipRight(Deferred.succeed(sent, undefined), Effect.zipRight(Deferred.await(firstFailed), Effect.fail("b broke too")))
      )
      expect(out.result).toEqual(Either.left("a broke"))
      expect(out.failed).toEqual(["a broke", "b broke too"])
      expect(out.accepted).toEqual([])
    })
  )

  it.effect("stops what still runs once settleMs has passed", () =>
    Effect.gen(function* () {
      const sent = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        run(
          ["never-answers", "broken"],
          (key) =>
            key === "broken"
              ? Effect.zipRight(Deferred.await(sent), Effect.fail("cut off"))
              : Effect.zipRight(Deferred.succeed(sent, undefined), Effect.never),
          { settleMs: 5_000 }
        )
      )
      yield* TestClock.adjust("4999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const out = yield* Fiber.join(fiber)
      expect(out.result).toEqual(Either.left("cut off"))
      expect(out.accepted).toEqual([])
    })
  )

  it.effect("a slice not yet in its request when another fails stops without fetching", () =>
    Effect.gen(function* () {
      const fetched: Array<string> = []
      const out = yield* run(["broken", "next"], (key) =>
        Effect.zipRight(
          Effect.sync(() => void fetched.push(key)),
          key === "broken" ? Effect.fail("cut off") : Effect.succeed(answer(key))
        )
      )
      expect(out.result).toEqual(Either.left("cut off"))
      expect([fetched, out.accepted]).toEqual([["broken"], []])
    })
  )
})
