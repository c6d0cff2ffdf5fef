/**
 * Retry of transient failures within the run's retry budget.
 *
 * Transient: network errors, timeouts, a truncated body, 408, 429 (except plot search's
 * `quota_reached`) and 5xx. Everything else is terminal. A response that says units were
 * charged (`Svc-Units-Charged` > 0) is never retried, whatever its status.
 *
 * Assumed (the cautious reading; docs/ASSUMPTIONS.md): a paid call that got no answer (a timeout,
 * a connection cut after the request went out) may have been charged; nothing shows it either
 * way (the spec prices premises search "per successful call" and says nothing of failed ones).
 * So it is not retried within the run unless `retryUnansweredPaid`: the run pauses and a resume
 * asks again. A refused connection (nothing was sent) is retried.
 *
 * Delay before retry n (0-based): `Retry-After` when the service sent one (seconds or HTTP
 * date), else exponential backoff `base * 2^n` with equal jitter, capped at `maxMs`; never less
 * than `minMs`, so `Retry-After: 0` cannot become a busy loop. A `Retry-After` longer than
 * `maxMs` is not waited out: the error is returned and the run pauses.
 */
import { Effect, Random } from "effect"
import type { RetryBudget } from "./RetryBudget.js"
import type { BudgetExhausted, ServiceError } from "./ServiceError.js"

export interface RetryPolicy {
  /** Retries of one request at most. */
  readonly maxRetries: number
  readonly baseMs: number
  readonly maxMs: number
  readonly minMs: number
}

/** The retry policy of the service settings (both host clients use it). */
export const retryPolicyOf = (s: {
  readonly maxRetries: number
  readonly retryBaseMs: number
  readonly retryMaxMs: number
  readonly retryMinMs: number
}): RetryPolicy => ({
  maxRetries: s.maxRetries,
  baseMs: s.retryBaseMs,
  maxMs: s.retryMaxMs,
  minMs: s.retryMinMs
})

import { firstLine, isTransient } from "../shared/ErrorClass.js"

export { chargedOf, isTransient } from "../shared/ErrorClass.js"

/** The request may have reached the service and got no answer: a timeout, a connection cut after it was sent. */
export const unanswered = (e: unknown): boolean => {
  const t = e as { _tag?: string; reason?: string; detail?: string } | null
  if (t?._tag !== "TransportError") return false
  if (t.reason === "Timeout") return true
  return t.reason === "Network" && !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/.test(t.detail ?? "")
}

/** The server's requested wait, if any. */
export const retryAfterOf = (e: unknown): number | undefined => {
  const r = (e as { retryAfterMs?: unknown } | null)?.retryAfterMs
  return typeof r === "number" && r >= 0 ? r : undefined
}

/**
 * Delay before retry `n` (0-based), or `undefined` when the server asks for longer than the
 * policy allows. `random` in [0, 1) draws the jitter.
 */
export const retryDelayMs = (policy: RetryPolicy, n: number, error: unknown, random: number): number | undefined => {
  const asked = retryAfterOf(error)
  if (asked !== undefined) return asked > policy.maxMs ? undefined : Math.max(policy.minMs, asked)
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** n)
  return Math.max(policy.minMs, Math.round(ceiling / 2 + (random * ceiling) / 2))
}

/** The first line of an error's message, at most 160 characters (service errors carry no secrets). */
const oneLine = (error: unknown): string | undefined => {
  const m = typeof error === "object" && error !== null && "message" in error ? String((error as { message: unknown }).message) : undefined
  if (m === undefined || m.length === 0) return undefined
  const line = firstLine(m)
  return line.length > 160 ? `${line.slice(0, 157)}...` : line
}

/**
 * Runs `attempt`, retrying transient failures with backoff while the per-request limit and the
 * run's budget allow. Sleeps with `Effect.sleep`, so `TestClock` drives it.
 */
export const withRetry = <A, E extends { readonly _tag: string }, R>(
  operation: string,
  attempt: Effect.Effect<A, E, R>,
  policy: RetryPolicy,
  budget: RetryBudget,
  hooks: {
    readonly onRetry?: (n: number, delayMs: number, error: E) => Effect.Effect<void>
    /** The call is paid and an unanswered one is not to be sent again (see the module's comment). */
    readonly paidUnansweredFinal?: boolean
  } = {}
): Effect.Effect<A, E | BudgetExhausted, R> => {
  const loop = (n: number): Effect.Effect<A, E | BudgetExhausted, R> =>
    Effect.catchAll(attempt, (error) => {
      if (n >= policy.maxRetries || !isTransient(error)) return Effect.fail(error)
      if (hooks.paidUnansweredFinal && unanswered(error)) return Effect.fail(error)
      return Effect.gen(function* () {
        const delay = retryDelayMs(policy, n, error, yield* Random.next)
        if (delay === undefined) return yield* Effect.fail(error)
        yield* budget.retry(operation, oneLine(error))
        if (hooks.onRetry) yield* hooks.onRetry(n, delay, error)
        yield* Effect.sleep(delay)
        return yield* loop(n + 1)
      })
    })
  return Effect.zipRight(budget.request, loop(0))
}
