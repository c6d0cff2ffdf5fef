import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, TestClock } from "effect"
import { makePacer, type Pacer } from "../../src/service/Pacer.js"
import { PlatformClient } from "../../src/service/PlatformClient.js"
import type { RateLimitInfo } from "../../src/service/RateLimitHeaders.js"
import { fastSettings, withClients } from "./clients.js"
import { localServer } from "./localServer.js"

/** Forks `n` takers and returns the clock times at which each was let through. */
const startTimes = (take: Effect.Effect<void>, n: number, advanceMs: number) =>
  Effect.gen(function* () {
    const fibers = yield* Effect.forEach(Array.from({ length: n }), () => Effect.fork(Effect.zipRight(take, Clock.currentTimeMillis)))
    yield* TestClock.adjust(advanceMs)
    return (yield* Effect.forEach(fibers, Fiber.join)).sort((a, b) => a - b)
  })

const info = (over: Partial<RateLimitInfo>): RateLimitInfo => ({ policies: [], states: [], ...over })

/** A fixed window of 4 requests a second, as the service reports it. */
const policies = [{ name: "default", quota: 4, windowSeconds: 1 }]
/** What `pacer` observes of an answer with `remaining` of that window left (`t` rounded up to 1). */
const answerTo = (pacer: Pacer) => (remaining: number) =>
  pacer.observe(info({ policies, states: [{ name: "default", remaining, resetSeconds: 1 }] }), 200)

