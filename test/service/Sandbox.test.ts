/** Both clients against the sandbox (both hosts on ephemeral 127.0.0.1 ports). */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { LOW_BALANCE_API_KEY, REVOKED_API_KEY, SANDBOX_API_KEY, SANDBOX_USER, SUSPENDED_API_KEY } from "../../src/sandbox/Credentials.js"
import { CostGuard } from "../../src/service/CostGuard.js"
import { PlatformClient } from "../../src/service/PlatformClient.js"
import { RetryBudget } from "../../src/service/RetryBudget.js"
import type { ServiceSettingsInput } from "../../src/service/ServiceSettings.js"
import { TokenClient } from "../../src/service/TokenClient.js"
import { type SandboxHandle, withSandbox } from "../support/sandbox.js"
import { withClients } from "./clients.js"

const settingsFor = (sb: SandboxHandle, over: Partial<ServiceSettingsInput> = {}): ServiceSettingsInput => ({
  platformUrl: sb.platformUrl,
  apiUrl: sb.apiUrl,
  apiKey: SANDBOX_API_KEY,
  email: SANDBOX_USER.email,
  password: SANDBOX_USER.password,
  timeoutMs: 2000,
  retryBaseMs: 5,
  retryMaxMs: 2000,
  retryMinMs: 5,
  platformRate: 10_000,
  apiRate: 10_000,
  ...over
})

const spent = (sb: SandboxHandle) => Object.values(sb.control.stats().unitsSpent).reduce((a, b) => a + b, 0)

describe("clients against the sandbox", () => {
  it.scopedLive("premises search: 40 units charged, read from the headers and recorded by the guard", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox()
      const [res, charges] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const r = yield* client.premisesSearch({ limit: 5 })
        return [r, yield* (yield* CostGuard).totals] as const
      }).pipe(withClients(settingsFor(sb)))
      expect(res.units.charged).toBe(40)
      expect(res.units.requestId).toMatch(/^req_/)
      expect(charges).toMatchObject({ charged: 40, calls: 1 })
      expect(spent(sb)).toBe(40)
    })
  )

  it.scopedLive("credentials and balances map to their errors", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox()
      const run = (apiKey: string) =>
        Effect.gen(function* () {
          return yield* Effect.flip((yield* PlatformClient).premisesSearch({}))
        }).pipe(withClients(settingsFor(sb, { apiKey })))
      const revoked = yield* run(REVOKED_API_KEY)
      const suspended = yield* run(SUSPENDED_API_KEY)
      const broke = yield* run(LOW_BALANCE_API_KEY)
      expect(revoked).toMatchObject({ _tag: "AuthenticationFailed", reason: "credential_revoked" })
      expect(suspended).toMatchObject({ _tag: "PlatformProblem", reason: "account_suspended", status: 403 })
      expect(broke._tag).toBe("PaymentRequired")
      expect((broke as any).paymentUrl).toMatch(/^https?:\/\//)
      for (const [e, key] of [
        [revoked, REVOKED_API_KEY],
        [suspended, SUSPENDED_API_KEY],
        [broke, LOW_BALANCE_API_KEY]
      ] as const) {
        expect(JSON.stringify(e) + e.message).not.toContain(key)
      }
    })
  )

  it.scopedLive("the unit cap holds under 50 concurrent premises searches", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox()
      const [exits, totals] = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const exits = yield* Effect.forEach(Array.from({ length: 50 }), () => Effect.exit(client.premisesSearch({})), { concurrency: 50 })
        return [exits, yield* (yield* CostGuard).totals] as const
      }).pipe(withClients(settingsFor(sb, { maxUnits: 400 })))
      expect(exits.filter(Exit.isSuccess).length).toBeLessThanOrEqual(10)
      expect(totals.charged).toBeLessThanOrEqual(400)
      expect(spent(sb)).toBe(totals.charged)
    })
  )

  it.scopedLive("ten concurrent requests meeting expired access tokens cause one refresh", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox()
      yield* Effect.gen(function* () {
        const client = yield* TokenClient
        yield* client.referenceConditions()
        sb.control.expireAccessTokens()
        yield* Effect.all(
          Array.from({ length: 10 }, () => client.referenceConditions()),
          { concurrency: 10 }
        )
      }).pipe(withClients(settingsFor(sb)))
      expect(sb.control.stats()).toMatchObject({ logins: 1, refreshes: 1 })
    })
  )

  it.scopedLive("sourcing search pages through next links", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox()
      const pages = yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        const first = yield* client.sourcingSearch({ country: "ES", operation: "sale", limit: 5 })
        const out = [first.page]
        let next = first.page.next
        while (next && out.length < 3) {
          const page = yield* client.sourcingNext(next)
          out.push(page.page)
          next = page.page.next
        }
        return out
      }).pipe(withClients(settingsFor(sb)))
      expect(pages.length).toBeGreaterThan(1)
      const ids = pages.flatMap((p) => p.records.map((r) => (r as { id: string }).id))
      expect(new Set(ids).size).toBe(ids.length)
    })
  )

  it.scopedLive("rides out server errors, resets and truncated bodies within the retry budget", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox({ faults: { token: { serverErrorRate: 0.1, resetRate: 0.05, truncateRate: 0.05 } } })
      const [results, budget] = yield* Effect.gen(function* () {
        const client = yield* TokenClient
        const results = yield* Effect.forEach(Array.from({ length: 40 }), () => client.referenceConditions(), { concurrency: 4 })
        return [results, yield* (yield* RetryBudget).stats] as const
      }).pipe(withClients(settingsFor(sb, { retryFloor: 20 })))
      expect(results).toHaveLength(40)
      expect(budget.retries).toBeGreaterThan(0)
      expect(budget.retries).toBeLessThanOrEqual(budget.allowed)
    })
  )

  it.scopedLive("pacing keeps a run under the sandbox's 20/s limit with under 1% 429s", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox({ rateLimit: { platform: { quota: 20, windowSeconds: 1 } } })
      yield* Effect.gen(function* () {
        const client = yield* PlatformClient
        yield* Effect.forEach(Array.from({ length: 60 }), () => client.plotSearch({ criteria: { limit: 1 } }), {
          concurrency: 8,
          discard: true
        })
      }).pipe(withClients(settingsFor(sb, { platformRate: 20 })))
      const stats = sb.control.stats()
      const total = Object.values(stats.statuses).reduce((a, b) => a + b, 0)
      expect((stats.statuses["429"] ?? 0) / total).toBeLessThan(0.01)
    })
  )
})
