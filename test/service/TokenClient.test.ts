import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TokenClient } from "../../src/service/TokenClient.js"
import { EMAIL, fastSettings, PASSWORD, withClients } from "./clients.js"
import { localServer, type Reply, type SeenRequest } from "./localServer.js"

/** A token host in miniature: login, refresh, and routes that demand the current access token. */
const tokenHost = (routes: (req: SeenRequest) => Reply = () => ({ status: 200, body: [{ name: "used" }] })) => {
  const state = { access: new Set<string>(), refresh: new Set<string>(), n: 0, logins: 0, refreshes: 0, refreshAnswers401: false }
  const issue = () => `tok_${++state.n}`
  const handler = (req: SeenRequest): Reply => {
    const bearer = (req.headers.authorization ?? "").replace(/^Bearer /, "")
    if (req.url === "/login") {
      state.logins++
      const body = JSON.parse(req.body)
      if (body.email !== EMAIL || body.password !== PASSWORD) return { status: 401, body: { detail: "Invalid credentials" } }
      const [a, r] = [issue(), issue()]
      state.access.add(a)
      state.refresh.add(r)
      return { status: 200, body: { access_token: a, refresh_token: r } }
    }
    if (req.url === "/refresh-token") {
      state.refreshes++
      if (state.refreshAnswers401 || !state.refresh.has(bearer)) return { status: 401, body: { detail: "Refresh token expired" } }
      const a = issue()
      state.access.add(a)
      return { status: 200, body: { access_token: a } }
    }
    if (!state.access.has(bearer)) return { status: 401, body: { detail: "Token expired" } }
    return { ...routes(req), delayMs: 15 }
  }
  return { state, handler, expireAccess: () => state.access.clear() }
}

