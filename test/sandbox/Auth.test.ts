/**
 * Authentication of the platform host over real HTTP: where credentials are read, the
 * `key_in_query` refusal and every 401/403 code, each as an RFC 9457 problem record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as C from "../../src/sandbox/Credentials.js"
import { call, startTestSandbox, type SandboxHandle } from "../support/sandbox.js"

let sb: SandboxHandle & { close: () => Promise<void> }
beforeAll(async () => {
  sb = await startTestSandbox({ world: { properties: 2_000 } })
})
afterAll(() => sb.close())

const search = { country: "ES", operation: "sale", limit: 1 }

const expectProblem = (r: Awaited<ReturnType<typeof call>>, status: number, code: string, path: string) => {
  expect(r.status).toBe(status)
  expect(r.headers.get("content-type")).toBe("application/problem+json")
  const id = r.headers.get("svc-request-id")
  expect(id).toMatch(/^req_[0-9a-f]+$/)
  expect(r.body).toEqual({
    type: `${sb.platformUrl}/errors/${code.replace(/_/g, "-")}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: path,
    code,
    request_id: id
  })
}

describe("platform credentials", () => {
  it("accepts the API key as Bearer and as X-Api-Key", async () => {
    const bearer = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search })
    expect(bearer.status).toBe(200)
    const header = await call(sb.platformUrl, "/v1/property-sourcing/searches", {
      body: search,
      key: null,
      headers: { "X-Api-Key": C.SANDBOX_API_KEY }
    })
    expect(header.status).toBe(200)
    expect(header.body).toEqual(bearer.body)
  })

  it.each(["api_key", "key", "token", "access_token", "apikey", "API-KEY"])("refuses ?%s= with 400 key_in_query", async (name) => {
    const path = `/v1/ai/search?${name}=${C.SANDBOX_API_KEY}`
    const r = await call(sb.platformUrl, path, { body: {} })
    expectProblem(r, 400, "key_in_query", "/v1/ai/search")
  })

  it("refuses a credential in the query even with a valid header, and charges nothing", async () => {
    const before = sb.control.getBalance("key_default")
    const r = await call(sb.platformUrl, "/v1/property-sourcing/searches?access_token=x", { body: search })
    expectProblem(r, 400, "key_in_query", "/v1/property-sourcing/searches")
    expect(sb.control.getBalance("key_default")).toBe(before)
  })

  it.each([
    ["no credential", null, 401, "unauthorized"],
    ["an unknown key", "sk_sandbox_unknown", 401, "invalid_credential"],
    ["a revoked key", C.REVOKED_API_KEY, 401, "credential_revoked"],
    ["an expired OAuth token", C.OAUTH_TOKEN_EXPIRED, 401, "token_expired"],
    ["a suspended account", C.SUSPENDED_API_KEY, 403, "account_suspended"],
    ["an account not entitled", C.NOT_ENTITLED_API_KEY, 403, "not_entitled"],
    ["an OAuth token without ai:read", C.OAUTH_TOKEN_NO_AI_READ, 403, "insufficient_scope"]
  ] as const)("premises search with %s answers %i %s", async (_, key, status, code) => {
    const r = await call(sb.platformUrl, "/v1/ai/search", { body: { limit: 1 }, key })
    expectProblem(r, status, code, "/v1/ai/search")
  })

  it("needs ai:read on premises search only; a valid OAuth token with it passes", async () => {
    const sourcing = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search, key: C.OAUTH_TOKEN_NO_AI_READ })
    expect(sourcing.status).toBe(200)
    const premises = await call(sb.platformUrl, "/v1/ai/search", { body: { limit: 1 }, key: C.OAUTH_TOKEN })
    expect(premises.status).toBe(200)
  })

  it("does not take an OAuth token in the API key header", async () => {
    const r = await call(sb.platformUrl, "/v1/ai/search", { body: {}, key: null, headers: { "X-Api-Key": C.OAUTH_TOKEN } })
    expectProblem(r, 401, "invalid_credential", "/v1/ai/search")
  })

  it("plot search answers auth failures with its own error body", async () => {
    for (const [key, status, code] of [
      [null, 401, "unauthorized"],
      ["nope", 401, "invalid_credential"],
      [C.NOT_ENTITLED_API_KEY, 403, "not_entitled"]
    ] as const) {
      const r = await call(sb.platformUrl, "/v1/ai/plots/search", { body: { criteria: {} }, key })
      expect(r.status).toBe(status)
      expect(r.body).toEqual({ error: { code, message: expect.any(String) } })
      expect(r.headers.get("svc-request-id")).toMatch(/^req_/)
      expect(r.headers.get("ai-version")).toBeTruthy()
    }
  })

  it("answers unknown paths with a not_found problem", async () => {
    const r = await call(sb.platformUrl, "/v1/nothing-here")
    expectProblem(r, 404, "not_found", "/v1/nothing-here")
  })
})
