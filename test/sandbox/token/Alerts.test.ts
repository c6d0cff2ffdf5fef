/**
 * Legacy alerts over HTTP: feed CRUD, reads that return every alert exactly once (ground truth:
 * `world.alerts`), window overrides, the offset cap, new alerts as the sandbox clock advances.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SANDBOX_USER } from "../../../src/sandbox/Credentials.js"
import { type FeedFilter, toAlertQuery } from "../../../src/sandbox/token/FeedFilter.js"
import { type TokenHostFixture, hasIssue, startTokenHost } from "./serveTokenHost.js"

const FEEDS = "/api/v1/listing-alerts/feeds"
const DAY = 86_400_000

describe("legacy alerts", () => {
  let h: TokenHostFixture
  let token: string
  beforeAll(async () => {
    h = await startTokenHost()
    token = (await h.login()).access_token
  })
  afterAll(() => h.close())

  /** Ground truth: every alert id the world has for a filter now, in the given order. */
  const truth = (filter: FeedFilter, orderBy = "-alert_date") => {
    const now = h.ctx.clock.now()
    const { count } = h.ctx.world.alerts(toAlertQuery(filter, now, { limit: 1, offset: 0 }, orderBy))
    return h.ctx.world.alerts(toAlertQuery(filter, now, { limit: count, offset: 0 }, orderBy)).results.map((a) => a.alert_id)
  }

  /** Follows `next` from a first URL; every page must say the same count. */
  const readAll = async (first: string, method = "GET", body?: object) => {
    const ids: Array<number> = []
    let url: string | null = first
    let count: number | undefined
    while (url !== null) {
      const r = await h.call(method, url, { token, ...(body !== undefined ? { body } : {}) })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(Object.keys(r.body).sort()).toEqual(["count", "next", "previous", "results"])
      count ??= r.body.count
      expect(r.body.count).toBe(count)
      ids.push(...r.body.results.map((a: { alert_id: number }) => a.alert_id))
      url = r.body.next
    }
    return { ids, count: count! }
  }

  const createFeed = async (name: string, filter: FeedFilter) => {
    const r = await h.call("POST", FEEDS, { token, body: { name, filter } })
    expect(r.status).toBe(200)
    return r.body as { id: number; name: string; filter: FeedFilter; created_at: string }
  }

  it("creates, lists, updates and deletes feeds per user", async () => {
    const feed = await createFeed("price moves", { alert_subtypes: ["price_up", "price_down"] })
    expect(Object.keys(feed).sort()).toEqual(["created_at", "filter", "id", "name"])
    expect(Number.isInteger(feed.id)).toBe(true)
    const list = await h.call("GET", FEEDS, { token })
    expect(list.body.map((f: { id: number }) => f.id)).toContain(feed.id)
    const updated = await h.call("PUT", `${FEEDS}/${feed.id}/update`, { token, body: { name: "renamed" } })
    expect(updated.body).toMatchObject({ id: feed.id, name: "renamed", filter: feed.filter })
    const bad = await h.call("POST", FEEDS, { token, body: { name: "x", filter: { alert_subtypes: ["boom"] } } })
    expect(bad.status).toBe(422)
    expect(hasIssue(bad.body, "body.filter.alert_subtypes.0", "literal_error")).toBe(true)
    const del = await h.call("DELETE", `${FEEDS}/${feed.id}`, { token })
    expect(del).toEqual({ status: 200, body: { success: true } })
    const again = await h.call("DELETE", `${FEEDS}/${feed.id}`, { token })
    expect(again.status).toBe(404)
    expect(typeof again.body.errors).toBe("object")
    expect((await h.call("GET", `${FEEDS}/${feed.id}`, { token })).status).toBe(404)
    expect((await h.call("GET", `${FEEDS}/not-a-number`, { token })).status).toBe(404)
  })

  it("reads a feed's alerts exactly once across pages, in the requested order", async () => {
    const filter: FeedFilter = { alert_date_from: "2026-10-01" }
    const feed = await createFeed("october", filter)
    const expected = truth(filter)
    expect(expected.length).toBeGreaterThan(500)
    const { ids, count } = await readAll(`${FEEDS}/${feed.id}?limit=200`)
    expect(count).toBe(expected.length)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expected)
    const byId = await readAll(`${FEEDS}/${feed.id}?limit=500&order_by=alert_id`)
    expect(byId.ids).toEqual([...expected].sort((a, b) => a - b))
  })

  it("read parameters override the feed filter; invalid values are ignored", async () => {
    const feed = await createFeed("override", { alert_date_from: "2026-10-01", alert_subtypes: ["new"] })
    const narrowed = await h.call("GET", `${FEEDS}/${feed.id}?alert_date_from=2026-10-25&alert_subtype=sold&limit=1`, { token })
    expect(narrowed.body.count).toBe(truth({ alert_date_from: "2026-10-25", alert_subtypes: ["sold"] }).length)
    const ignored = await h.call(
      "GET",
      `${FEEDS}/${feed.id}?alert_date_from=25/10/2026&alert_subtype=boom&created_at_from=yesterday&limit=1`,
      { token }
    )
    expect(ignored.status).toBe(200)
    expect(ignored.body.count).toBe(truth(feed.filter).length)
  })

  it("created_at windows split an incremental sync without overlap", async () => {
    const feed = await createFeed("sync", {})
    const t0 = "2026-10-20T00:00:00",
      t1 = "2026-10-25T12:00:00",
      t2 = "2026-11-01T00:00:00"
    const a = await readAll(`${FEEDS}/${feed.id}?created_at_from=${t0}&created_at_to=${t1}&limit=500`)
    const b = await readAll(`${FEEDS}/${feed.id}?created_at_from=${t1}&created_at_to=${t2}&limit=500`)
    const all = await readAll(`${FEEDS}/${feed.id}?created_at_from=${t0}&created_at_to=${t2}&limit=500`)
    expect(a.ids.filter((id) => b.ids.includes(id))).toEqual([])
    expect([...a.ids, ...b.ids].sort((x, y) => x - y)).toEqual([...all.ids].sort((x, y) => x - y))
    expect(all.count).toBeGreaterThan(0)
  })

  it("refuses offset above 50000 and a bad limit with 422", async () => {
    const feed = await createFeed("deep", {})
    const deep = await h.call("GET", `${FEEDS}/${feed.id}?offset=50001`, { token })
    expect(deep.status).toBe(422)
    expect(hasIssue(deep.body, "query.offset", "less_than_equal")).toBe(true)
    expect((await h.call("GET", `${FEEDS}/${feed.id}?offset=50000&limit=1`, { token })).status).toBe(200)
    expect((await h.call("GET", `${FEEDS}/${feed.id}?limit=abc`, { token })).status).toBe(422)
  })

  it("alerts appear as the sandbox clock advances", async () => {
    const feed = await createFeed("live", { alert_date_from: "2026-10-31" })
    const before = (await h.call("GET", `${FEEDS}/${feed.id}?limit=1`, { token })).body.count
    h.ctx.clock.advance(DAY)
    token = (await h.login()).access_token // the old access token expired with the day
    const after = (await h.call("GET", `${FEEDS}/${feed.id}?limit=1`, { token })).body.count
    expect(after).toBeGreaterThan(before)
    expect(after).toBe(truth(feed.filter).length)
  })

  it("searches alerts by body and follows next with the same body", async () => {
    const body = { alert_subtypes: ["price_down"], alert_date_from: "2026-09-01", limit: 100 }
    const expected = truth({ alert_subtypes: ["price_down"], alert_date_from: "2026-09-01" })
    const { ids, count } = await readAll("/api/v1/listing-alerts/search", "POST", body)
    expect(count).toBe(expected.length)
    expect(ids).toEqual(expected)
  })

  it("keeps feeds per user", async () => {
    const other = { email: "second@example.com", password: "pw" }
    ;(h.ctx.token.users as Array<typeof other>).push(other)
    const t2 = (await h.login(other)).access_token
    expect((await h.call("GET", FEEDS, { token: t2 })).body).toEqual([])
    expect((await h.call("GET", FEEDS, { token })).body.length).toBeGreaterThan(0)
    expect(SANDBOX_USER.email).not.toBe(other.email)
  })
})