describe("Pacer (TestClock)", () => {
  it.effect("spaces starts evenly at the configured rate, shared by concurrent callers", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 10, headroom: 1 })
      expect(yield* startTimes(pacer.take, 5, 1000)).toEqual([0, 100, 200, 300, 400])
    })
  )

  it.effect("schedules by deadlines: a late start leaves the next slot where the schedule put it", () =>
    Effect.gen(function* () {
      // 8/s: deadlines 125 ms apart, a credit of min(125, 1000 * 0.2 / 0.8 - 2) = 125 ms
      const pacer = yield* makePacer({ ratePerSecond: 10, headroom: 0.8 })
      const at = (ms: number) => Effect.fork(Effect.zipRight(Effect.zipRight(Effect.sleep(ms), pacer.take), Clock.currentTimeMillis))
      // the second request comes 50 ms after its slot (the caller was busy); the third is waiting
      const fibers = yield* Effect.all([at(0), at(175), at(185)])
      yield* TestClock.adjust(1000)
      // measured from the previous actual start the third would leave at 300; on the schedule it leaves at 250
      expect(yield* Effect.forEach(fibers, Fiber.join)).toEqual([0, 175, 250])
      const snap = yield* pacer.snapshot
      expect(snap.idleMs).toBe(50)
      expect(snap.lateMs).toBe(0)
      // a headroom of 1 leaves no slack in the window, so no credit: lateness is not made up
      const strict = yield* makePacer({ ratePerSecond: 10, headroom: 1 })
      const at2 = (ms: number) => Effect.fork(Effect.zipRight(Effect.zipRight(Effect.sleep(ms), strict.take), Clock.currentTimeMillis))
      const now = yield* Clock.currentTimeMillis
      const fibers2 = yield* Effect.all([at2(0), at2(150), at2(160)])
      yield* TestClock.adjust(1000)
      expect((yield* Effect.forEach(fibers2, Fiber.join)).map((t) => t - now)).toEqual([0, 150, 250])
    })
  )

  it.effect("makes up at most the credit: after a stall, one start early, then the rate", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 10, headroom: 0.8 })
      const at = (ms: number) => Effect.fork(Effect.zipRight(Effect.zipRight(Effect.sleep(ms), pacer.take), Clock.currentTimeMillis))
      const first = yield* at(0)
      // nobody asks for a second: slots from 125 to 1000 go unused; then five requests at once
      const rest = yield* Effect.all(Array.from({ length: 5 }, () => at(1000)))
      yield* TestClock.adjust(3000)
      expect(yield* Fiber.join(first)).toBe(0)
      // the first of them is 125 ms behind the schedule (the credit): the next may follow at once
      expect((yield* Effect.forEach(rest, Fiber.join)).sort((a, b) => a - b)).toEqual([1000, 1000, 1125, 1250, 1375])
    })
  )

  it.effect("never lets more than the quota start in any window of the policy's length, whatever the arrivals", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 100, headroom: 0.97 })
      yield* pacer.observe(info({ policies: [{ name: "default", quota: 20, windowSeconds: 1 }] }), 200)
      // arrivals in bursts and gaps (a fixed pseudo-random sequence): late, idle and crowded slots
      let x = 7
      const next = () => (x = (x * 48271) % 2147483647) / 2147483647
      let t = 0
      const arrivals: Array<number> = []
      for (let i = 0; i < 400; i++) {
        t += next() < 0.2 ? Math.floor(next() * 400) : next() < 0.5 ? 0 : Math.floor(next() * 60)
        arrivals.push(t)
      }
      const fibers = yield* Effect.forEach(arrivals, (ms) =>
        Effect.fork(Effect.zipRight(Effect.zipRight(Effect.sleep(ms), pacer.take), Clock.currentTimeMillis))
      )
      yield* TestClock.adjust(t + 60_000)
      const starts = (yield* Effect.forEach(fibers, Fiber.join)).sort((a, b) => a - b)
      let most = 0
      for (let i = 0, j = 0; i < starts.length; i++) {
        while (starts[i]! - starts[j]! >= 1000) j++
        most = Math.max(most, i - j + 1)
      }
      expect(most).toBeLessThanOrEqual(20)
      // and the rate is kept: the whole run takes no longer than the schedule and the arrivals need
      expect(starts[starts.length - 1]!).toBeLessThanOrEqual(Math.max(t, (400 / 19.4) * 1000) + 1000)
    })
  )

  it.effect("learns the policy from RateLimit-Policy, with headroom", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 100, headroom: 0.8 })
      yield* pacer.observe(info({ policies: [{ name: "default", quota: 20, windowSeconds: 1 }] }), 200)
      const snap = yield* pacer.snapshot
      expect(snap.learnedRate).toBe(20)
      expect(snap.intervalMs).toBeCloseTo(62.5)
      const times = yield* startTimes(pacer.take, 4, 1000)
      expect(times.map((t) => Math.round(t))).toEqual([0, 63, 125, 188])
    })
  )

  it.effect("r = 0 pauses every start until the reset", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
      yield* pacer.observe(info({ states: [{ name: "default", remaining: 0, resetSeconds: 2 }] }), 200)
      const times = yield* startTimes(pacer.take, 2, 3000)
      expect(times[0]).toBe(2000)
      expect(times[1]).toBe(2001)
    })
  )

  it.effect("r = 0 in a short window pauses until the window that was seen to begin comes round again, not the whole rounded-up t", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
      const answer = answerTo(pacer)
      yield* TestClock.adjust(100)
      yield* answer(1) // the end of a window
      yield* TestClock.adjust(150)
      yield* answer(3) // r jumped up: a window began by 250 ms
      yield* TestClock.adjust(150)
      yield* answer(2)
      yield* TestClock.adjust(150)
      yield* answer(1)
      yield* TestClock.adjust(100)
      yield* answer(0) // at 650 ms the window ran out; it began at (or before) 250, so the next begins by 1250
      expect((yield* pacer.snapshot).pausedUntil).toBe(1250)
      // with no window seen to begin and fewer answers than the quota, r = 0 pauses the whole t
      const fresh = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
      yield* answerTo(fresh)(0)
      expect((yield* fresh.snapshot).pausedUntil).toBe(650 + 1000)
    })
  )

  it.effect("the run's first window running out pauses until a window after its first answer, not the whole rounded-up t", () =>
    Effect.gen(function* () {
      // A run whose first request came early in a window that then held the whole quota: before,
      // no window had been seen to begin and r = 0 paused the whole t (a 20/s run at 0.94, not 0.97).
      const pacer = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
      const answer = answerTo(pacer)
      yield* TestClock.adjust(100)
      yield* answer(3)
      yield* TestClock.adjust(300)
      yield* answer(2)
      yield* answer(1)
      yield* answer(0)
      expect((yield* pacer.snapshot).pausedUntil).toBe(1100)
      expect((yield* startTimes(pacer.take, 1, 2000))[0]).toBe(1100)
    })
  )

  it.effect(
    "r = 0 pauses until the oldest answer of the window leaves it, fixed or sliding; answers still in flight are not counted in it",
    () =>
      Effect.gen(function* () {
        // Every request is taken from the pacer; the answers carry the policy only with r = 0, so
        // that the pacer, not having learnt the rate before, lets each start at once.
        const request = (pacer: Pacer, sent: number) => Effect.zipRight(TestClock.setTime(sent), pacer.take)
        const answer = (pacer: Pacer, seen: number, remaining: number) =>
          Effect.zipRight(
            TestClock.setTime(seen),
            pacer.observe(
              info({ states: [{ name: "default", remaining, resetSeconds: 1 }], ...(remaining === 0 ? { policies } : {}) }),
              200
            )
          )
        // A fixed window: two requests (800, 900) in one, then four from 1000, the third's answer
        // slow and the fourth's (r = 0) before it.
        const pacer = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
        yield* request(pacer, 800)
        yield* answer(pacer, 805, 3)
        yield* request(pacer, 900)
        yield* answer(pacer, 905, 2)
        yield* request(pacer, 1000)
        yield* answer(pacer, 1005, 3)
        yield* request(pacer, 1010)
        yield* answer(pacer, 1015, 2)
        yield* request(pacer, 1020)
        yield* request(pacer, 1030)
        yield* answer(pacer, 1035, 0)
        // the window holds the four from 1000, three of them answered, the oldest at 1005; taking the
        // slow one's place for answered would reach back to 905 and start a request at 1905, inside it
        expect((yield* pacer.snapshot).pausedUntil).toBe(2005)

        // A sliding window: four requests 250 ms apart fill it; the first leaves it a second after it
        // arrived (4005), before the rounded-up t (4755) and the window learnt from the first answer
        const sliding = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
        for (const [sent, r] of [
          [3000, 3],
          [3250, 2],
          [3500, 1],
          [3750, 0]
        ] as const) {
          yield* request(sliding, sent)
          yield* answer(sliding, sent + 5, r)
        }
        expect((yield* sliding.snapshot).pausedUntil).toBe(4005)
        // the next request fills it again (250, 500, 750 and it): the one of 3250 leaves it at 4255,
        // where a window counted from the first answer would come round at 5005
        yield* request(sliding, 4005)
        yield* answer(sliding, 4010, 0)
        expect((yield* sliding.snapshot).pausedUntil).toBe(4255)

        // past the answers it keeps (a long run), the latest ones still tell it
        const long = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
        for (let i = 0; i < 1030; i++) yield* answer(long, 10_000 + i, 3)
        yield* answer(long, 11_030, 0)
        expect((yield* long.snapshot).pausedUntil).toBe(11_027 + 1000)
      })
  )

  it.effect("r one below the quota marks a new window even when r rose by one only", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
      const answer = (at: number, remaining: number) => Effect.zipRight(TestClock.setTime(at), answerTo(pacer)(remaining))
      // a window with two requests (the first answer at 100), then the next window's first
      // request answered at 1010: r rose from 2 to 3, within what answers overtaking each other explain
      yield* answer(100, 3)
      yield* answer(950, 2)
      yield* answer(1010, 3)
      yield* answer(1200, 2)
      yield* answer(1300, 1)
      yield* answer(1400, 0)
      // the window began by 1010; from the first answer's 100 it would have been 2100
      expect((yield* pacer.snapshot).pausedUntil).toBe(2010)
    })
  )

  it.effect("a 429 pauses until Retry-After", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 1000, headroom: 1 })
      yield* pacer.observe(info({ retryAfterMs: 1500 }), 429)
      expect((yield* startTimes(pacer.take, 1, 2000))[0]).toBe(1500)
    })
  )

  it.effect("a low remaining count over a long reset spreads the rest", () =>
    Effect.gen(function* () {
      const pacer = yield* makePacer({ ratePerSecond: 100, headroom: 1 })
      yield* pacer.observe(info({ states: [{ name: "daily", remaining: 4, resetSeconds: 8 }] }), 200)
      expect((yield* pacer.snapshot).intervalMs).toBe(2000)
      expect(yield* startTimes(pacer.take, 3, 10_000)).toEqual([0, 2000, 4000])
      // A one-second window's saw-tooth (t rounded up to 1) does not throttle.
      const other = yield* makePacer({ ratePerSecond: 20, headroom: 1 })
      yield* other.observe(info({ states: [{ name: "default", remaining: 1, resetSeconds: 1 }] }), 200)
      expect((yield* other.snapshot).intervalMs).toBe(50)
    })
  )
})

