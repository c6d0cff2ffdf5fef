import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, TestClock } from "effect"
import { makeCostGuard } from "../../src/service/CostGuard.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"

const paid = (units: number, requestId = "req_1") => Effect.succeed({ units, requestId })
const settle = (r: { units: number; requestId: string }) => ({ charged: r.units, requestId: r.requestId })

describe("CostGuard", () => {
  it.effect("reserves before, settles with the charged units after, and records each charge", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_700_000_000_000)
      const guard = yield* makeCostGuard({ runId: "run_1", costs: DEFAULT_UNIT_COSTS, maxUnits: 100 })
      yield* guard.guard("ai_search_premises", paid(40, "req_a"), settle)
      yield* guard.guard("plot_search", paid(1, "req_b"), settle)
      expect(yield* guard.totals).toMatchObject({ planned: 41, charged: 41, reserved: 0, calls: 2, refused: 0 })
    })
  )

  it.effect("refuses a call that would cross the run cap, before running it", () =>
    Effect.gen(function* () {
      const guard = yield* makeCostGuard({ runId: "r", costs: DEFAULT_UNIT_COSTS, maxUnits: 100 })
      let ran = 0
      const call = Effect.sync(() => ++ran).pipe(Effect.as({ units: 40, requestId: "x" }))
      yield* guard.guard("ai_search_premises", call, settle)
      yield* guard.guard("ai_search_premises", call, settle)
      const e = yield* Effect.flip(guard.guard("ai_search_premises", call, settle))
      expect(e).toMatchObject({ _tag: "BudgetExhausted", reason: "UnitCap", limit: 100, used: 80, wanted: 40 })
      expect(ran).toBe(2)
      expect((yield* guard.totals).refused).toBe(1)
    })
  )

  it.effect("counts units spent today by earlier runs against the daily cap", () =>
    Effect.gen(function* () {
      const guard = yield* makeCostGuard({ runId: "r", costs: DEFAULT_UNIT_COSTS, dailyUnits: 100, spentToday: 70 })
      const e = yield* Effect.flip(guard.guard("ai_search_premises", paid(40), settle))
      expect(e).toMatchObject({ _tag: "BudgetExhausted", reason: "DailyCap", limit: 100, used: 70 })
      yield* guard.guard("plot_search", paid(1), settle)
    })
  )

  it.effect("releases the reservation of a failed, uncharged call", () =>
    Effect.gen(function* () {
      const guard = yield* makeCostGuard({ runId: "r", costs: DEFAULT_UNIT_COSTS, maxUnits: 40 })
      const failed = yield* Effect.exit(guard.guard("ai_search_premises", Effect.fail("boom" as const), settle))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* guard.totals).toMatchObject({ reserved: 0, charged: 0 })
      yield* guard.guard("ai_search_premises", paid(40), settle)
      expect((yield* guard.totals).charged).toBe(40)
    })
  )

  it.effect("learns an unknown operation's cost from its first charge, running it alone meanwhile", () =>
    Effect.gen(function* () {
      const guard = yield* makeCostGuard({ runId: "r", costs: {}, maxUnits: 20 })
      let inFlight = 0
      let maxInFlight = 0
      const call = Effect.gen(function* () {
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        yield* Effect.sleep(10)
        inFlight--
        return { units: 7, requestId: "q" }
      })
      const first = yield* Effect.fork(guard.guard("new_op", call, settle))
      const second = yield* Effect.fork(guard.guard("new_op", call, settle))
      yield* TestClock.adjust(100)
      yield* first.await
      yield* second.await
      expect(maxInFlight).toBe(1)
      expect(yield* guard.costOf("new_op")).toMatchObject({ _tag: "Some", value: 7 })
      // 14 charged; a third call (7) would cross 20.
      expect(yield* Effect.flip(guard.guard("new_op", call, settle))).toMatchObject({ reason: "UnitCap", wanted: 7 })
    })
  )

  it.effect("concurrent calls never overspend together", () =>
    Effect.gen(function* () {
      const guard = yield* makeCostGuard({ runId: "r", costs: DEFAULT_UNIT_COSTS, maxUnits: 400 })
      const call = Effect.sleep(5).pipe(Effect.as({ units: 40, requestId: "c" }))
      const fiber = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 50 }), () => Effect.exit(guard.guard("ai_search_premises", call, settle)), {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust(100)
      const exits = yield* fiber.await.pipe(Effect.flatten)
      expect(exits.filter(Exit.isSuccess)).toHaveLength(10)
      expect((yield* guard.totals).charged).toBe(400)
    })
  )
})
