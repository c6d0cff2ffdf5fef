import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, TestClock } from "effect"
import { CostGuard } from "../../src/service/CostGuard.js"
import { PlatformClient } from "../../src/service/PlatformClient.js"
import { RetryBudget } from "../../src/service/RetryBudget.js"
import { API_KEY, fastSettings, withClients } from "./clients.js"
import { localServer, type SeenRequest, waitFor } from "./localServer.js"

/** The spec's problem codes with their statuses ("Errors", platform host). */
const CODES: ReadonlyArray<readonly [string, number]> = [
  ["invalid_request", 400],
  ["key_in_query", 400],
  ["page_depth_exceeded", 400],
  ["unauthorized", 401],
  ["invalid_credential", 401],
  ["credential_revoked", 401],
  ["token_expired", 401],
  ["payment_required", 402],
  ["insufficient_scope", 403],
  ["not_entitled", 403],
  ["account_suspended", 403],
  ["not_found", 404],
  ["method_not_allowed", 405],
  ["conflict", 409],
  ["payload_too_large", 413],
  ["brand_new_code", 418]
]

const problem = (code: string, status: number, extra: Record<string, unknown> = {}) => ({
  status,
  headers: { "content-type": "application/problem+json", "svc-request-id": `req_${code}` },
  body: {
    type: `http://platform.test/errors/${code.replace(/_/g, "-")}`,
    title: code,
    status,
    detail: `detail of ${code}`,
    instance: "/v1/ai/search",
    code,
    request_id: `req_${code}`,
    ...extra
  }
})

const ok = (units = 40, body: unknown = { results: [], count: 0 }) => ({
  status: 200,
  headers: {
    "svc-request-id": `req_${Math.random().toString(36).slice(2)}`,
    "svc-units-charged": String(units),
    "svc-units-remaining": "1000",
    "svc-units-source": "balance",
    "svc-plan": "sandbox"
  },
  body
})

const noSecret = (e: unknown) => {
  const all = [String(e), JSON.stringify(e), (e as Error).message ?? ""].join("\n")
  expect(all).not.toContain(API_KEY)
}