describe("Pacer over HTTP (real time)", () => {
  it.scopedLive("keeps a run at a strict 20 requests/s limit: never faster, at most one 429 in 60", () =>
    Effect.gen(function* () {
      // A strict fixed one-second window of 20 requests, as the sandbox reports it.
      const windows = new Map<number, number>()
      let rejected = 0
      const server = yield* localServer(() => {
        const now = Date.now()
        const w = Math.floor(now / 1000)
        const used = windows.get(w) ?? 0
        const reset = Math.max(1, Math.ceil(((w + 1) * 1000 - now) / 1000))
        const rl = { "ratelimit-policy": `"default";q=20;w=1`, ratelimit: `"default";r=${Math.max(0, 20 - used - 1)};t=${reset}` }
        if (used >= 20) {
          rejected++
          return {
            status: 429,
            headers: { ...rl, "retry-after": String(reset), "content-type": "application/problem+json" },
            body: { code: "rate_limited", status: 429 }
          }
        }
        windows.set(w, used + 1)
        return { status: 200, headers: { ...rl, "svc-units-charged": "40" }, body: { results: [] }, delayMs: 5 }
      })
      const started = Date.now()
      yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        yield* Effect.forEach(Array.from({ length: 60 }), () => client.premisesSearch({}), { concurrency: 8, discard: true })
        expect((yield* client.pacer).learnedRate).toBe(20)
      }).pipe(withClients(fastSettings(server.url, server.url, { platformRate: 20, pacingHeadroom: 0.9 })))
      const elapsed = Date.now() - started
      // Every search answered once; at most one 429 (on a loaded machine a request started in one
      // second can reach the server in the next, so two seconds' starts may meet in one window);
      // the starts' own spacing is the TestClock tests' above.
      expect(server.requests.length - rejected).toBe(60)
      expect(rejected).toBeLessThanOrEqual(1)
      // 60 starts at 18/s: a little over 3 s, never faster; not throttled to a crawl either
      // (the upper bound leaves room for a machine at load 20).
      expect(elapsed).toBeGreaterThan(3000)
      expect(elapsed).toBeLessThan(7000)
    })
  )

  it.scopedLive(
    "under a sliding window (not the fixed one assumed) a run at the policy's rate still ends, each 429 paused for and retried",
    () =>
      Effect.gen(function* () {
        // 20 requests in any second: the window slides with each request, so the boundary the
        // pacer learns can come early; the request that meets the 429 waits for Retry-After.
        const accepted: Array<number> = []
        let rejected = 0
        const server = yield* localServer(() => {
          const now = Date.now()
          while (accepted.length > 0 && accepted[0]! <= now - 1000) accepted.shift()
          const reset = accepted.length === 0 ? 1 : Math.max(1, Math.ceil((accepted[0]! + 1000 - now) / 1000))
          const rl = {
            "ratelimit-policy": `"default";q=20;w=1`,
            ratelimit: `"default";r=${Math.max(0, 20 - accepted.length - 1)};t=${reset}`
          }
          if (accepted.length >= 20) {
            rejected++
            return {
              status: 429,
              headers: { ...rl, "retry-after": String(reset), "content-type": "application/problem+json" },
              body: { code: "rate_limited", status: 429 }
            }
          }
          accepted.push(now)
          return { status: 200, headers: { ...rl, "svc-units-charged": "40" }, body: { results: [] }, delayMs: 5 }
        })
        const started = Date.now()
        yield* Effect.gen(function* () {
          const client = yield* PlatformClient
          yield* Effect.forEach(Array.from({ length: 60 }), () => client.premisesSearch({}), { concurrency: 8, discard: true })
        }).pipe(withClients(fastSettings(server.url, server.url, { platformRate: 20, pacingHeadroom: 0.97 })))
        const elapsed = Date.now() - started
        console.log(`sliding window: ${rejected} x 429 in ${elapsed} ms`)
        expect(server.requests.length - rejected).toBe(60)
        expect(rejected).toBeLessThanOrEqual(3)
        expect(elapsed).toBeLessThan(9000)
      })
  )
})
