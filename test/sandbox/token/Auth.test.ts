import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SANDBOX_USER } from "../../../src/sandbox/Credentials.js"
import { RESTRICTED_USER } from "../../../src/sandbox/token/TokenHost.js"
import { type TokenHostFixture, startTokenHost } from "./serveTokenHost.js"

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8"))
const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString("utf8"))
const PROTECTED = "/api/v1/references/conditions"

describe("token host authentication", () => {
  let h: TokenHostFixture
  beforeAll(async () => {
    h = await startTokenHost()
  })
  afterAll(() => h.close())

  it("logs in with e-mail and password and issues HS256 access and refresh tokens", async () => {
    const before = h.ctx.stats.logins.count
    const r = await h.call("POST", "/login", { body: SANDBOX_USER })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(["access_token", "refresh_token"])
    expect(headerOf(r.body.access_token)).toEqual({ alg: "HS256", typ: "JWT" })
    const access = claimsOf(r.body.access_token)
    const refresh = claimsOf(r.body.refresh_token)
    const nowS = Math.floor(h.ctx.clock.now() / 1000)
    expect(access).toMatchObject({ sub: SANDBOX_USER.email, typ: "access", exp: nowS + 900, epoch: h.ctx.tokenEpoch.value })
    expect(refresh).toMatchObject({ typ: "refresh", exp: nowS + 86_400 })
    expect(h.ctx.stats.logins.count).toBe(before + 1)
  })

  it("refuses wrong credentials with 401 {detail} and a bad body with 422", async () => {
    const wrong = await h.call("POST", "/login", { body: { email: SANDBOX_USER.email, password: "nope" } })
    expect(wrong.status).toBe(401)
    expect(typeof wrong.body.detail).toBe("string")
    const missing = await h.call("POST", "/login", { body: { email: SANDBOX_USER.email } })
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0]).toMatchObject({ loc: ["body", "password"], type: "missing" })
  })

  it("needs a bearer access token on every other route", async () => {
    const none = await h.call("GET", PROTECTED)
    expect(none.status).toBe(401)
    expect(typeof none.body.detail).toBe("string")
    const garbage = await h.call("GET", PROTECTED, { token: "not.a.jwt" })
    expect(garbage.status).toBe(401)
    const { access_token, refresh_token } = await h.login()
    expect((await h.call("GET", PROTECTED, { token: access_token })).status).toBe(200)
    // a refresh token is not an access token
    expect((await h.call("GET", PROTECTED, { token: refresh_token })).status).toBe(401)
    // a token signed with another key
    const other = access_token.split(".")
    const forged = `${other[0]}.${other[1]}.${Buffer.from("x".repeat(32)).toString("base64url")}`
    expect((await h.call("GET", PROTECTED, { token: forged })).status).toBe(401)
  })

  it("expires access tokens on the sandbox clock; refresh issues a new one", async () => {
    const { access_token, refresh_token } = await h.login()
    h.ctx.clock.advance(899_000)
    expect((await h.call("GET", PROTECTED, { token: access_token })).status).toBe(200)
    h.ctx.clock.advance(1_000)
    const expired = await h.call("GET", PROTECTED, { token: access_token })
    expect(expired.status).toBe(401)
    expect(expired.body.detail).toMatch(/expired/i)
    const before = h.ctx.stats.refreshes.count
    const r = await h.call("GET", "/refresh-token", { token: refresh_token })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(["access_token"])
    expect(h.ctx.stats.refreshes.count).toBe(before + 1)
    expect((await h.call("GET", PROTECTED, { token: r.body.access_token })).status).toBe(200)
  })

  it("answers 401 on refresh with an expired or invalid refresh token", async () => {
    const { access_token, refresh_token } = await h.login()
    expect((await h.call("GET", "/refresh-token", { token: access_token })).status).toBe(401)
    expect((await h.call("GET", "/refresh-token")).status).toBe(401)
    h.ctx.clock.advance(86_400_000)
    const r = await h.call("GET", "/refresh-token", { token: refresh_token })
    expect(r.status).toBe(401)
    expect(typeof r.body.detail).toBe("string")
  })

  it("revokes access tokens of an earlier epoch; refresh still works", async () => {
    const { access_token, refresh_token } = await h.login()
    h.ctx.tokenEpoch.value += 1
    expect((await h.call("GET", PROTECTED, { token: access_token })).status).toBe(401)
    const r = await h.call("GET", "/refresh-token", { token: refresh_token })
    expect(r.status).toBe(200)
    expect((await h.call("GET", PROTECTED, { token: r.body.access_token })).status).toBe(200)
  })

  it("answers 403 {detail} on alerts routes for a user without the Alerts subscription", async () => {
    const { access_token } = await h.login(RESTRICTED_USER)
    for (const [method, path] of [
      ["GET", "/api/v1/listing-alerts/feeds"],
      ["GET", "/alerts-api/feeds"],
      ["POST", "/alerts-api/webhooks/rotate-secret"]
    ] as const) {
      const r = await h.call(method, path, { token: access_token, ...(method === "POST" ? { body: {} } : {}) })
      expect(r.status).toBe(403)
      expect(typeof r.body.detail).toBe("string")
    }
    expect((await h.call("GET", PROTECTED, { token: access_token })).status).toBe(200)
    const full = await h.login()
    expect((await h.call("GET", "/api/v1/listing-alerts/feeds", { token: full.access_token })).status).toBe(200)
  })
})
