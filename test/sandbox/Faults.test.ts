/**
 * Fault injection over real HTTP, one fault type at a time (rate 1 so each request shows it),
 * and determinism: the same seed gives the same faults in the same order.
 */
import { afterEach, describe, expect, it } from "vitest"
import * as C from "../../src/sandbox/Credentials.js"
import type { SandboxOptions } from "../../src/sandbox/SandboxConfig.js"
import { call, startTestSandbox, type SandboxHandle } from "../support/sandbox.js"

let sbs: Array<SandboxHandle & { close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(sbs.map((s) => s.close()))
  sbs = []
})
const start = async (options: SandboxOptions = {}) => {
  const sb = await startTestSandbox({ world: { properties: 1_000 }, ...options })
  sbs.push(sb)
  return sb
}

const search = { country: "ES", operation: "sale", limit: 2 }
const post = (sb: SandboxHandle, init: RequestInit = {}) =>
  fetch(`${sb.platformUrl}/v1/property-sourcing/searches`, {
    method: "POST",
    headers: { authorization: `Bearer ${C.SANDBOX_API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(search),
    ...init
  })

describe("faults", () => {
  it("server errors: 500/502/503 problems, not charged", async () => {
    const sb = await start({ faults: { platform: { serverErrorRate: 1 } } })
    const statuses = new Set<number>()
    for (let i = 0; i < 12; i++) {
      const r = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
      expect([500, 502, 503]).toContain(r.status)
      expect(r.headers.get("content-type")).toBe("application/problem+json")
      expect(r.body.request_id).toBe(r.headers.get("svc-request-id"))
      statuses.add(r.status)
    }
    expect(statuses.size).toBeGreaterThan(1)
    expect(sb.control.stats().unitsSpent).toEqual({})
  })

  it("connection resets: the socket closes before any response", async () => {
    const sb = await start({ faults: { platform: { resetRate: 1 } } })
    const err = await post(sb).then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } }
    )
    expect(err).toBeInstanceOf(TypeError)
    expect(err?.cause?.code).toBe("UND_ERR_SOCKET")
    expect(sb.control.stats().statuses["0"]).toBe(1)
  })

  it("slow responses: a client with a shorter timeout gives up", async () => {
    const sb = await start({ faults: { platform: { slowRate: 1, slowMs: 5_000 } } })
    const err = await post(sb, { signal: AbortSignal.timeout(150) }).then(
      () => undefined,
      (e: Error) => e
    )
    expect(err?.name).toBe("TimeoutError")
  })

  it("truncated bodies: a valid status and headers, then the JSON is cut", async () => {
    const sb = await start({ faults: { platform: { truncateRate: 1 } } })
    const res = await post(sb)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(0)
    await expect(res.text()).rejects.toThrow()
  })

  it("429 bursts: consecutive 429s with Retry-After", async () => {
    const sb = await start({ faults: { platform: { burstRate: 1, burstLength: 3, burstRetryAfterSeconds: 2 } } })
    for (let i = 0; i < 3; i++) {
      const r = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
      expect(r.status).toBe(429)
      expect(r.headers.get("retry-after")).toBe("2")
      expect(r.body.code).toBe("rate_limited")
    }
  })

  it("token expiry: access tokens issued before answer 401, refresh still works", async () => {
    const sb = await start()
    const login = await call(sb.apiUrl, "/login", { body: C.SANDBOX_USER, key: null })
    const access = login.body.access_token as string
    expect((await call(sb.apiUrl, "/api/v1/references/conditions", { key: access })).status).toBe(200)
    sb.control.setFaults("token", { tokenExpiryRate: 1 })
    const epoch = sb.context.tokenEpoch.value
    expect((await call(sb.apiUrl, "/api/v1/references/conditions", { key: access })).status).toBe(401)
    expect(sb.context.tokenEpoch.value).toBe(epoch + 1)
    sb.control.setFaults("token", {})
    const refreshed = await call(sb.apiUrl, "/refresh-token", { key: login.body.refresh_token })
    expect(refreshed.status).toBe(200)
    expect((await call(sb.apiUrl, "/api/v1/references/conditions", { key: refreshed.body.access_token })).status).toBe(200)
  })

  it("expireAccessTokens has the same effect on demand", async () => {
    const sb = await start()
    const login = await call(sb.apiUrl, "/login", { body: C.SANDBOX_USER, key: null })
    sb.control.expireAccessTokens()
    expect((await call(sb.apiUrl, "/api/v1/references/conditions", { key: login.body.access_token })).status).toBe(401)
  })

  it("a balance that runs out mid-run: 402 once the units threshold is spent", async () => {
    const sb = await start({ faults: { platform: { unitsRunOutAfter: 3 } } })
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status)
    expect(statuses).toEqual([200, 200, 200, 402, 402])
  })

  it("drifted records: with driftRate 1 every result differs from the world's record", async () => {
    const sb = await start()
    const clean = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
    sb.control.setFaults("platform", { driftRate: 1 })
    const drifted = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
    expect(drifted.status).toBe(200)
    expect(drifted.body.results).toHaveLength(clean.body.results.length)
    for (let i = 0; i < clean.body.results.length; i++) expect(drifted.body.results[i]).not.toEqual(clean.body.results[i])
    expect(sb.context.driftRate.platform).toBe(1)
  })

  it("the same seed gives the same faults in the same order", async () => {
    const faults = { platform: { serverErrorRate: 0.3, burstRate: 0.1, burstLength: 2 } }
    const run = async (seed: number) => {
      const sb = await start({ seed, faults })
      const out = []
      for (let i = 0; i < 30; i++) out.push((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status)
      return out
    }
    const a = await run(7)
    const b = await run(7)
    expect(a).toEqual(b)
    expect(new Set(a).size).toBeGreaterThan(1)
  })
})
