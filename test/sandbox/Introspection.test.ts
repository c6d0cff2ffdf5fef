/**
 * Introspection: the in-process control and the same operations over HTTP under `/__sandbox/`,
 * the stats they report, reset, and the scoped fixture for @effect/vitest.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as C from "../../src/sandbox/Credentials.js"
import { call, callEffect, startTestSandbox, withSandbox } from "../support/sandbox.js"

const search = { country: "ES", operation: "sale", limit: 2 }

describe("introspection", () => {
  it.scoped("withSandbox serves both hosts on ephemeral ports for the scope", () =>
    Effect.gen(function* () {
      const sb = yield* withSandbox({ world: { properties: 1_000 } })
      expect(sb.platformUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(sb.apiUrl).not.toBe(sb.platformUrl)
      const r = yield* callEffect(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
      expect(r.status).toBe(200)
      const login = yield* callEffect(sb.apiUrl, "/login", { body: C.SANDBOX_USER, key: null })
      expect(login.status).toBe(200)
      expect(sb.control.stats().logins).toBe(1)
    })
  )

  it("stats count units per key id, requests per route pattern and statuses", async () => {
    const sb = await startTestSandbox({ world: { properties: 1_000 } })
    try {
      const first = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
      await call(sb.platformUrl, first.body.next)
      await call(sb.platformUrl, "/v1/ai/search", { body: {}, key: C.REVOKED_API_KEY })
      const stats = sb.control.stats()
      expect(stats.unitsSpent).toEqual({ key_default: 2 })
      expect(stats.requests).toEqual({
        "POST /v1/property-sourcing/searches": 1,
        "GET /v1/property-sourcing/searches/:cursor": 1,
        "POST /v1/ai/search": 1
      })
      expect(stats.statuses).toEqual({ "200": 2, "401": 1 })
      const overHttp = await call(sb.platformUrl, "/__sandbox/stats", { key: null })
      expect(overHttp.body).toEqual(stats)
      // Introspection itself is not counted.
      expect(sb.control.stats().requests).toEqual(stats.requests)
    } finally {
      await sb.close()
    }
  })

  it("controls balance, faults, rate limit, clock and reset over HTTP", async () => {
    const sb = await startTestSandbox({ world: { properties: 1_000 } })
    try {
      const u = (p: string) => `/__sandbox/${p}`
      expect((await call(sb.platformUrl, u("balance"), { body: { id: "key_default", units: 5 }, key: null })).status).toBe(200)
      expect((await call(sb.platformUrl, u("balance/key_default"), { key: null })).body).toEqual({ id: "key_default", balance: 5 })
      expect((await call(sb.platformUrl, "/v1/ai/search", { body: {} })).status).toBe(402)

      expect((await call(sb.platformUrl, u("faults"), { body: { host: "platform", serverErrorRate: 1 }, key: null })).status).toBe(200)
      expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBeGreaterThanOrEqual(500)
      expect((await call(sb.platformUrl, u("faults"), { body: { host: "platform", serverErrorRate: 2 }, key: null })).status).toBe(400)
      await call(sb.platformUrl, u("faults"), { body: { host: "platform" }, key: null })

      await call(sb.platformUrl, u("rate-limit"), { body: { host: "platform", quota: 1, windowSeconds: 60 }, key: null })
      expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBe(200)
      expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBe(429)
      const advanced = await call(sb.platformUrl, u("clock/advance"), { body: { ms: 60_000 }, key: null })
      expect(advanced.body.now).toBe("2026-06-01T00:01:00.000Z")
      expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBe(200)

      expect((await call(sb.platformUrl, u("reset"), { method: "POST", key: null })).status).toBe(200)
      expect(sb.control.getBalance("key_default")).toBe(C.SANDBOX_DEFAULT_BALANCE)
      expect(sb.control.stats()).toMatchObject({ unitsSpent: {}, requests: {}, statuses: {}, now: "2026-06-01T00:00:00.000Z" })
    } finally {
      await sb.close()
    }
  })

  it("serves ground truth from the world", async () => {
    const sb = await startTestSandbox({ world: { properties: 1_000, premises: 300 } })
    try {
      const premises = await call(sb.platformUrl, `/__sandbox/truth/premises?query=${encodeURIComponent('{"operation":"sale"}')}`, {
        key: null
      })
      expect(premises.body.count).toBe(sb.context.world.searchPremises({ operation: "sale" }).length)
      const bad = await call(sb.platformUrl, `/__sandbox/truth/plots?criteria=${encodeURIComponent('{"sort":"x"}')}`, { key: null })
      expect(bad.status).toBe(400)
    } finally {
      await sb.close()
    }
  })
})
