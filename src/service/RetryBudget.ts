/**
 * The run-wide retry budget: at most `ratio * requests + floor` retries in one run, across both
 * hosts. Each retry takes one; when none is left the request fails with
 * `BudgetExhausted{reason: "RetryBudget"}` so the run stops as paused (resumable) instead of
 * hammering a failing host. It also counts requests and retries for the run record.
 */
import { Effect, Exit, FiberRef, Ref } from "effect"
import { BudgetExhausted } from "./ServiceError.js"
import { ServiceSettings } from "./ServiceSettings.js"

export interface RetryBudgetOptions {
  /** Retries allowed per request sent (e.g. 0.1). */
  readonly ratio: number
  /** Retries always allowed (e.g. 10). */
  readonly floor: number
}

export interface RetryBudgetStats {
  /** Requests started (first attempts only). */
  readonly requests: number
  /** Retries taken (attempts after the first). */
  readonly retries: number
  /** Retries allowed at this point (`ratio * requests + floor`). */
  readonly allowed: number
}

/** The requests, retries and 429 answers of one unit of work (a page), counted where they happen. */
export interface Attempts {
  requests: number
  retries: number
  /** Answers 429 (rate limited) among the attempts. */
  throttled: number
}

/**
 * The counter of the page being fetched: `countAttempts` sets it around a page's fetch, and the
 * budget adds each request and retry to it as well as to the run's totals. Fibers forked by the
 * fetch inherit it, so concurrent pages never count each other's attempts.
 */
const PageAttempts = FiberRef.unsafeMake<Attempts | undefined>(undefined)

const bump = (key: keyof Attempts) => Effect.map(FiberRef.get(PageAttempts), (a) => (a ? void (a[key] += 1) : undefined))

/**
 * Runs `effect` with its own attempt counter, and returns its result with the counts; a page that
 * fails (or is interrupted) hands its counts to `failed`, so requests that bought no page count too.
 */
export const countAttempts = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  failed?: (attempts: Attempts) => Effect.Effect<void>
): Effect.Effect<readonly [A, Attempts], E, R> =>
  Effect.suspend(() => {
    const attempts: Attempts = { requests: 0, retries: 0, throttled: 0 }
    const counted = effect.pipe(
      Effect.locally(PageAttempts, attempts),
      Effect.map((a) => [a, { ...attempts }] as const)
    )
    return failed ? Effect.onExit(counted, (exit) => (Exit.isSuccess(exit) ? Effect.void : failed({ ...attempts }))) : counted
  })

/** Counts one 429 answer on the page being fetched (the transport calls it; nothing outside a page counts). */
export const countThrottled: Effect.Effect<void> = bump("throttled")

export const makeRetryBudget = (options: RetryBudgetOptions) =>
  Effect.gen(function* () {
    const state = yield* Ref.make({ requests: 0, retries: 0 })
    const allowed = (requests: number) => Math.floor(options.ratio * requests + options.floor)
    return {
      /** Counts one request (its first attempt). */
      request: Effect.zipRight(
        bump("requests"),
        Ref.update(state, (s) => ({ ...s, requests: s.requests + 1 }))
      ),
      /** Takes one retry, or fails when the budget is spent (naming `lastError`, what failed last). */
      retry: (operation: string, lastError?: string) =>
        Ref.modify(state, (s) => {
          const limit = allowed(s.requests)
          return s.retries < limit
            ? ([undefined, { ...s, retries: s.retries + 1 }] as const)
            : ([new BudgetExhausted({ reason: "RetryBudget", operation, limit, used: s.retries, wanted: 0, lastError }), s] as const)
        }).pipe(Effect.flatMap((e) => (e === undefined ? bump("retries") : Effect.fail(e)))),
      stats: Effect.map(Ref.get(state), (s): RetryBudgetStats => ({ ...s, allowed: allowed(s.requests) }))
    }
  })

export class RetryBudget extends Effect.Service<RetryBudget>()("service/RetryBudget", {
  effect: Effect.flatMap(ServiceSettings, (s) => makeRetryBudget({ ratio: s.retryRatio, floor: s.retryFloor }))
}) {}
