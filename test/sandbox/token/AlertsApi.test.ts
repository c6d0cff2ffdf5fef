/**
 * The webhook alerts family over HTTP: feeds (paginated newest first), the webhook URL, and
 * secret rotation with its 24-hour grace window against immediate revocation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SANDBOX_USER } from "../../../src/sandbox/Credentials.js"
import { ROTATION_GRACE_MS } from "../../../src/sandbox/token/WebhookSecrets.js"
import { webhookSecretStore } from "../../../src/sandbox/token/TokenHost.js"
import { type TokenHostFixture, hasIssue, startTokenHost } from "./serveTokenHost.js"

const SECRET_RE = /^whsec_[A-Za-z0-9+/]+={0,2}$/

describe("alerts-api", () => {
  let h: TokenHostFixture
  let token: string
  beforeAll(async () => {
    h = await startTokenHost()
    token = (await h.login()).access_token
  })
  afterAll(() => h.close())

  it("creates feeds (201), lists them newest first across pages, reads and deletes them", async () => {
    const created: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const r = await h.call("POST", "/alerts-api/feeds", { token, body: { name: `feed ${i}`, filter: { alert_subtypes: ["new"] } } })
      expect(r.status).toBe(201)
      expect(r.body.feed_id).toMatch(/^feed_\d+$/)
      created.push(r.body.feed_id)
    }
    const seen: Array<string> = []
    let url: string | null = "/alerts-api/feeds?limit=2"
    while (url !== null) {
      const r = await h.call("GET", url, { token })
      expect(r.body.count).toBe(5)
      seen.push(...r.body.results.map((f: { feed_id: string }) => f.feed_id))
      url = r.body.next
    }
    expect(seen).toEqual([...created].reverse())
    const one = await h.call("GET", `/alerts-api/feeds/${created[2]}`, { token })
    expect(one.body).toMatchObject({ feed_id: created[2], name: "feed 2", filter: { alert_subtypes: ["new"] } })
    expect((await h.call("DELETE", `/alerts-api/feeds/${created[2]}`, { token })).status).toBe(204)
    expect((await h.call("GET", `/alerts-api/feeds/${created[2]}`, { token })).status).toBe(404)
    expect((await h.call("DELETE", `/alerts-api/feeds/${created[2]}`, { token })).status).toBe(404)
    const bad = await h.call("POST", "/alerts-api/feeds", { token, body: { filter: {} } })
    expect(hasIssue(bad.body, "body.name", "missing")).toBe(true)
  })

  it("sets the webhook URL", async () => {
    const r = await h.call("PUT", "/alerts-api/webhooks", { token, body: { url: "https://hooks.example.com/alerts" } })
    expect(r).toEqual({ status: 200, body: { url: "https://hooks.example.com/alerts" } })
    expect(webhookSecretStore(h.ctx).url(SANDBOX_USER.email)).toBe("https://hooks.example.com/alerts")
    const bad = await h.call("PUT", "/alerts-api/webhooks", { token, body: { url: "not a url" } })
    expect(bad.status).toBe(422)
    expect(hasIssue(bad.body, "body.url", "url_parsing")).toBe(true)
  })

  it("rotates with a 24-hour grace window by default", async () => {
    const store = webhookSecretStore(h.ctx)
    const [initial] = store.activeSecrets(SANDBOX_USER.email)
    const r = await h.call("POST", "/alerts-api/webhooks/rotate-secret", { token, body: {} })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(["secret"])
    expect(r.body.secret).toMatch(SECRET_RE)
    expect(r.body.secret).not.toBe(initial)
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([r.body.secret, initial])
    h.ctx.clock.advance(ROTATION_GRACE_MS - 1)
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([r.body.secret, initial])
    h.ctx.clock.advance(1)
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([r.body.secret])
    token = (await h.login()).access_token
  })

  it("keeps several earlier secrets during overlapping grace windows; immediate revokes them all", async () => {
    const store = webhookSecretStore(h.ctx)
    const a = (await h.call("POST", "/alerts-api/webhooks/rotate-secret", { token, body: { immediate: false } })).body.secret
    const b = (await h.call("POST", "/alerts-api/webhooks/rotate-secret", { token, body: { immediate: false } })).body.secret
    expect(store.activeSecrets(SANDBOX_USER.email).slice(0, 3)).toEqual([b, a, expect.stringMatching(SECRET_RE)])
    const c = await h.call("POST", "/alerts-api/webhooks/rotate-secret", { token, body: { immediate: true } })
    expect(c.status).toBe(200)
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([c.body.secret])
    expect(new Set([a, b, c.body.secret]).size).toBe(3)
  })

  it("answers 422 on a missing or malformed rotate body", async () => {
    const missing = await h.call("POST", "/alerts-api/webhooks/rotate-secret", { token })
    expect(missing.status).toBe(422)
    expect(hasIssue(missing.body, "body", "missing")).toBe(true)
    const wrong = await h.call("POST", "/alerts-api/webhooks/rotate-secret", { token, body: { immediate: "now" } })
    expect(wrong.status).toBe(422)
    expect(hasIssue(wrong.body, "body.immediate", "bool_type")).toBe(true)
  })
})
