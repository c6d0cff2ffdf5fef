import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { PlatformClient } from "../../src/service/PlatformClient.js"
import { isTransient, retryDelayMs } from "../../src/service/Retry.js"
import { countAttempts, makeRetryBudget } from "../../src/service/RetryBudget.js"
import { PlatformProblem, TokenProblem, TransportError } from "../../src/service/ServiceError.js"
import { TokenClient } from "../../src/service/TokenClient.js"
import { fastSettings, withClients } from "./clients.js"
import { localServer, waitFor } from "./localServer.js"

const policy = { maxRetries: 5, baseMs: 500, maxMs: 30_000, minMs: 200 }
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0)
const problem = (status: number, extra: object = {}) => new PlatformProblem({ reason: `http_${status}`, status, operation: "op", ...extra })

/** Real time for the server's side of things to happen (or not). */
const settle = Effect.promise(() => new Promise((r) => setTimeout(r, 60)))

describe("retry policy", () => {
  it("classifies transient and terminal failures", () => {
    expect(isTransient(new TransportError({ reason: "Network", operation: "op" }))).toBe(true)
    expect(isTransient(new TransportError({ reason: "Timeout", operation: "op" }))).toBe(true)
    expect(isTransient(new TransportError({ reason: "InvalidBody", operation: "op" }))).toBe(false)
    for (const s of [408, 429, 500, 502, 503, 504]) expect(isTransient(problem(s))).toBe(true)
    for (const s of [400, 401, 402, 403, 404, 409, 413, 422]) expect(isTransient(problem(s))).toBe(false)
    expect(isTransient(new PlatformProblem({ reason: "quota_reached", status: 429, operation: "plot_search" }))).toBe(false)
    expect(isTransient(problem(503, { unitsCharged: 40 }))).toBe(false)
    expect(isTransient(new TokenProblem({ reason: "server_error", status: 500, operation: "op" }))).toBe(true)
    expect(isTransient(new TokenProblem({ reason: "validation", status: 422, operation: "op" }))).toBe(false)
  })

  it("backs off exponentially with jitter, capped, never below the minimum", () => {
    for (const n of [0, 1, 2, 3]) {
      const ceiling = 500 * 2 ** n
      expect(retryDelayMs(policy, n, problem(503), 0)).toBe(Math.max(200, ceiling / 2))
      expect(retryDelayMs(policy, n, problem(503), 0.999)).toBeLessThanOrEqual(ceiling)
    }
    expect(retryDelayMs(policy, 20, problem(503), 0.999)).toBeLessThanOrEqual(30_000)
  })

  it("lets Retry-After win, with a floor, and gives up when asked to wait longer than the cap", () => {
    expect(retryDelayMs(policy, 0, problem(429, { retryAfterMs: 7000 }), 0.5)).toBe(7000)
    expect(retryDelayMs(policy, 4, problem(429, { retryAfterMs: 1000 }), 0.5)).toBe(1000)
    expect(retryDelayMs(policy, 0, problem(503, { retryAfterMs: 0 }), 0.5)).toBe(200)
    expect(retryDelayMs(policy, 0, problem(429, { retryAfterMs: 3_600_000 }), 0.5)).toBeUndefined()
  })

  it.effect("retry budget: ratio * requests + floor, then BudgetExhausted", () =>
    Effect.gen(function* () {
      const budget = yield* makeRetryBudget({ ratio: 0.1, floor: 2 })
      for (let i = 0; i < 10; i++) yield* budget.request
      yield* budget.retry("op")
      yield* budget.retry("op")
      yield* budget.retry("op")
      const e = yield* Effect.flip(budget.retry("op"))
      expect(e).toMatchObject({ _tag: "BudgetExhausted", reason: "RetryBudget", limit: 3, used: 3 })
      expect(yield* budget.stats).toEqual({ requests: 10, retries: 3, allowed: 3 })
    })
  )

  it.effect("each page counts its own requests and retries, also when pages are fetched at once", () =>
    Effect.gen(function* () {
      const budget = yield* makeRetryBudget({ ratio: 1, floor: 100 })
      // page i sends i+1 requests and retries i of them, interleaved with the other pages
      const page = (i: number) =>
        Effect.gen(function* () {
          for (let n = 0; n <= i; n++) {
            yield* budget.request
            yield* Effect.yieldNow()
            if (n < i) yield* budget.retry("op")
            // a request forked inside the fetch (a token refresh) counts for the page too
            if (n === 0) yield* Effect.fork(budget.request).pipe(Effect.flatMap(Fiber.join))
          }
          return i
        })
      const counted = yield* Effect.forEach([0, 1, 2, 3], (i) => countAttempts(page(i)), { concurrency: 4 })
      expect(counted.map(([i, a]) => [i, a.requests, a.retries])).toEqual([
        [0, 2, 0],
        [1, 3, 1],
        [2, 4, 2],
        [3, 5, 3]
      ])
      expect(yield* budget.stats).toMatchObject({ requests: 14, retries: 6 })
    })
  )
})

