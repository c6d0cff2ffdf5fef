/**
 * The unit-cost guard: every paid platform call passes through `CostGuard.guard`.
 *
 * Before a call it reserves the operation's declared cost against the run cap (`maxUnits`) and
 * the optional daily cap (`dailyUnits`, counting `spentToday` from the warehouse ledger); a call
 * that would cross either is refused with `BudgetExhausted` BEFORE anything is sent. Reservations
 * live in one `Ref`, so concurrent calls can never overspend together. After the call it settles
 * with the units the service charged (`Svc-Units-Charged`), or releases the reservation when the
 * call failed uncharged. The ledger itself is written by the loader from each page's charges.
 *
 * Costs: premises search 40 (spec); others from the settings' cost table. An operation missing
 * from the table learns its cost from its first charge: until then its calls run one at a time
 * and reserve 1 unit (Assumed: every paid call costs at least one unit).
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import { BudgetExhausted } from "./ServiceError.js"

export interface CostGuardOptions {
  readonly runId: string
  /** Run cap; `undefined` means none. */
  readonly maxUnits?: number | undefined
  /** Daily cap; `undefined` means none. */
  readonly dailyUnits?: number | undefined
  /** Units already charged today by earlier runs (from the ledger). */
  readonly spentToday?: number
  /** Declared cost per operation. */
  readonly costs: Readonly<Record<string, number>>
  /**
   * Paid calls in flight at once (default: no limit). With 1, the calls a crash can cut short
   * are at most one, whatever the fan-out width.
   */
  readonly maxInFlight?: number | undefined
}

export interface CostTotals {
  /** Units of the calls sent, at their declared (or learnt) cost. */
  readonly planned: number
  /** Units the service said it charged. */
  readonly charged: number
  /** Units reserved by calls in flight. */
  readonly reserved: number
  /** Paid calls sent / refused before sending. */
  readonly calls: number
  readonly refused: number
  /** Last `Svc-Units-Remaining` seen (the account's balance). */
  readonly balance: number | undefined
}

interface State {
  charged: number
  reserved: number
  planned: number
  calls: number
  refused: number
  balance: number | undefined
  learned: Record<string, number>
}

/** What the guarded call reports back. */
export interface Settlement {
  readonly charged: number
  readonly requestId: string | undefined
  readonly remaining?: number | undefined
}

export const makeCostGuard = (options: CostGuardOptions) =>
  Effect.gen(function* () {
    const state = yield* Ref.make<State>({
      charged: 0,
      reserved: 0,
      planned: 0,
      calls: 0,
      refused: 0,
      balance: undefined,
      learned: {}
    })
    const spentToday = options.spentToday ?? 0
    const slots = options.maxInFlight === undefined ? undefined : yield* Effect.makeSemaphore(Math.max(1, options.maxInFlight))
    const inFlight = <A, E, R>(effect: Effect.Effect<A, E, R>) => (slots ? slots.withPermits(1)(effect) : effect)
    const learning = new Map<string, Effect.Semaphore>()
    const learnLock = (operation: string) => {
      let s = learning.get(operation)
      if (!s) learning.set(operation, (s = Effect.unsafeMakeSemaphore(1)))
      return s
    }

    /** The declared cost, the learnt one, or `undefined` while unknown. */
    const costOf = (operation: string, s: State): number | undefined => options.costs[operation] ?? s.learned[operation]

    const reserve = (operation: string) =>
      Ref.modify(state, (s): readonly [BudgetExhausted | number, State] => {
        const cost = costOf(operation, s) ?? 1
        const used = s.charged + s.reserved
        if (options.maxUnits !== undefined && used + cost > options.maxUnits) {
          return [
            new BudgetExhausted({ reason: "UnitCap", operation, limit: options.maxUnits, used, wanted: cost }),
            { ...s, refused: s.refused + 1 }
          ]
        }
        if (options.dailyUnits !== undefined && spentToday + used + cost > options.dailyUnits) {
          return [
            new BudgetExhausted({ reason: "DailyCap", operation, limit: options.dailyUnits, used: spentToday + used, wanted: cost }),
            { ...s, refused: s.refused + 1 }
          ]
        }
        return [cost, { ...s, reserved: s.reserved + cost, planned: s.planned + cost, calls: s.calls + 1 }]
      }).pipe(Effect.flatMap((r) => (typeof r === "number" ? Effect.succeed(r) : Effect.fail(r))))

    const settle = (operation: string, reserved: number, result: Settlement | undefined) =>
      Ref.update(state, (s) => {
        const next: State = { ...s, reserved: s.reserved - reserved }
        if (result === undefined) return next
        if (result.remaining !== undefined) next.balance = result.remaining
        if (options.costs[operation] === undefined && s.learned[operation] === undefined && result.charged > 0) {
          next.learned = { ...s.learned, [operation]: result.charged }
        }
        if (result.charged > 0) next.charged = s.charged + result.charged
        return next
      })

    /**
     * Runs a paid call under the guard. `settlement` reads the charge off a success;
     * `failureCharge` off a failure (a call can fail after the service charged it, e.g. a bad body).
     */
    const guard = <A, E, R>(
      operation: string,
      call: Effect.Effect<A, E, R>,
      settlement: (a: A) => Settlement,
      failureCharge: (e: E) => Settlement | undefined = () => undefined
    ): Effect.Effect<A, E | BudgetExhausted, R> => {
      const run = inFlight(
        Effect.flatMap(reserve(operation), (cost) =>
          call.pipe(
            Effect.tap((a) => settle(operation, cost, settlement(a))),
            Effect.tapError((e) => settle(operation, cost, failureCharge(e))),
            Effect.onInterrupt(() => settle(operation, cost, undefined))
          )
        )
      )
      return Effect.flatMap(Ref.get(state), (s) => (costOf(operation, s) === undefined ? learnLock(operation).withPermits(1)(run) : run))
    }

    return {
      guard,
      /** The cost a call of `operation` is planned at (declared or learnt), if known. */
      costOf: (operation: string) => Effect.map(Ref.get(state), (s) => Option.fromNullable(costOf(operation, s))),
      totals: Effect.map(Ref.get(state), (s): CostTotals => ({
        planned: s.planned,
        charged: s.charged,
        reserved: s.reserved,
        calls: s.calls,
        refused: s.refused,
        balance: s.balance
      }))
    }
  })

/** Spec: "1 unit = EUR 0.04". */
export const EUR_PER_UNIT = 0.04

/** Units in euros, to the cent. */
export const eurOf = (units: number): number => Math.round(units * EUR_PER_UNIT * 100) / 100

/** The run's cost guard: `CostGuard.layer(options)` (wired in `wiring/Environment.ts`). */
export class CostGuard extends Context.Tag("service/CostGuard")<CostGuard, Effect.Effect.Success<ReturnType<typeof makeCostGuard>>>() {
  /** A guard for one run from explicit options. */
  static layer = (options: CostGuardOptions) => Layer.effect(CostGuard, makeCostGuard(options))
}
