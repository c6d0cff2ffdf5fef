/**
 * Pacing ahead of time for one host, shared by every concurrent request to it: request starts are
 * spaced so that a long run at the policy's rate meets (almost) no 429.
 *
 * Starts follow a schedule of absolute deadlines `interval = window / (quota * headroom)` apart:
 * each start moves the next deadline one interval on from its own deadline, not from when it
 * actually left. A start that left late (a timer firing late on a busy event loop, GC, or no
 * request ready when its slot came) therefore leaves the next slot where the schedule put it,
 * and the lateness is made up instead of lost, up to a credit: the schedule never falls further
 * behind than the headroom's slack, `window * (1 - headroom) / headroom` (about 30 ms for a
 * 1-second window at 0.97) and never more than one interval. With that credit any window of the
 * policy's length holds fewer than `quota + 1` starts (deadlines are an interval apart, a start
 * leaves at most the credit behind its deadline), so catching up never costs a 429; a headroom of
 * 1 leaves no credit. Issue 33 measured the old spacing (from the previous actual start, a quarter
 * interval of catch-up) losing the lateness of every start.
 * - The policy is learnt from `RateLimit-Policy` (the strictest one), starting from the configured rate.
 * - The `RateLimit` state tightens it: with `r` left for `t` seconds (beyond the policy's own
 *   window, e.g. a daily quota shared with others), starts are spread at least `t / r` apart
 *   until the reset; `r = 0` pauses until the reset. `t` is whole seconds, so in short windows
 *   "until the reset" is learnt instead (never longer than `t`): the window that ran out holds
 *   the policy's quota of this host's requests, all answered but those still in flight, so it
 *   frees a request a window after the oldest of those answers, fixed or sliding (`freedAt`);
 *   when fewer answers were seen, the window learnt from an answer whose window began since the
 *   previous one's (`r` one below the quota: the window's first request; or `r` jumped up) and
 *   the policy's window length give the boundary. Without them a one-second window that ran out
 *   paused a whole second, which capped a 20/s policy at 0.65; a run whose first window held the
 *   whole quota (its first request early in the window, one run in four) read 0.94 instead of
 *   0.97; and a sliding window lost up to a second at each `r = 0` (60 requests at 20/s: 4.9 s
 *   against 3.0 s now). Assumed: the quota is this host's alone (a request of another client in
 *   the window makes `freedAt` give way to the window learnt, which assumes a fixed window).
 * - A 429 pauses every start until `Retry-After` (or the reset `t`, or one second).
 * Time is read from `Clock` and waits are `Effect.sleep`, so `TestClock` drives it.
 */
import { Clock, Effect, Ref } from "effect"
import { type RateLimitInfo, type RateLimitState, strictestRate, tightestState } from "./RateLimitHeaders.js"

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
  /** Sum over starts of how late each left after its slot while a request was waiting for it, ms (timer lateness, a busy event loop). */
  readonly lateMs: number
  /** Sum over starts of how long the slot stood unused before a request came to take it, ms (no request ready: too few in flight for the latency, or fetching held back). */
  readonly idleMs: number
}