describe("Retry-After over HTTP (TestClock)", () => {
  it.scoped("honours Retry-After in seconds", () =>
    Effect.gen(function* () {
      let calls = 0
      const server = yield* localServer((req) =>
        req.url === "/login"
          ? { status: 200, body: { access_token: "a1", refresh_token: "r1" } }
          : calls++ === 0
            ? { status: 503, headers: { "retry-after": "2" }, body: { detail: "maintenance" } }
            : { status: 200, body: [{ name: "used" }] }
      )
      const settings = fastSettings(server.url, server.url, { retryMaxMs: 60_000, retryBaseMs: 10 })
      yield* Effect.gen(function* () {
        const client = yield* TokenClient
        const fiber = yield* Effect.fork(client.request("GET", "/api/v1/references/conditions", { operation: "conditions" }))
        yield* waitFor(() => server.requests.length === 2) // login + first attempt
        yield* TestClock.adjust("1999 millis")
        yield* settle
        expect(server.requests).toHaveLength(2)
        yield* TestClock.adjust("1 millis")
        yield* waitFor(() => server.requests.length === 3)
        const res = yield* Fiber.join(fiber)
        expect(res.body).toEqual([{ name: "used" }])
      }).pipe(withClients(settings))
    })
  )

  it.scoped("honours Retry-After as an HTTP date", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW)
      const server = yield* localServer((_, i) =>
        i === 0
          ? {
              status: 429,
              headers: { "retry-after": new Date(NOW + 3000).toUTCString() },
              body: { error: { code: "rate_limited", message: "wait" } }
            }
          : { status: 200, headers: { "svc-units-charged": "1" }, body: { results: [] } }
      )
      const settings = fastSettings(server.url, server.url, { retryMaxMs: 60_000 })
      yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const fiber = yield* Effect.fork(client.plotSearch({ criteria: {} }))
        yield* waitFor(() => server.requests.length === 1)
        yield* TestClock.adjust("2999 millis")
        yield* settle
        expect(server.requests).toHaveLength(1)
        yield* TestClock.adjust("1 millis")
        yield* waitFor(() => server.requests.length === 2)
        const res = yield* Fiber.join(fiber)
        expect(res.units.charged).toBe(1)
      }).pipe(withClients(settings))
    })
  )

  it.scoped("Retry-After: 0 waits the minimum delay, never a busy loop", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ({ status: 503, headers: { "retry-after": "0" }, body: { status: 503 } }))
      const settings = fastSettings(server.url, server.url, { retryMinMs: 250, maxRetries: 2 })
      yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const fiber = yield* Effect.fork(Effect.flip(client.sourcingSearch({ country: "ES", operation: "sale" })))
        yield* waitFor(() => server.requests.length === 1)
        yield* settle
        expect(server.requests).toHaveLength(1)
        yield* TestClock.adjust("249 millis")
        yield* settle
        expect(server.requests).toHaveLength(1)
        yield* TestClock.adjust("1 millis")
        yield* waitFor(() => server.requests.length === 2)
        yield* TestClock.adjust("250 millis")
        yield* waitFor(() => server.requests.length === 3)
        const e = yield* Fiber.join(fiber)
        expect(e).toMatchObject({ _tag: "PlatformProblem", status: 503 })
        expect(server.requests).toHaveLength(3)
      }).pipe(withClients(settings))
    })
  )
})