describe("PlatformClient", () => {
  it.scopedLive("maps every problem code to its tagged error", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req) => {
        const { code } = JSON.parse(req.body) as { code: string }
        const status = CODES.find(([c]) => c === code)![1]
        if (code === "conflict") return problem(code, status, { detail: `conflict for ${req.headers.authorization}` })
        return problem(code, status, code === "payment_required" ? { payment_url: "https://pay.example.test/top-up" } : {})
      })
      const results = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        return yield* Effect.forEach(CODES, ([code]) => Effect.exit(client.premisesSearch({ code })))
      }).pipe(withClients(fastSettings(server.url, server.url)))
      for (const [i, [code, status]] of CODES.entries()) {
        const exit = results[i]!
        expect(Exit.isFailure(exit)).toBe(true)
        const e = (exit as Exit.Failure<unknown, any>).cause._tag === "Fail" ? ((exit as any).cause.error as any) : undefined
        noSecret(e)
        if (status === 401) {
          expect(e._tag).toBe("AuthenticationFailed")
          expect(e.reason).toBe(code)
          expect(e.requestId).toBe(`req_${code}`)
        } else if (status === 402) {
          expect(e._tag).toBe("PaymentRequired")
          expect(e.paymentUrl).toBe("https://pay.example.test/top-up")
          expect(e.message).toContain("https://pay.example.test/top-up")
        } else {
          expect(e._tag).toBe("PlatformProblem")
          expect(e.reason).toBe(code)
          expect(e.status).toBe(status)
          expect(e.requestId).toBe(`req_${code}`)
          // A body echoing the key is scrubbed before it reaches the error.
          expect(e.detail).toBe(code === "conflict" ? "conflict for Bearer <redacted>" : `detail of ${code}`)
          expect(e.operation).toBe("ai_search_premises")
        }
        expect(e.message.split("\n")).toHaveLength(1)
      }
      // Terminal errors are never retried: one request per code.
      expect(server.requests).toHaveLength(CODES.length)
    })
  )

  it.scopedLive("maps plot search's {error:{code,message}}; quota_reached is not retried, rate_limited is", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req, i) =>
        JSON.parse(req.body).criteria.keywords?.[0] === "quota"
          ? { status: 429, body: { error: { code: "quota_reached", message: "daily quota spent" } } }
          : i < 3
            ? { status: 429, headers: { "retry-after": "0" }, body: { error: { code: "rate_limited", message: "slow down" } } }
            : ok(1, { results: [], count: 0, returned: 0, offset: 0 })
      )
      const [quota, limited] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const q = yield* Effect.flip(client.plotSearch({ criteria: { keywords: ["quota"] } }))
        const l = yield* client.plotSearch({ criteria: { keywords: ["lager"] } })
        return [q, l] as const
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(quota._tag).toBe("PlatformProblem")
      expect((quota as any).reason).toBe("quota_reached")
      expect((quota as any).detail).toBe("daily quota spent")
      expect(limited.units.charged).toBe(1)
      expect(server.requests).toHaveLength(4) // 1 quota + 2 rate_limited + 1 ok
    })
  )

  it.scopedLive("sends the key only as a bearer header and reads the units headers", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ok(40, { results: [{ id: "prem_1" }], count: 1 }))
      const res = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        return yield* client.premisesSearch({ limit: 10 })
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(res.units).toMatchObject({ charged: 40, remaining: 1000, source: "balance", plan: "sandbox" })
      expect(res.requestId).toMatch(/^req_/)
      expect(JSON.parse(res.raw)).toEqual({ results: [{ id: "prem_1" }], count: 1 })
      const seen = server.requests[0]!
      expect(seen.headers.authorization).toBe(`Bearer ${API_KEY}`)
      expect(seen.url).not.toContain(API_KEY)
      expect(seen.url).toBe("/v1/ai/search")
    })
  )

  it.scopedLive("never puts the key in a URL, even when a caller tries", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ok())
      const errors = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        return yield* Effect.all([
          Effect.flip(client.sellerLeads({ latitude: 40.4, longitude: -3.7, api_key: API_KEY } as never)),
          Effect.flip(client.sourcingNext(`${server.url}/v1/property-sourcing/searches/c1?key=${API_KEY}`)),
          Effect.flip(client.sourcingNext(`http://elsewhere.test/v1/property-sourcing/searches/c1`))
        ])
      }).pipe(withClients(fastSettings(server.url, server.url)))
      for (const e of errors) {
        expect(e._tag).toBe("InvalidRequest")
        noSecret(e)
      }
      expect(server.requests).toHaveLength(0)
    })
  )

  it.scopedLive("refuses a bad request body before any request leaves the process", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ok())
      const errors = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        return yield* Effect.all([
          Effect.flip(client.premisesSearch({ limit: 500 })),
          Effect.flip(client.plotSearch({ criteria: { plot_types: ["castle"] } })),
          Effect.flip(client.sourcingResolve({ url: "https://portal.test/h/1", listing_id: 7 })),
          Effect.flip(client.sourcingProperty("../admin"))
        ])
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(errors.map((e) => [e._tag, (e as any).reason])).toEqual([
        ["InvalidRequest", "Body"],
        ["InvalidRequest", "Body"],
        ["InvalidRequest", "Body"],
        ["InvalidRequest", "Path"]
      ])
      expect(errors[0]!.message).toContain("limit")
      expect(server.requests).toHaveLength(0)
    })
  )

  it.scopedLive("never retries a call the service charged, and still records the charge", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req) =>
        JSON.parse(req.body).limit === 1
          ? { status: 503, headers: { "svc-units-charged": "40", "retry-after": "0" }, body: { code: "unavailable", status: 503 } }
          : { ...ok(40), body: '{"results": [' }
      )
      const [a, b, totals] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const guard = yield* CostGuard
        const a = yield* Effect.flip(client.premisesSearch({ limit: 1 }))
        const b = yield* Effect.flip(client.premisesSearch({ limit: 2 }))
        return [a, b, yield* guard.totals] as const
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(a._tag).toBe("PlatformProblem")
      expect(b._tag).toBe("TransportError")
      expect((b as any).reason).toBe("InvalidBody")
      expect(server.requests).toHaveLength(2)
      expect([a, b].map((e) => (e as { unitsCharged?: number }).unitsCharged)).toEqual([40, 40])
      expect(totals.charged).toBe(80)
      expect(totals.reserved).toBe(0)
    })
  )

  it.scopedLive("a charged answer whose body breaks off is neither retried nor lost from the ledger", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ({
        ...ok(40, { results: [{ id: "prem_1", title: "Local comercial" }], count: 1 }),
        truncate: true
      }))
      const [e, totals] = yield* Effect.gen(function* () {
        const e = yield* Effect.flip((yield* PlatformClient).premisesSearch({}))
        return [e, yield* (yield* CostGuard).totals] as const
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(e).toMatchObject({ _tag: "TransportError", reason: "TruncatedBody", unitsCharged: 40 })
      expect(server.requests).toHaveLength(1)
      expect(totals.charged).toBe(40)
    })
  )

  it.scopedLive("retries an uncharged 503 and an HTML proxy page, then succeeds", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_, i) =>
        i === 0
          ? { status: 503, headers: { "content-type": "application/problem+json" }, body: JSON.stringify({ status: 503 }) }
          : i === 1
            ? { status: 502, headers: { "content-type": "text/html" }, body: "<html><body>Bad gateway</body></html>" }
            : ok(40)
      )
      const [res, stats, budget] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const r = yield* client.premisesSearch({})
        return [r, yield* client.stats, yield* (yield* RetryBudget).stats] as const
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(res.units.charged).toBe(40)
      expect(stats).toMatchObject({ attempts: 3, retries: 2 })
      expect(budget).toMatchObject({ requests: 1, retries: 2 })
    })
  )

  // the timeout runs on the TestClock: the first answer never comes in time, the second always
  // does, however loaded the machine (a real 150 ms timeout failed under load)
  it.scoped("a paid call that timed out is not sent again (it may have been charged), unless retryUnansweredPaid says so", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_, i) => (i === 0 ? { ...ok(40), delayMs: 5_000 } : ok(40)))
      const e = yield* Effect.gen(function* () {
        const call = yield* Effect.fork(Effect.flip((yield* PlatformClient).premisesSearch({})))
        yield* waitFor(() => server.requests.length === 1)
        while (Option.isNone(yield* Fiber.poll(call))) {
          yield* TestClock.adjust("150 millis")
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
        }
        return yield* Fiber.join(call)
      }).pipe(withClients(fastSettings(server.url, server.url, { timeoutMs: 150 })))
      expect(e).toMatchObject({ _tag: "TransportError", reason: "Timeout" })
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scoped("times out a slow answer, retries it when told to, and reports a refused connection as a network error", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_, i) => (i === 0 ? { ...ok(40), delayMs: 5_000 } : ok(40)))
      const [res, stats] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const call = yield* Effect.fork(client.premisesSearch({}))
        yield* waitFor(() => server.requests.length === 1)
        // past the timeout, then through the retry's backoff until the second attempt is sent
        while (server.requests.length < 2) {
          yield* TestClock.adjust("150 millis")
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
        }
        return [yield* Fiber.join(call), yield* client.stats] as const
      }).pipe(withClients(fastSettings(server.url, server.url, { timeoutMs: 150, retryUnansweredPaid: true })))
      expect(res.units.charged).toBe(40)
      expect(stats).toMatchObject({ attempts: 2, retries: 1 })

      const e = yield* Effect.gen(function* () {
        const call = yield* Effect.fork(Effect.flip((yield* PlatformClient).premisesSearch({})))
        // the retry's backoff waits on the TestClock
        while (Option.isNone(yield* Fiber.poll(call))) {
          yield* TestClock.adjust("50 millis")
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
        }
        return yield* Fiber.join(call)
      }).pipe(withClients(fastSettings("http://127.0.0.1:9", "http://127.0.0.1:9", { maxRetries: 1 })))
      expect(e).toMatchObject({ _tag: "TransportError", reason: "Network", detail: "ECONNREFUSED" })
      expect(e.message).not.toMatch(/\n|at .*\(/)
    })
  )

  it.scopedLive("never lets charged units exceed the cap under concurrency", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ({ ...ok(40), delayMs: 20 }))
      const [exits, totals] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const guard = yield* CostGuard
        const exits = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          () => Effect.exit(client.premisesSearch({})),
          { concurrency: 50 }
        )
        return [exits, yield* guard.totals] as const
      }).pipe(withClients(fastSettings(server.url, server.url, { maxUnits: 400 })))
      const succeeded = exits.filter(Exit.isSuccess).length
      const refused = exits.filter((e) => Exit.isFailure(e) && JSON.stringify(e).includes("UnitCap")).length
      expect(succeeded).toBeLessThanOrEqual(10)
      expect(succeeded + refused).toBe(50)
      expect(totals.charged).toBeLessThanOrEqual(400)
      expect(totals.charged).toBe(succeeded * 40)
      expect(server.requests.length).toBe(succeeded)
    })
  )

  it.scopedLive("stops a host answering 503 to everything on the retry budget", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => ({ status: 503, body: { status: 503 } }))
      const settings = fastSettings(server.url, server.url, { retryFloor: 10, retryRatio: 0.1, maxRetries: 3 })
      const outcome = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const budget = yield* RetryBudget
        // The engine's loop: keep going past ordinary failures, stop on a budget.
        let requests = 0
        let stopped: unknown = undefined
        while (requests < 100 && stopped === undefined) {
          requests++
          const e = yield* Effect.flip(client.sourcingSearch({ country: "ES", operation: "sale" }))
          if (e._tag === "BudgetExhausted") stopped = e
        }
        return { requests, stopped, stats: yield* budget.stats }
      }).pipe(withClients(settings))
      expect((outcome.stopped as any)?.reason).toBe("RetryBudget")
      const bound = outcome.requests + Math.floor(0.1 * outcome.requests + 10)
      expect(server.requests.length).toBeLessThanOrEqual(bound)
      expect(server.requests.length).toBe(outcome.stats.requests + outcome.stats.retries)
      expect(outcome.requests).toBeLessThan(10)
    })
  )
})

export type { SeenRequest }
