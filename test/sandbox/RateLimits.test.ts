/**
 * Rate limits per host and per credential over real HTTP: the RateLimit headers, 429 with
 * Retry-After in each host's body, windows moved by the control's clock (no sleeping), and the
 * plot search's daily quota.
 */
import { afterEach, describe, expect, it } from "vitest"
import * as C from "../../src/sandbox/Credentials.js"
import { call, startTestSandbox, type SandboxHandle } from "../support/sandbox.js"

let sb: (SandboxHandle & { close: () => Promise<void> }) | undefined
afterEach(() => sb?.close())

const search = { country: "ES", operation: "sale", limit: 1 }

/**
 * Moves a fresh sandbox's rate clock to just past the start of a window, so the calls of a test
 * fall in one window however slowly a loaded machine makes them (the windows are fixed).
 */
const atWindowStart = (handle: SandboxHandle, windowSeconds: number) => {
  const w = windowSeconds * 1000
  handle.control.advanceClock(w - (Date.now() % w) + 20)
}

describe("rate limits", () => {
  it("reports the policy, answers 429 with Retry-After past the quota, and resets with the window", async () => {
    sb = await startTestSandbox({ world: { properties: 1_000 }, rateLimit: { platform: { quota: 3, windowSeconds: 60 } } })
    atWindowStart(sb, 60)
    const answers = []
    for (let i = 0; i < 4; i++) answers.push(await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search }))
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429])
    for (const r of answers) expect(r.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60')
    expect(answers.map((r) => /r=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1])).toEqual(["2", "1", "0", "0"])
    const limited = answers[3]!
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(limited.headers.get("content-type")).toBe("application/problem+json")
    expect(limited.body.code).toBe("rate_limited")
    expect(limited.headers.get("svc-units-charged")).toBeNull()

    // Another credential has its own window.
    const other = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search, key: C.OAUTH_TOKEN })
    expect(other.status).toBe(200)

    sb.control.advanceClock(retryAfter * 1000)
    expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBe(200)
  })

  it("plot search answers 429 rate_limited in its own body", async () => {
    sb = await startTestSandbox({ world: { properties: 1_000 }, rateLimit: { platform: { quota: 1, windowSeconds: 30 } } })
    atWindowStart(sb, 30)
    await call(sb.platformUrl, "/v1/ai/plots/search", { body: { criteria: {} } })
    const r = await call(sb.platformUrl, "/v1/ai/plots/search", { body: { criteria: {} } })
    expect(r.status).toBe(429)
    expect(r.body).toEqual({ error: { code: "rate_limited", message: expect.any(String) } })
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0)
  })

  it("the token host answers 429 {detail} with Retry-After", async () => {
    sb = await startTestSandbox({ world: { properties: 1_000 }, rateLimit: { token: { quota: 2, windowSeconds: 10 } } })
    atWindowStart(sb, 10)
    const login = () => call(sb!.apiUrl, "/login", { body: C.SANDBOX_USER, key: null })
    const statuses = [(await login()).status, (await login()).status]
    const third = await login()
    expect(statuses).toEqual([200, 200])
    expect(third.status).toBe(429)
    expect(third.body).toEqual({ detail: expect.any(String) })
    expect(third.headers.get("retry-after")).toBeTruthy()
    expect(third.headers.get("ratelimit-policy")).toBe('"default";q=2;w=10')
  })

  it("setRateLimit applies at once; quota 0 turns limiting and its headers off", async () => {
    sb = await startTestSandbox({ world: { properties: 1_000 } })
    const free = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
    expect(free.headers.get("ratelimit")).toBeNull()
    sb.control.setRateLimit("platform", { quota: 1, windowSeconds: 5 })
    // both calls in one window: across a window's end the second is a first again
    atWindowStart(sb, 5)
    expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBe(200)
    expect((await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })).status).toBe(429)
  })

  it("plot search answers 429 quota_reached once the daily quota is spent, until the next day", async () => {
    sb = await startTestSandbox({ world: { properties: 1_000 }, plotDailyQuota: 2 })
    // the three calls in one sandbox day, wherever its clock stands
    sb.control.advanceClock(86_400_000 - (sb.control.now() % 86_400_000) + 20)
    const plot = () => call(sb!.platformUrl, "/v1/ai/plots/search", { body: { criteria: { limit: 1 } } })
    expect([(await plot()).status, (await plot()).status]).toEqual([200, 200])
    const r = await plot()
    expect(r.status).toBe(429)
    expect(r.body).toEqual({ error: { code: "quota_reached", message: expect.any(String) } })
    expect(r.headers.get("svc-units-charged")).toBeNull()
    sb.control.advanceClock(86_400_000)
    expect((await plot()).status).toBe(200)
  })
})
