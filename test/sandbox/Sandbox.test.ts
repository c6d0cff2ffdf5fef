/**
 * Starting and stopping: options are decoded before anything binds, both hosts answer on their
 * own ephemeral ports, and `close()` frees them.
 */
import { describe, expect, it } from "vitest"
import { Effect, Exit } from "effect"
import { Sandbox, startSandbox } from "../../src/sandbox/Sandbox.js"
import { call, startTestSandbox } from "../support/sandbox.js"

describe("Sandbox.start", () => {
  it.each([
    ["a fault rate above 1", { faults: { platform: { serverErrorRate: 2 } } }],
    ["a port out of range", { platformPort: 70_000 }],
    ["a start time that is not a date", { startTime: "soon" }]
  ])("refuses %s with SandboxError InvalidOptions", async (_, options) => {
    const exit = await Effect.runPromiseExit(Effect.scoped(Sandbox.start(options as never)))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toContain("InvalidOptions")
    await expect(startSandbox(options as never)).rejects.toBeDefined()
  })

  it("serves both hosts on distinct ports and frees them on close", async () => {
    const sb = await startTestSandbox({ world: { properties: 500 } })
    expect(new URL(sb.platformUrl).port).not.toBe(new URL(sb.apiUrl).port)
    expect((await call(sb.platformUrl, "/__sandbox/stats", { key: null })).status).toBe(200)
    const tokenHost404 = await call(sb.apiUrl, "/no-such-path", { key: null })
    expect(tokenHost404.status).toBe(404)
    expect(tokenHost404.body).toEqual({ detail: expect.any(String) })
    await sb.close()
    await expect(fetch(`${sb.platformUrl}/__sandbox/stats`)).rejects.toThrow()
    await expect(fetch(`${sb.apiUrl}/login`)).rejects.toThrow()
  })

  it("injects token-host server errors in the token host's {detail} body", async () => {
    const sb = await startTestSandbox({ world: { properties: 500 }, faults: { token: { serverErrorRate: 1 } } })
    try {
      const r = await call(sb.apiUrl, "/login", { body: { email: "a", password: "b" }, key: null })
      expect([500, 502, 503]).toContain(r.status)
      expect(r.body).toEqual({ detail: expect.any(String) })
    } finally {
      await sb.close()
    }
  })
})
