/**
 * Pacing ahead of time for one host, shared by every concurrent request to it: request starts are
 * spaced so that a long run at the policy's rate meets (almost) no 429.
 *
 * Starts are spaced `interval = window / (quota * headroom)` apart, measured from the previous
 * start (late timers catch up by at most a quarter interval), so they are evenly spaced and never
 * burst, not even after a stalled event loop.
 * - The policy is learnt from `RateLimit-Policy` (the strictest one), starting from the configured rate.
 * - The `RateLimit` state tightens it: with `r` left for `t` seconds (beyond the policy's own
 *   window, e.g. a daily quota shared with others), starts are spread at least `t / r` apart
 *   until the reset; `r = 0` pauses until the reset. `t` is whole seconds, so in short windows
 *   "until the reset" is learnt instead: an answer whose `r` jumped up since the previous one
 *   marks a window that began meanwhile, and with the policy's window length the next boundary
 *   is known; `r = 0` then pauses until that boundary (never longer than `t`). Without it a
 *   one-second window that ran out paused a whole second, which capped a 20/s policy at 0.65.
 *   Assumed: a policy's window is fixed (its whole quota comes back at the boundary). With a
 *   sliding window `r` rarely jumps, no boundary is learnt, and `r = 0` waits the whole `t`.
 * - A 429 pauses every start until `Retry-After` (or the reset `t`, or one second).
 * Time is read from `Clock` and waits are `Effect.sleep`, so `TestClock` drives it.
 */
import { Clock, Effect, Ref } from "effect"
import { type RateLimitInfo, strictestRate, tightestState } from "./RateLimitHeaders.js"

export interface PacerOptions {
  /** Requests per second before any policy header is seen. */
  readonly ratePerSecond: number
  /** Share (0..1] of the policy's rate to aim at. */
  readonly headroom: number
}

export interface PacerSnapshot {
  /** Current spacing of starts, ms (after tightening). */
  readonly intervalMs: number
  /** Rate learnt from `RateLimit-Policy`, requests/s (undefined before one was seen). */
  readonly learnedRate: number | undefined
  /** Epoch ms before which no request starts (after a 429 or `r = 0`). */
  readonly pausedUntil: number
  /** Requests paced so far, and how many of them waited. */
  readonly taken: number
  readonly waited: number
}

interface State {
  baseIntervalMs: number
  learnedRate: number | undefined
  tightIntervalMs: number
  tightUntil: number
  pausedUntil: number
  /** When the previous request started (its slot), epoch ms. */
  lastStart: number
  taken: number
  waited: number
  /** Per state name: the last `r` seen, and when a window was last seen to begin (epoch ms). */
  windows: Readonly<Record<string, { readonly last: number; readonly began?: number | undefined }>>
}

export interface Pacer {
  /** Waits for this request's start slot. */
  readonly take: Effect.Effect<void>
  /** Learns from one response's rate-limit headers (status 429 pauses). */
  readonly observe: (info: RateLimitInfo, status: number) => Effect.Effect<void>
  readonly snapshot: Effect.Effect<PacerSnapshot>
}

/** Spacing of starts for a rate; a rate of 0 (none configured, no policy seen yet) paces nothing. */
const intervalFor = (rate: number, headroom: number) => (rate <= 0 ? 0 : 1000 / Math.max(1e-6, rate * headroom))

/**
 * When the window of state `name` next begins, from when one was seen to begin and the policy's
 * window length. The estimate errs late (a window is seen to begin at the first answer in it),
 * so pausing until it never starts a request in the window that ran out.
 */
const nextWindow = (info: RateLimitInfo, name: string, began: number | undefined, now: number): number | undefined => {
  const policy = info.policies.find((p) => p.name === name) ?? (info.policies.length === 1 ? info.policies[0] : undefined)
  if (began === undefined || policy === undefined || policy.windowSeconds <= 0) return undefined
  const w = policy.windowSeconds * 1000
  return began + Math.max(1, Math.ceil((now - began) / w)) * w
}