describe("TokenClient", () => {
  it.scopedLive("ten concurrent requests hitting an expired token cause exactly one refresh", () =>
    Effect.gen(function* () {
      const host = tokenHost()
      const server = yield* localServer(host.handler)
      yield* Effect.gen(function* () {
        const client = yield* TokenClient
        yield* client.referenceConditions()
        expect(host.state).toMatchObject({ logins: 1, refreshes: 0 })
        host.expireAccess()
        const results = yield* Effect.all(
          Array.from({ length: 10 }, () => client.referenceConditions()),
          { concurrency: 10 }
        )
        expect(results.map((r) => r.body)).toEqual(Array.from({ length: 10 }, () => [{ name: "used" }]))
        expect(host.state).toMatchObject({ logins: 1, refreshes: 1 })
        expect(yield* client.stats).toMatchObject({ logins: 1, refreshes: 1 })
      }).pipe(withClients(fastSettings(server.url, server.url)))
      // 1 login + 1 request + 10 rejected + 1 refresh + 10 replays
      expect(server.requests).toHaveLength(23)
    })
  )

  it.scopedLive("first requests log in once, even when concurrent", () =>
    Effect.gen(function* () {
      const host = tokenHost()
      const server = yield* localServer(host.handler)
      yield* Effect.gen(function* () {
        const client = yield* TokenClient
        yield* Effect.all(
          Array.from({ length: 8 }, () => client.referenceTypes()),
          { concurrency: 8 }
        )
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(host.state.logins).toBe(1)
    })
  )

  it.scopedLive("logs in again when the refresh answers 401", () =>
    Effect.gen(function* () {
      const host = tokenHost()
      const server = yield* localServer(host.handler)
      yield* Effect.gen(function* () {
        const client = yield* TokenClient
        yield* client.referenceAgencies()
        host.expireAccess()
        host.state.refreshAnswers401 = true
        const res = yield* client.referenceAgencies()
        expect(res.status).toBe(200)
        expect(host.state).toMatchObject({ logins: 2, refreshes: 1 })
      }).pipe(withClients(fastSettings(server.url, server.url)))
    })
  )

  it.scopedLive("a refused login fails with AuthenticationFailed and never shows the password or a token", () =>
    Effect.gen(function* () {
      const host = tokenHost()
      const server = yield* localServer(host.handler)
      const e = yield* Effect.gen(function* () {
        const client = yield* TokenClient
        return yield* Effect.flip(client.referenceAgents())
      }).pipe(withClients(fastSettings(server.url, server.url, { password: "wrong-password-123" })))
      expect(e).toMatchObject({ _tag: "AuthenticationFailed", reason: "LoginRejected", host: "token" })
      const text = [String(e), JSON.stringify(e), e.message].join("\n")
      expect(text).not.toContain("wrong-password-123")
      expect(text).not.toContain("tok_")
      expect(host.state.logins).toBe(1)
    })
  )

  it.scopedLive("maps the token host's error bodies", () =>
    Effect.gen(function* () {
      const host = tokenHost((req) => {
        if (req.url.startsWith("/api/v1/properties/search/1")) return { status: 403, body: { detail: "Not in your subscription" } }
        if (req.url.startsWith("/api/v1/listing-alerts/feeds/9")) return { status: 404, body: { errors: { feed: ["not found"] } } }
        if (req.url === "/market-analytics-api/analysis")
          return { status: 400, body: { message: "Bad filter", errors: ["types: mixed groups"], details: null } }
        if (req.url === "/api/v1/references/locations/typeahead") {
          return {
            status: 422,
            body: { detail: [{ loc: ["body", "query"], msg: "field required", type: "missing", input: null, ctx: {} }] }
          }
        }
        return { status: 409, body: { detail: "Already exists" } }
      })
      const server = yield* localServer(host.handler)
      const errors = yield* Effect.gen(function* () {
        const client = yield* TokenClient
        return yield* Effect.all([
          Effect.flip(client.propertyById(1)),
          Effect.flip(client.legacyFeedDelete(9)),
          Effect.flip(client.analysis({ types: ["apartment"], business_type: "sale", custom_location_boundary: { location_ids: [1] } })),
          Effect.flip(client.request("POST", "/api/v1/references/locations/typeahead", { body: {} })),
          Effect.flip(client.alertsApiFeedCreate({ name: "x", filter: {} }))
        ])
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(errors.map((e) => [e._tag, (e as any).reason, (e as any).status])).toEqual([
        ["TokenProblem", "forbidden", 403],
        ["TokenProblem", "not_found", 404],
        ["TokenProblem", "bad_request", 400],
        ["TokenProblem", "validation", 422],
        ["TokenProblem", "conflict", 409]
      ])
      expect((errors[0] as any).detail).toBe("Not in your subscription")
      expect((errors[1] as any).details).toEqual(["feed: not found"])
      expect((errors[2] as any).details).toEqual(["types: mixed groups"])
      expect((errors[3] as any).details).toEqual(["query: field required"])
      for (const e of errors) expect(e.message.split("\n")).toHaveLength(1)
    })
  )

  it.scopedLive("time series answering 204 gives an empty list", () =>
    Effect.gen(function* () {
      const host = tokenHost(() => ({ status: 204 }))
      const server = yield* localServer(host.handler)
      const res = yield* Effect.gen(function* () {
        const client = yield* TokenClient
        return yield* client.timeSeries({
          types: ["apartment"],
          business_type: "sale",
          custom_location_boundary: { location_ids: [2509951] },
          data_point: "avg_price",
          date_interval: "month",
          date_range: { min: "2025-01-06", max: null }
        })
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(res).toEqual({ body: [], raw: "", status: 204, page: { records: [] }, operation: "market_time_series" })
    })
  )

  it.scopedLive("refuses a bad request body before anything is sent (not even a login)", () =>
    Effect.gen(function* () {
      const host = tokenHost()
      const server = yield* localServer(host.handler)
      const errors = yield* Effect.gen(function* () {
        const client = yield* TokenClient
        return yield* Effect.all([
          // a body that reaches the client untyped (settings, JSON): the compiler refuses it as written here
          // @ts-expect-error comparables_types and location_boundary are missing
          Effect.flip(client.comparablesV2({ comparables_count: 60, operation: "sale" })),
          Effect.flip(client.matchByListings({ listing_ids: Array.from({ length: 101 }, (_, i) => i + 1) })),
          Effect.flip(client.legacyFeedAlerts(3, { offset: 50001 })),
          Effect.flip(client.next("http://elsewhere.test/api/v1/listing-alerts/feeds/3?offset=50"))
        ])
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(errors.map((e) => [e._tag, (e as any).reason])).toEqual([
        ["InvalidRequest", "Body"],
        ["InvalidRequest", "Body"],
        ["InvalidRequest", "Query"],
        ["InvalidRequest", "Url"]
      ])
      expect(errors[0]!.message).toContain("comparables_count")
      expect(server.requests).toHaveLength(0)
    })
  )

  it.scopedLive("a list of an unexpected shape fails UnexpectedShape with the start of the body, credentials taken out", () =>
    Effect.gen(function* () {
      const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
      const host = tokenHost(() => ({ status: 200, body: { items: [{ alert_id: 1 }], echo: `Bearer ${jwt}`, pw: PASSWORD } }))
      const server = yield* localServer(host.handler)
      const e = yield* Effect.flip(Effect.flatMap(TokenClient, (c) => c.legacyFeedAlerts(5, { limit: 2 }))).pipe(
        withClients(fastSettings(server.url, server.url))
      )
      expect(e._tag).toBe("UnexpectedShape")
      expect(e.message).toMatch(/expected a list at "results", found nothing \(members: items, echo, pw\)/)
      expect(e.message).toContain("<redacted>")
      expect(e.message).not.toContain(jwt)
      expect(e.message).not.toContain(PASSWORD)
    })
  )

  it.scopedLive("follows next links on the same host with the bearer token", () =>
    Effect.gen(function* () {
      const host = tokenHost((req) => ({
        status: 200,
        body: req.url.includes("offset=2")
          ? { count: 3, next: null, previous: null, results: [{ alert_id: 3 }] }
          : {
              count: 3,
              next: `${serverUrl}/api/v1/listing-alerts/feeds/5?limit=2&offset=2`,
              previous: null,
              results: [{ alert_id: 1 }, { alert_id: 2 }]
            }
      }))
      let serverUrl = ""
      const server = yield* localServer(host.handler)
      serverUrl = server.url
      const pages = yield* Effect.gen(function* () {
        const client = yield* TokenClient
        const first = yield* client.legacyFeedAlerts(5, { limit: 2 })
        const second = yield* client.nextPage(first.page.next!, "alerts_feed")
        return [first.page, second.page]
      }).pipe(withClients(fastSettings(server.url, server.url)))
      expect(pages.flatMap((p) => p.records as Array<unknown>)).toEqual([{ alert_id: 1 }, { alert_id: 2 }, { alert_id: 3 }])
      expect(server.requests.map((r) => r.url)).toEqual([
        "/login",
        "/api/v1/listing-alerts/feeds/5?limit=2",
        "/api/v1/listing-alerts/feeds/5?limit=2&offset=2"
      ])
    })
  )
})