interface State {
  baseIntervalMs: number
  /** The strictest policy's window, ms (1 s until a policy is seen). */
  windowMs: number
  learnedRate: number | undefined
  tightIntervalMs: number
  tightUntil: number
  pausedUntil: number
  /** The schedule's next deadline, epoch ms (no start before it). */
  nextDue: number
  taken: number
  waited: number
  lateMs: number
  idleMs: number
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

/** How many answers' times the pacer keeps, for `r = 0` in windows of up to that many requests (`freedAt`). */
const RECENT_ANSWERS = 1024

/** Spacing of starts for a rate; a rate of 0 (none configured, no policy seen yet) paces nothing. */
const intervalFor = (rate: number, headroom: number) => (rate <= 0 ? 0 : 1000 / Math.max(1e-6, rate * headroom))

/** The policy of state `name` (by name, or the only one). */
const policyOf = (info: RateLimitInfo, name: string) =>
  info.policies.find((p) => p.name === name) ?? (info.policies.length === 1 ? info.policies[0] : undefined)

/**
 * Whether this answer shows a window of state `st` that began since the one `seen` last: an
 * answer with all but one of the policy's quota left (the first request of its window, whatever
 * order answers come in), or `r` jumping up by more than answers overtaking each other explain.
 * Its window began just before this answer (by the request's lateness and exchange). Not the
 * first answer of all: it may come late in its window, and a boundary counted from it would
 * come early in the windows after.
 */
const windowBegan = (st: RateLimitState, seen: { readonly last: number } | undefined, quota: number | undefined) =>
  (quota !== undefined && st.remaining === quota - 1) || (seen !== undefined && st.remaining > seen.last + 1)

/**
 * When the window of state `name` next begins, from when one was seen to begin and the policy's
 * window length, for a fixed window. The estimate errs late by the time between a window's start
 * and its first answer, so pausing until it starts no request in the window that ran out.
 */
const nextWindow = (info: RateLimitInfo, name: string, began: number | undefined, now: number): number | undefined => {
  const policy = policyOf(info, name)
  if (began === undefined || policy === undefined || policy.windowSeconds <= 0) return undefined
  const w = policy.windowSeconds * 1000
  return began + Math.max(1, Math.ceil((now - began) / w)) * w
}

export const makePacer = (options: PacerOptions): Effect.Effect<Pacer> =>
  Effect.gen(function* () {
    const state = yield* Ref.make<State>({
      baseIntervalMs: intervalFor(options.ratePerSecond, options.headroom),
      windowMs: 1000,
      learnedRate: undefined,
      tightIntervalMs: 0,
      tightUntil: 0,
      pausedUntil: 0,
      nextDue: Number.NEGATIVE_INFINITY,
      taken: 0,
      waited: 0,
      lateMs: 0,
      idleMs: 0,
      windows: {}
    })
    const currentInterval = (s: State, now: number) =>
      now < s.tightUntil ? Math.max(s.baseIntervalMs, s.tightIntervalMs) : s.baseIntervalMs
    /** How far behind its schedule a start may leave and still be made up (see the header); 2 ms for rounding and sub-millisecond starts. */
    const creditOf = (s: State) => Math.max(0, Math.min(s.baseIntervalMs, (s.windowMs * (1 - options.headroom)) / options.headroom - 2))

    // Starts pass one at a time: the head waiter sleeps until its deadline, re-checking after each
    // sleep (a 429 seen meanwhile may have paused the host).
    const gate = yield* Effect.makeSemaphore(1)
    const take = gate.withPermits(1)(
      Effect.gen(function* () {
        let waited = false
        const arrived = yield* Clock.currentTimeMillis
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const s = yield* Ref.get(state)
          const interval = currentInterval(s, now)
          const due = Math.max(s.nextDue, s.pausedUntil)
          // Sub-millisecond waits are not worth a timer (and would stall a paused TestClock).
          if (due - now < 1) {
            // The next deadline is one interval after this one, this one taken no further back
            // than the credit before now: lateness is made up, up to the credit.
            const nextDue = Math.max(due, now - creditOf(s)) + interval
            // only paced starts count (before a policy is seen nothing is due)
            const slot = due > 0 && interval > 0 ? due : Math.max(now, arrived)
            yield* Ref.set(state, {
              ...s,
              nextDue,
              taken: s.taken + 1,
              waited: s.waited + (waited ? 1 : 0),
              lateMs: s.lateMs + Math.max(0, now - Math.max(slot, arrived)),
              idleMs: s.idleMs + Math.max(0, arrived - slot)
            })
            return
          }
          waited = true
          yield* Effect.sleep(Math.ceil(due - now))
        }
      })
    )

    // when the service counted this host's latest answers (not its 429s), the last
    // RECENT_ANSWERS of them; and how many answers were seen (a request that got none, a network failure, stays "in flight":
    // `freedAt` then errs late, or gives way to the window learnt)
    const counted = new Float64Array(RECENT_ANSWERS) // a ring: answer `i` (0-based) at `i % RECENT_ANSWERS`
    let countedN = 0
    let answered = 0
    /**
     * `r = 0` in a window of `quota` requests of `windowMs`: when the window that ran out frees a
     * request, fixed or sliding. Of its `quota` requests, all but those still in flight
     * (`inFlight`: their answers may come after this one) were answered by now, each after it
     * arrived; so the window began no later than the oldest of those answers, and a sliding one
     * lets that request go a window after it. Undefined when fewer answers were seen, or they left
     * the window already (others share the quota).
     */
    const freedAt = (quota: number, inFlight: number, windowMs: number, now: number): number | undefined => {
      const n = quota - inFlight
      if (n < 1 || n > Math.min(countedN, RECENT_ANSWERS)) return undefined
      const at = counted[(countedN - n) % RECENT_ANSWERS]! + windowMs
      return at > now ? at : undefined
    }

    const observe = (info: RateLimitInfo, status: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        answered++
        if (status !== 429) counted[countedN++ % RECENT_ANSWERS] = now
        return Ref.update(state, (s) => {
          const inFlight = Math.max(0, s.taken - answered)
          const next = { ...s }
          const rate = strictestRate(info.policies)
          if (rate !== undefined && rate > 0) {
            next.learnedRate = rate
            next.baseIntervalMs = intervalFor(rate, options.headroom)
            const strictest = info.policies.find(
              (p) => (p.quotaUnit === undefined || p.quotaUnit === "requests") && p.quota / p.windowSeconds === rate
            )
            if (strictest !== undefined && strictest.windowSeconds > 0) next.windowMs = strictest.windowSeconds * 1000
          }
          let tightened = false
          const windows = { ...s.windows }
          for (const st of info.states) {
            const seen = windows[st.name]
            const policy = policyOf(info, st.name)
            const quota = policy !== undefined && (policy.quotaUnit ?? "requests") === "requests" ? policy.quota : undefined
            const began = windowBegan(st, seen, quota) ? now : seen?.began
            windows[st.name] = { last: st.remaining, began }
            if (st.resetSeconds === undefined || st.resetSeconds <= 0) continue
            const resetAt = now + st.resetSeconds * 1000
            if (st.remaining === 0) {
              const freed =
                quota !== undefined && policy !== undefined ? freedAt(quota, inFlight, policy.windowSeconds * 1000, now) : undefined
              next.pausedUntil = Math.max(next.pausedUntil, Math.min(resetAt, freed ?? nextWindow(info, st.name, began, now) ?? resetAt))
            } else if (st.resetSeconds >= 2) {
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
      })

    const snapshot = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.map(Ref.get(state), (s): PacerSnapshot => ({
        intervalMs: currentInterval(s, now),
        learnedRate: s.learnedRate,
        pausedUntil: s.pausedUntil,
        taken: s.taken,
        waited: s.waited,
        lateMs: s.lateMs,
        idleMs: s.idleMs
      }))
    )
    return { take, observe, snapshot }
  })