export const makePacer = (options: PacerOptions): Effect.Effect<Pacer> =>
  Effect.gen(function* () {
    const state = yield* Ref.make<State>({
      baseIntervalMs: intervalFor(options.ratePerSecond, options.headroom),
      learnedRate: undefined,
      tightIntervalMs: 0,
      tightUntil: 0,
      pausedUntil: 0,
      lastStart: Number.NEGATIVE_INFINITY,
      taken: 0,
      waited: 0,
      windows: {}
    })
    const currentInterval = (s: State, now: number) =>
      now < s.tightUntil ? Math.max(s.baseIntervalMs, s.tightIntervalMs) : s.baseIntervalMs

    // Starts pass one at a time: the head waiter sleeps until its slot, re-checking after each
    // sleep (a 429 seen meanwhile may have paused the host). The slot is measured from the
    // previous ACTUAL start, so timers firing late (a busy event loop) never release a burst.
    const gate = yield* Effect.makeSemaphore(1)
    const take = gate.withPermits(1)(
      Effect.gen(function* () {
        let waited = false
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const s = yield* Ref.get(state)
          const slot = Math.max(s.lastStart + currentInterval(s, now), s.pausedUntil)
          const start = Math.max(now, slot)
          // Sub-millisecond waits are not worth a timer (and would stall a paused TestClock).
          if (start - now < 1) {
            // On time: keep the slot (no drift). Late (timers fire late on a busy event loop): catch
            // up by at most a quarter interval, so lateness costs little throughput yet never
            // releases a burst.
            const lastStart = Number.isFinite(s.lastStart) ? Math.max(slot, now - currentInterval(s, now) / 4) : Math.max(slot, now)
            yield* Ref.set(state, { ...s, lastStart, taken: s.taken + 1, waited: s.waited + (waited ? 1 : 0) })
            return
          }
          waited = true
          yield* Effect.sleep(Math.ceil(start - now))
        }
      })
    )

    const observe = (info: RateLimitInfo, status: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(state, (s) => {
          const next = { ...s }
          const rate = strictestRate(info.policies)
          if (rate !== undefined && rate > 0) {
            next.learnedRate = rate
            next.baseIntervalMs = intervalFor(rate, options.headroom)
          }
          let tightened = false
          const windows = { ...s.windows }
          for (const st of info.states) {
            const seen = windows[st.name]
            // `r` jumping up (by more than answers overtaking each other explain) means a new window
            const began = seen !== undefined && st.remaining > seen.last + 1 ? now : seen?.began
            windows[st.name] = { last: st.remaining, began }
            if (st.resetSeconds === undefined || st.resetSeconds <= 0) continue
            const resetAt = now + st.resetSeconds * 1000
            if (st.remaining === 0)
              next.pausedUntil = Math.max(next.pausedUntil, Math.min(resetAt, nextWindow(info, st.name, began, now) ?? resetAt))
            else if (st.resetSeconds >= 2) {
              // `t` is whole seconds (rounded up): below 2 s spreading r over it would throttle a
              // fixed one-second window's normal saw-tooth for nothing; even pacing covers it.
              // The latest answer replaces the earlier tightening; within one answer the strictest state wins.
              const interval = (st.resetSeconds * 1000) / (st.remaining * options.headroom)
              if (!tightened || interval > next.tightIntervalMs) {
                tightened = true
                next.tightIntervalMs = interval
                next.tightUntil = resetAt
              }
            }
          }
          next.windows = windows
          const tight = tightestState(info.states)
          if (status === 429) {
            const pause = info.retryAfterMs ?? (tight?.resetSeconds !== undefined ? tight.resetSeconds * 1000 : 1000)
            next.pausedUntil = Math.max(next.pausedUntil, now + pause)
          }
          return next
        })
      )

    const snapshot = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.map(Ref.get(state), (s): PacerSnapshot => ({
        intervalMs: currentInterval(s, now),
        learnedRate: s.learnedRate,
        pausedUntil: s.pausedUntil,
        taken: s.taken,
        waited: s.waited
      }))
    )
    return { take, observe, snapshot }
  })
