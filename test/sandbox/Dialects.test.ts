/**
 * Dialects over real HTTP: each flag's observable effect on both hosts, the presets, the
 * control surface (`SandboxControl.setDialect` and `/__sandbox/dialect`), and that the default
 * dialect leaves today's behaviour alone.
 */
import { Effect, Either, Schema } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as zlib from "node:zlib"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as C from "../../src/sandbox/Credentials.js"
import { DIALECT_NAMES, DIALECTS, DialectFlags } from "../../src/config/Dialect.js"
import { BIG_ID_OFFSET, isMissingKey, parseDateTime } from "../../src/sandbox/Dialect.js"
import { Sandbox } from "../../src/sandbox/Sandbox.js"
import { type FeedFilter, toAlertQuery } from "../../src/sandbox/token/FeedFilter.js"
import { startWebhookDelivery } from "../../src/sandbox/webhooks/WebhookDelivery.js"
import { type CallResult, type SandboxHandle, call, startTestSandbox, testOptions } from "../support/sandbox.js"

const PLOTS = "/v1/ai/plots/search"
const PREMISES = "/v1/ai/search"
const SEARCH = "/v1/property-sourcing/searches"
const FEEDS = "/api/v1/listing-alerts/feeds"
// Madrid: the world places Spanish properties around its cities.
const AROUND = "latitude=40.4168&longitude=-3.7038&radius_km=50&min_price_cut_pct=1"
const ALL_PLOTS = { commercial_use: "all" }
const ES_SALE = { country: "ES", operation: "sale" }

let sb: SandboxHandle & { readonly close: () => Promise<void> }
let token: string

beforeAll(async () => {
  sb = await startTestSandbox({ seed: 11, world: { properties: 4_000 } })
  const r = await call(sb.apiUrl, "/login", { key: null, body: C.SANDBOX_USER })
  expect(r.status).toBe(200)
  token = r.body.access_token
})
afterAll(() => sb.close())
afterEach(() => {
  sb.control.setDialect("default")
})

const platform = (path: string, init: Parameters<typeof call>[2] = {}) => call(sb.platformUrl, path, init)
const api = (path: string, body?: unknown) => call(sb.apiUrl, path, { key: token, ...(body !== undefined ? { body } : {}) })

const keys = (r: CallResult) => Object.keys(r.body).sort()
const ids = (xs: ReadonlyArray<{ id: string }>) => xs.map((x) => x.id)

/** Follows `next` from a first response; returns every record (under `key`) and the page sizes. */
const follow = async (first: CallResult, base: string, key = "results", init: Parameters<typeof call>[2] = {}) => {
  const records: Array<any> = []
  const sizes: Array<number> = []
  let r = first
  for (;;) {
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    records.push(...r.body[key])
    sizes.push(r.body[key].length)
    if (r.body.next === null || r.body.next === undefined) return { records, sizes }
    r = await call(base, r.body.next, init)
  }
}

const createFeed = async (filter: FeedFilter) => {
  const r = await api(FEEDS, { name: "dialects", filter })
  expect(r.status).toBe(200)
  return r.body.id as number
}

/** Ground truth: alert ids of a filter (after overrides) at the sandbox's now. */
const alertTruth = (filter: FeedFilter) => {
  const now = sb.context.clock.now()
  const { count } = sb.context.world.alerts(toAlertQuery(filter, now, { limit: 1, offset: 0 }, "-alert_date"))
  return sb.context.world.alerts(toAlertQuery(filter, now, { limit: count, offset: 0 }, "-alert_date")).results.map((a) => a.alert_id)
}

describe("dialect configuration and control", () => {
  it("names every preset, each a valid set of flags; the presets the brief asks for", () => {
    expect([...DIALECT_NAMES].sort()).toEqual(Object.keys(DIALECTS).sort())
    for (const name of DIALECT_NAMES) expect(Schema.decodeUnknownSync(DialectFlags)(DIALECTS[name])).toEqual(DIALECTS[name])
    expect(DIALECTS).toEqual({
      default: {},
      "capped-pages": { pageCap: 37 },
      "no-count": { noCount: true },
      "no-next": { noNext: true },
      "results-key": { resultsKey: "items" },
      "strict-datetime": { strictDateTime: true },
      "missing-keys": { missingEvery: 7 },
      "header-key": { apiKeyHeader: "Svc-Api-Key", bearerKeys: false },
      "payment-member": { paymentLinkMember: "top_up_url" },
      pricier: { costFactor: 3 },
      "next-only": { linkPaging: true },
      "no-paging": { noPaging: true },
      "repeat-pages": { repeatPage: true },
      "page-depth": { pageDepth: 60 },
      removals: { removeAfterFirstPage: 3 },
      gzip: { contentEncoding: "gzip" },
      zstd: { contentEncoding: "zstd" },
      "big-ids": { bigIds: true },
      "string-ids": { stringIds: true }
    })
  })

  it("starts in the configured dialect (name or flags) and refuses bad ones before binding", async () => {
    const start = (dialect: unknown) =>
      Effect.runPromise(
        Effect.scoped(Effect.either(Effect.map(Sandbox.start(testOptions({ dialect } as never)), (h) => h.control.dialect())))
      )
    expect(await start("capped-pages")).toEqual(Either.right({ pageCap: 37 }))
    expect(await start({ noCount: true, pageCap: 5 })).toEqual(Either.right({ noCount: true, pageCap: 5 }))
    expect(await start(undefined)).toEqual(Either.right({}))
    for (const bad of [
      "nope",
      { pageCap: 0 },
      { missingEvery: 1 },
      { bogus: true },
      { apiKeyHeader: "bad header" },
      { pageDepth: 0 },
      { removeAfterFirstPage: 0 },
      { contentEncoding: "compress" }
    ]) {
      const r = await start(bad)
      expect(Either.isLeft(r), JSON.stringify(bad)).toBe(true)
    }
  })

  it("switches both hosts at once through POST /__sandbox/dialect; GET answers the active flags", async () => {
    const u = "/__sandbox/dialect"
    expect((await platform(u, { key: null })).body).toEqual({})
    const set = await platform(u, { key: null, body: { name: "no-count" } })
    expect(set).toMatchObject({ status: 200, body: { noCount: true } })
    expect((await platform(u, { key: null })).body).toEqual({ noCount: true })
    expect(sb.control.dialect()).toEqual({ noCount: true })
    const plots = await platform(PLOTS, { body: { criteria: { limit: 3 } } })
    expect(plots.body).not.toHaveProperty("count")
    const v1 = await api("/api/v1/properties/search", { limit: 3 })
    expect(v1.body).not.toHaveProperty("count")
    // Flags, and a preset with flags over it.
    expect((await platform(u, { key: null, body: { pageCap: 5, noNext: true } })).body).toEqual({ pageCap: 5, noNext: true })
    expect((await platform(u, { key: null, body: { name: "capped-pages", noCount: true } })).body).toEqual({ pageCap: 37, noCount: true })
    for (const bad of [{ name: "nope" }, { pageCap: 0 }, { bogus: 1 }, { strictDateTime: "yes" }]) {
      expect((await platform(u, { key: null, body: bad })).status, JSON.stringify(bad)).toBe(400)
    }
    expect(sb.control.dialect()).toEqual({ pageCap: 37, noCount: true })
    sb.control.reset()
    expect((await platform(u, { key: null })).body).toEqual({})
    expect(() => sb.control.setDialect({ pageCap: -1 })).toThrow()
  })
})

describe("pageCap", () => {
  it("plot search: at most pageCap results, returned = page, count unchanged, offset echoed", async () => {
    const before = await platform(PLOTS, { body: { criteria: { ...ALL_PLOTS, limit: 100, offset: 5 } } })
    expect(before.body.returned).toBe(100)
    sb.control.setDialect("capped-pages")
    const r = await platform(PLOTS, { body: { criteria: { ...ALL_PLOTS, limit: 100, offset: 5 } } })
    expect(r.status).toBe(200)
    expect(r.body.results).toHaveLength(37)
    expect(r.body.returned).toBe(37)
    expect(r.body.count).toBe(before.body.count)
    expect(r.body.offset).toBe(5)
    expect(ids(r.body.results)).toEqual(ids(before.body.results).slice(0, 37))
    // A limit under the cap is served whole.
    expect((await platform(PLOTS, { body: { criteria: { limit: 10 } } })).body.returned).toBe(10)
  })

  it("premises search: capped, count unchanged", async () => {
    const before = await platform(PREMISES, { body: { limit: 100 } })
    expect(before.body.count).toBeGreaterThan(100)
    sb.control.setDialect("capped-pages")
    const r = await platform(PREMISES, { body: { limit: 100, offset: 3 } })
    expect(r.body).toMatchObject({ count: before.body.count, returned: 37, offset: 3 })
    expect(r.body.results).toHaveLength(37)
  })

  it("sourcing search and describe: pages of at most pageCap whose next continues without loss", async () => {
    const all = await follow(await platform(SEARCH, { body: { ...ES_SALE, limit: 200 } }), sb.platformUrl)
    expect(all.records.length).toBeGreaterThan(100)
    sb.control.setDialect("capped-pages")
    const first = await platform(SEARCH, { body: { ...ES_SALE, limit: 100 } })
    expect(first.body.results).toHaveLength(37)
    expect(first.body.returned).toBe(37)
    expect(first.body.count).toBe(all.records.length)
    const capped = await follow(first, sb.platformUrl)
    expect(Math.max(...capped.sizes)).toBe(37)
    expect(ids(capped.records)).toEqual(ids(all.records))
    const describe = await platform(`${SEARCH}/describe`, { body: { country: "ES", description: "apartment, for sale", limit: 100 } })
    expect(describe.status).toBe(200)
    expect(describe.body.results.length).toBe(37)
  })

  it("seller leads: capped, next points at offset + returned", async () => {
    const truth = await follow(await platform(`/v1/seller-leads?${AROUND}&limit=200`), sb.platformUrl)
    expect(truth.records.length).toBeGreaterThan(20)
    // This world has fewer than 37 leads here: a smaller cap shows the same rule.
    sb.control.setDialect({ pageCap: 7 })
    const first = await platform(`/v1/seller-leads?${AROUND}&limit=100&offset=2`)
    expect(first.body).toMatchObject({ count: truth.records.length, returned: 7 })
    expect(ids(first.body.results)).toEqual(ids(truth.records).slice(2, 9))
    const next = new URL(first.body.next)
    expect(next.searchParams.get("offset")).toBe("9")
    expect(next.searchParams.get("limit")).toBe("100")
    const capped = await follow(await platform(`/v1/seller-leads?${AROUND}&limit=100`), sb.platformUrl)
    expect(ids(capped.records)).toEqual(ids(truth.records))
  })

  it("legacy feed reads and alerts search: capped pages, next at offset + returned, every alert once", async () => {
    const filter: FeedFilter = { alert_date_from: "2026-05-28" }
    const expected = alertTruth(filter)
    expect(expected.length).toBeGreaterThan(100)
    const feed = await createFeed(filter)
    sb.control.setDialect("capped-pages")
    const first = await api(`${FEEDS}/${feed}?limit=100`)
    expect(first.body.count).toBe(expected.length)
    expect(first.body.results).toHaveLength(37)
    expect(new URL(first.body.next).searchParams.get("offset")).toBe("37")
    const read = await follow(first, sb.apiUrl, "results", { key: token })
    expect(read.records.map((a) => a.alert_id)).toEqual(expected)
    const search = await api("/api/v1/listing-alerts/search", { ...filter, limit: 100 })
    expect(search.body.count).toBe(expected.length)
    expect(search.body.results).toHaveLength(37)
    expect(new URL(search.body.next).searchParams.get("offset")).toBe("37")
  })

  it("token properties search v1 (offset) and v2 (cursor): capped pages that continue correctly", async () => {
    const body = { operation: "sale", types: ["apartment", "studio", "penthouse"], limit: 100 }
    const v2All = await follow(await api("/api/v2/properties/search", { ...body, limit: 500 }), sb.apiUrl, "results", { key: token, body })
    expect(v2All.records.length).toBeGreaterThan(100)
    sb.control.setDialect("capped-pages")
    const v1 = await api("/api/v1/properties/search", body)
    expect(v1.body.count).toBe(v2All.records.length)
    expect(v1.body.results).toHaveLength(37)
    expect(new URL(v1.body.next).searchParams.get("offset")).toBe("37")
    const v2 = await follow(await api("/api/v2/properties/search", body), sb.apiUrl, "results", { key: token, body })
    expect(Math.max(...v2.sizes)).toBe(37)
    expect(v2.records.map((p) => p.property_id)).toEqual(v2All.records.map((p) => p.property_id))
  })

  it("alerts-api feed list and typeahead: capped too", async () => {
    for (let i = 0; i < 5; i++) expect((await api("/alerts-api/feeds", { name: `f${i}`, filter: {} })).status).toBe(201)
    sb.control.setDialect({ pageCap: 2 })
    const r = await call(sb.apiUrl, "/alerts-api/feeds?limit=4", { key: token })
    expect(r.body.results).toHaveLength(2)
    expect(r.body.count).toBeGreaterThanOrEqual(5)
    expect(new URL(r.body.next).searchParams.get("offset")).toBe("2")
    const typeahead = () => api("/api/v1/references/locations/typeahead", { country: "ES", query: "a", limit: 50 })
    expect((await typeahead()).body).toHaveLength(2)
    sb.control.setDialect("default")
    expect((await typeahead()).body.length).toBeGreaterThan(2)
  })
})

describe("noCount and noNext", () => {
  it("noCount drops count from every list body and keeps returned", async () => {
    sb.control.setDialect("no-count")
    expect(keys(await platform(PLOTS, { body: { criteria: { limit: 2 } } }))).toEqual([
      "country",
      "criteria",
      "note",
      "offset",
      "results",
      "returned",
      "scope"
    ])
    expect(keys(await platform(PREMISES, { body: { limit: 2 } }))).toEqual(["offset", "query", "results", "returned"])
    expect(keys(await platform(SEARCH, { body: { ...ES_SALE, limit: 2 } }))).toEqual(["next", "results", "returned", "search_id"])
    expect(keys(await platform(`/v1/seller-leads?${AROUND}&limit=2`))).toEqual(["next", "results", "returned"])
    const feed = await createFeed({})
    expect(keys(await api(`${FEEDS}/${feed}?limit=2`))).toEqual(["next", "previous", "results"])
    expect(keys(await api("/api/v1/listing-alerts/search", { limit: 2 }))).toEqual(["next", "previous", "results"])
    expect(keys(await api("/api/v1/properties/search", { limit: 2 }))).toEqual(["next", "previous", "results"])
    expect(keys(await api("/api/v2/properties/search", { limit: 2 }))).toEqual(["next", "previous", "results"])
    expect(keys(await call(sb.apiUrl, "/alerts-api/feeds?limit=2", { key: token }))).toEqual(["next", "previous", "results"])
  })

  it("noNext drops next and previous: a cursor search gives no way past its first page", async () => {
    sb.control.setDialect("no-next")
    const s = await platform(SEARCH, { body: { ...ES_SALE, limit: 2 } })
    expect(keys(s)).toEqual(["count", "results", "returned", "search_id"])
    expect(s.body.count).toBeGreaterThan(2)
    expect(keys(await platform(`/v1/seller-leads?${AROUND}&limit=2`))).toEqual(["count", "results", "returned"])
    const feed = await createFeed({})
    expect(keys(await api(`${FEEDS}/${feed}?limit=2&offset=2`))).toEqual(["count", "results"])
    expect(keys(await api("/api/v1/properties/search", { limit: 2, offset: 2 }))).toEqual(["count", "results"])
    expect(keys(await api("/api/v2/properties/search", { limit: 2 }))).toEqual(["count", "results"])
    expect(keys(await call(sb.apiUrl, "/alerts-api/feeds?limit=1", { key: token }))).toEqual(["count", "results"])
    // Unchanged: plot search never had links.
    expect(keys(await platform(PLOTS, { body: { criteria: { limit: 2 } } }))).toContain("count")
  })
})

describe("resultsKey", () => {
  it("moves the records of 'not shown' payloads to the key; shown payloads keep results", async () => {
    sb.control.setDialect("results-key")
    const unshown: Array<CallResult> = [
      await platform(PREMISES, { body: { limit: 2 } }),
      await platform(SEARCH, { body: { ...ES_SALE, limit: 2 } }),
      await platform(`${SEARCH}/describe`, { body: { country: "ES", tags: ["apartment"], limit: 2 } }),
      await platform(`/v1/seller-leads?${AROUND}&limit=2`),
      await api("/api/v1/properties/search", { limit: 2 }),
      await api("/api/v2/properties/search", { limit: 2 }),
      await call(sb.apiUrl, "/alerts-api/feeds?limit=2", { key: token })
    ]
    for (const r of unshown) {
      expect(r.status).toBe(200)
      expect(r.body).not.toHaveProperty("results")
      expect(Array.isArray(r.body.items)).toBe(true)
    }
    // The cursor page too.
    const next = await platform(unshown[1]!.body.next)
    expect(next.body.items).toHaveLength(2)
    expect(next.body).not.toHaveProperty("results")
    const feed = await createFeed({})
    const id = unshown[4]!.body.items[0].property_id
    const shown: Array<CallResult> = [
      await platform(PLOTS, { body: { criteria: { limit: 2 } } }),
      await api(`${FEEDS}/${feed}?limit=2`),
      await api("/api/v1/listing-alerts/search", { limit: 2 }),
      await call(sb.apiUrl, `/api/v1/properties/search/${id}`, { key: token })
    ]
    for (const r of shown) {
      expect(r.status).toBe(200)
      expect(r.body).toHaveProperty("results")
      expect(r.body).not.toHaveProperty("items")
    }
  })
})

describe("strictDateTime", () => {
  const window = "2026-05-25T00:00:00"
  it("honours date-times written YYYY-MM-DDTHH:mm:ss only; other forms are ignored", async () => {
    const base: FeedFilter = { alert_date_from: "2026-05-01" }
    const all = alertTruth(base).length
    const windowed = alertTruth({ ...base, created_at_from: window }).length
    expect(windowed).toBeGreaterThan(0)
    expect(windowed).toBeLessThan(all)
    const feed = await createFeed(base)
    const read = async (v: string) => (await api(`${FEEDS}/${feed}?limit=1&created_at_from=${encodeURIComponent(v)}`)).body.count
    // Default: lenient forms count.
    expect(await read(`${window}.000Z`)).toBe(windowed)
    expect(await read(`${window}Z`)).toBe(windowed)
    sb.control.setDialect("strict-datetime")
    expect(await read(window)).toBe(windowed)
    expect(await read(`${window}.000Z`)).toBe(all)
    expect(await read(`${window}Z`)).toBe(all)
    expect(await read(`${window}+00:00`)).toBe(all)
    // The alerts search body and a stored feed filter read the same way.
    const search = async (v: string) => (await api("/api/v1/listing-alerts/search", { ...base, created_at_from: v, limit: 1 })).body.count
    expect(await search(window)).toBe(windowed)
    expect(await search(`${window}.000Z`)).toBe(all)
    const stored = await createFeed({ ...base, created_at_from: `${window}Z` })
    expect((await api(`${FEEDS}/${stored}?limit=1`)).body.count).toBe(all)
    // An ignored override leaves the feed filter's own (valid) window in force.
    const later = "2026-05-28T00:00:00"
    const narrowed = alertTruth({ ...base, created_at_from: later }).length
    expect(narrowed).toBeLessThan(windowed)
    const kept = await createFeed({ ...base, created_at_from: window })
    expect((await api(`${FEEDS}/${kept}?limit=1&created_at_from=${later}Z`)).body.count).toBe(windowed)
    expect((await api(`${FEEDS}/${kept}?limit=1&created_at_from=${later}`)).body.count).toBe(narrowed)
    sb.control.setDialect("default")
    expect((await api(`${FEEDS}/${stored}?limit=1`)).body.count).toBe(windowed)
    expect((await api(`${FEEDS}/${kept}?limit=1&created_at_from=${later}Z`)).body.count).toBe(narrowed)
    expect(await search(`${window}.000Z`)).toBe(windowed)
  })

  it("parseDateTime: strict accepts the exact form and real instants only", () => {
    expect(parseDateTime("2026-06-01T00:00:00", true)).toBe(Date.UTC(2026, 5, 1))
    for (const s of [
      "2026-06-01T00:00:00Z",
      "2026-06-01T00:00:00.000Z",
      "2026-06-01T00:00:00+00:00",
      "2026-06-01",
      "2026-02-30T00:00:00",
      "2026-06-01 00:00:00"
    ]) {
      expect(parseDateTime(s, true), s).toBeUndefined()
    }
    expect(parseDateTime("2026-06-01T00:00:00.000Z")).toBe(Date.UTC(2026, 5, 1))
  })
})

describe("missingEvery", () => {
  const d = DIALECTS["missing-keys"]

  it("isMissingKey is pure, off by default, and hits about one key in missingEvery", () => {
    const sample = Array.from({ length: 7_000 }, (_, i) => `prop_${1_000_000 + i}`)
    expect(sample.some((k) => isMissingKey({}, k))).toBe(false)
    const hit = sample.filter((k) => isMissingKey(d, k)).length
    expect(hit).toBeGreaterThan(700)
    expect(hit).toBeLessThan(1_300)
    expect(sample.map((k) => isMissingKey(d, k))).toEqual(sample.map((k) => isMissingKey({ missingEvery: 7 }, k)))
  })

  it("platform by-key reads of missing keys answer 404 not_found, uncharged; lists do not change", async () => {
    const before = await platform(SEARCH, { body: { ...ES_SALE, limit: 100 } })
    sb.control.setDialect("missing-keys")
    const after = await platform(SEARCH, { body: { ...ES_SALE, limit: 100 } })
    expect(after.body).toEqual(before.body)
    const all = ids(after.body.results)
    const missing = all.filter((k) => isMissingKey(d, k))
    const present = all.filter((k) => !isMissingKey(d, k))
    expect(missing.length).toBeGreaterThan(0)
    expect(present.length).toBeGreaterThan(0)
    const spent = sb.control.stats().unitsSpent["key_default"] ?? 0
    const gone = await platform(`/v1/property-sourcing/properties/${missing[0]}`)
    expect(gone.status).toBe(404)
    expect(gone.body).toMatchObject({ code: "not_found", status: 404 })
    expect(gone.headers.get("svc-units-charged")).toBeNull()
    expect(sb.control.stats().unitsSpent["key_default"] ?? 0).toBe(spent)
    expect((await platform(`/v1/property-sourcing/properties/${present[0]}`)).status).toBe(200)
    // Resolve answers as the by-id read of the property it finds.
    const { world } = sb.context
    const listingOf = (id: string) => world.listingIdsOf(world.indexOfSourcingId(id)!)[0]
    expect((await platform("/v1/property-sourcing/properties/resolve", { body: { listing_id: listingOf(missing[0]!) } })).status).toBe(404)
    const found = await platform("/v1/property-sourcing/properties/resolve", { body: { listing_id: listingOf(present[0]!) } })
    expect(found.body.property.id).toBe(present[0])
    // Seller leads.
    const leads = ids((await platform(`/v1/seller-leads?${AROUND}&limit=200`)).body.results)
    const lostLead = leads.find((k) => isMissingKey(d, k))
    const keptLead = leads.find((k) => !isMissingKey(d, k))
    expect(lostLead).toBeDefined()
    expect((await platform(`/v1/seller-leads/${lostLead}`)).body).toMatchObject({ status: 404, code: "not_found" })
    expect((await platform(`/v1/seller-leads/${keptLead}`)).status).toBe(200)
    sb.control.setDialect("default")
    expect((await platform(`/v1/property-sourcing/properties/${missing[0]}`)).status).toBe(200)
    expect((await platform(`/v1/seller-leads/${lostLead}`)).status).toBe(200)
  })

  it("token GET /api/v1/properties/search/{id} answers 404 {detail} for missing keys", async () => {
    sb.control.setDialect("missing-keys")
    const list = (await api("/api/v1/properties/search", { limit: 100 })).body.results as Array<{ property_id: number }>
    const lost = list.map((p) => String(p.property_id)).find((k) => isMissingKey(d, k))!
    const kept = list.map((p) => String(p.property_id)).find((k) => !isMissingKey(d, k))!
    expect(lost).toBeDefined()
    const r = await call(sb.apiUrl, `/api/v1/properties/search/${lost}`, { key: token })
    expect(r).toMatchObject({ status: 404, body: { detail: expect.any(String) } })
    expect(Object.keys(r.body)).toEqual(["detail"])
    expect((await call(sb.apiUrl, `/api/v1/properties/search/${kept}`, { key: token })).status).toBe(200)
  })
})

describe("apiKeyHeader and bearerKeys", () => {
  const body = { body: { limit: 1 } }
  it("default: X-Api-Key and Bearer carry keys; another header name carries nothing", async () => {
    expect((await platform(PREMISES, { ...body, key: null, headers: { "X-Api-Key": C.SANDBOX_API_KEY } })).status).toBe(200)
    const other = await platform(PREMISES, { ...body, key: null, headers: { "Svc-Api-Key": C.SANDBOX_API_KEY } })
    expect(other.body).toMatchObject({ status: 401, code: "unauthorized" })
  })

  it("header-key: only Svc-Api-Key carries API keys; Bearer API keys are invalid_credential; OAuth tokens still go in Bearer", async () => {
    sb.control.setDialect("header-key")
    expect((await platform(PREMISES, { ...body, key: null, headers: { "Svc-Api-Key": C.SANDBOX_API_KEY } })).status).toBe(200)
    expect((await platform(PREMISES, { ...body, key: null, headers: { "X-Api-Key": C.SANDBOX_API_KEY } })).body).toMatchObject({
      status: 401,
      code: "unauthorized"
    })
    expect((await platform(PREMISES, body)).body).toMatchObject({ status: 401, code: "invalid_credential" })
    expect((await platform(PREMISES, { ...body, key: C.OAUTH_TOKEN })).status).toBe(200)
    // Plot search forwards the same credential (its own error body).
    expect(
      (await platform(PLOTS, { body: { criteria: { limit: 1 } }, key: null, headers: { "Svc-Api-Key": C.SANDBOX_API_KEY } })).status
    ).toBe(200)
    expect((await platform(PLOTS, { body: { criteria: { limit: 1 } } })).body).toEqual({
      error: { code: "invalid_credential", message: expect.any(String) }
    })
  })

  it("apiKeyHeader alone renames the header and keeps Bearer API keys", async () => {
    sb.control.setDialect({ apiKeyHeader: "Svc-Api-Key" })
    expect((await platform(PREMISES, body)).status).toBe(200)
    expect((await platform(PREMISES, { ...body, key: null, headers: { "svc-api-key": C.SANDBOX_API_KEY } })).status).toBe(200)
    expect((await platform(PREMISES, { ...body, key: null, headers: { "X-Api-Key": C.SANDBOX_API_KEY } })).status).toBe(401)
  })
})

describe("paymentLinkMember", () => {
  it("names the member of the 402 problem that carries the payment link", async () => {
    const before = await platform(PREMISES, { body: {}, key: C.LOW_BALANCE_API_KEY })
    expect(before.status).toBe(402)
    expect(before.body.payment_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/billing\/top-up\/key_low_balance$/)
    sb.control.setDialect("payment-member")
    const r = await platform(PREMISES, { body: {}, key: C.LOW_BALANCE_API_KEY })
    expect(r.status).toBe(402)
    expect(r.body).toMatchObject({ code: "payment_required", top_up_url: before.body.payment_url })
    expect(r.body).not.toHaveProperty("payment_url")
  })
})

// ---------------------------------------------------------------------------------------------
// Paging dialects

const premisesTruth = (query: Record<string, unknown> = {}) => ids(sb.context.world.searchPremises(query as never))
const spentUnits = () => sb.control.stats().unitsSpent["key_default"] ?? 0
const leadsTruth = async () => ids((await follow(await platform(`/v1/seller-leads?${AROUND}&limit=200`), sb.platformUrl)).records)

describe("linkPaging", () => {
  it("premises search ignores offset and pages by an opaque next link POSTed with the same body; each page charged", async () => {
    // Madrid: a result of a few hundred, inside the page depth (1000).
    const truth = premisesTruth({ province: "Madrid" })
    expect(truth.length).toBeGreaterThan(100)
    expect(keys(await platform(PREMISES, { body: { limit: 50 } }))).toEqual(["count", "offset", "query", "results", "returned"])
    sb.control.setDialect("next-only")
    const body = { province: "Madrid", limit: 50, offset: 100 }
    const spent = spentUnits()
    const first = await platform(PREMISES, { body })
    expect(keys(first)).toEqual(["count", "next", "query", "results", "returned"])
    expect(first.body).toMatchObject({ count: truth.length, returned: 50 })
    expect(ids(first.body.results)).toEqual(truth.slice(0, 50))
    const link = new URL(first.body.next)
    expect(`${link.origin}${link.pathname}`).toBe(`${sb.platformUrl}${PREMISES}`)
    expect([...link.searchParams.keys()]).toEqual(["cursor"])
    expect(link.searchParams.get("cursor")).not.toMatch(/^\d+$/)
    const all = await follow(first, sb.platformUrl, "results", { body })
    expect(ids(all.records)).toEqual(truth)
    expect(all.sizes).toHaveLength(Math.ceil(truth.length / 50))
    expect(spentUnits() - spent).toBe(40 * all.sizes.length)
    // GET on the path stays 405; a cursor the service did not write is 400 invalid_request.
    expect((await platform(first.body.next)).body).toMatchObject({ status: 405, code: "method_not_allowed" })
    expect((await platform(`${PREMISES}?cursor=bogus`, { body })).body).toMatchObject({ status: 400, code: "invalid_request" })
    // The default ignores a cursor in the URL.
    sb.control.setDialect("default")
    expect((await platform(first.body.next, { body })).body).toMatchObject({ offset: 100, returned: 50 })
  })

  it("seller leads: next carries the query and a cursor in place of offset, GETted; offset is ignored", async () => {
    const truth = await leadsTruth()
    expect(truth.length).toBeGreaterThan(14)
    sb.control.setDialect("next-only")
    const first = await platform(`/v1/seller-leads?${AROUND}&limit=7&offset=5`)
    expect(first.body).toMatchObject({ count: truth.length, returned: 7 })
    expect(ids(first.body.results)).toEqual(truth.slice(0, 7))
    const next = new URL(first.body.next)
    expect(next.searchParams.has("offset")).toBe(false)
    expect(next.searchParams.get("cursor")).toEqual(expect.any(String))
    expect(next.searchParams.get("latitude")).toBe("40.4168")
    const all = await follow(first, sb.platformUrl)
    expect(ids(all.records)).toEqual(truth)
    expect((await platform(`/v1/seller-leads?${AROUND}&cursor=bogus`)).body).toMatchObject({ status: 400, code: "invalid_request" })
    // The default refuses cursor as an unknown parameter.
    sb.control.setDialect("default")
    expect((await platform(first.body.next)).body).toMatchObject({ status: 400, code: "invalid_request" })
  })
})

describe("noPaging", () => {
  it("premises and seller leads answer the first page to every request: full count, no offset, no next", async () => {
    const truth = premisesTruth()
    sb.control.setDialect("no-paging")
    const first = await platform(PREMISES, { body: { limit: 20 } })
    expect(keys(first)).toEqual(["count", "query", "results", "returned"])
    expect(first.body).toMatchObject({ count: truth.length, returned: 20 })
    expect(ids(first.body.results)).toEqual(truth.slice(0, 20))
    expect((await platform(PREMISES, { body: { limit: 20, offset: 40 } })).body).toEqual(first.body)
    const leads = await leadsTruth()
    const page = await platform(`/v1/seller-leads?${AROUND}&limit=5&offset=10`)
    expect(page.body).toMatchObject({ count: leads.length, returned: 5, next: null })
    expect(ids(page.body.results)).toEqual(leads.slice(0, 5))
    expect((await platform(`/v1/seller-leads?${AROUND}&limit=5&cursor=anything`)).body).toEqual(page.body)
  })
})

describe("repeatPage", () => {
  /** Page 1, page 2, page 2 again of one query: under the dialect the first page 2 repeats page 1. */
  const pagesOf = async (read: (page: 0 | 1) => Promise<ReadonlyArray<unknown>>) => {
    const truth = [await read(0), await read(1)]
    expect(truth[0]).not.toEqual(truth[1])
    sb.control.setDialect("repeat-pages")
    const got = [await read(0), await read(1), await read(1)]
    sb.control.setDialect("default")
    return { truth, got }
  }
  const alertIds = (r: CallResult) => r.body.results.map((a: { alert_id: number }) => a.alert_id)
  const propertyIds = (r: CallResult) => r.body.results.map((p: { property_id: number }) => p.property_id)

  it("every paged list answers its second page once with the first page's records, then right", async () => {
    const feed = await createFeed({ alert_date_from: "2026-05-28" })
    const v2 = { operation: "sale", limit: 10 }
    const reads: Record<string, (page: 0 | 1) => Promise<ReadonlyArray<unknown>>> = {
      premises: async (n) => ids((await platform(PREMISES, { body: { limit: 10, offset: 10 * n } })).body.results),
      leads: async (n) => ids((await platform(`/v1/seller-leads?${AROUND}&limit=5&offset=${5 * n}`)).body.results),
      plots: async (n) => ids((await platform(PLOTS, { body: { criteria: { ...ALL_PLOTS, limit: 10, offset: 10 * n } } })).body.results),
      sourcing: async (n) => {
        const first = await platform(SEARCH, { body: { ...ES_SALE, limit: 10 } })
        return ids((n === 0 ? first : await platform(first.body.next)).body.results)
      },
      feed: async (n) => alertIds(await api(`${FEEDS}/${feed}?limit=10&offset=${10 * n}`)),
      alertsSearch: async (n) => alertIds(await api("/api/v1/listing-alerts/search", { limit: 10, offset: 10 * n })),
      propertiesV1: async (n) => propertyIds(await api("/api/v1/properties/search", { limit: 10, offset: 10 * n })),
      propertiesV2: async (n) => {
        const first = await api("/api/v2/properties/search", v2)
        return propertyIds(n === 0 ? first : await api(first.body.next, v2))
      }
    }
    for (const [name, read] of Object.entries(reads)) {
      const { truth, got } = await pagesOf(read)
      expect(got, name).toEqual([truth[0], truth[0], truth[1]])
    }
  })

  it("links and offset are those of the page asked for; each query gets its own stale page", async () => {
    sb.control.setDialect("repeat-pages")
    const first = await platform(`/v1/seller-leads?${AROUND}&limit=5`)
    const stale = await platform(first.body.next)
    expect(stale.body.results).toEqual(first.body.results)
    expect(new URL(stale.body.next).searchParams.get("offset")).toBe("10")
    const premises = (body: object) => platform(PREMISES, { body })
    const a = await premises({ limit: 10 })
    expect((await premises({ limit: 10, offset: 10 })).body).toMatchObject({ offset: 10, results: a.body.results })
    const sale = await premises({ limit: 10, operation: "sale" })
    expect((await premises({ limit: 10, offset: 10, operation: "sale" })).body.results).toEqual(sale.body.results)
    expect((await premises({ limit: 10, offset: 10 })).body.results).not.toEqual(a.body.results)
  })
})

describe("pageDepth", () => {
  it("premises search refuses offset + limit above it with 400 page_depth_exceeded, uncharged; it wins over the config", async () => {
    sb.control.setDialect("page-depth")
    expect((await platform(PREMISES, { body: { limit: 20, offset: 40 } })).status).toBe(200)
    const spent = spentUnits()
    const r = await platform(PREMISES, { body: { limit: 20, offset: 41 } })
    expect(r.headers.get("content-type")).toContain("application/problem+json")
    expect(r.body).toMatchObject({
      status: 400,
      code: "page_depth_exceeded",
      type: expect.stringMatching(/\/errors\/page-depth-exceeded$/)
    })
    expect(r.headers.get("svc-units-charged")).toBeNull()
    expect((await platform(PREMISES, { body: { limit: 61 } })).body.code).toBe("page_depth_exceeded")
    expect(spentUnits()).toBe(spent)
    // The config's depth (1000 here) gives way to the flag, upwards too.
    sb.control.setDialect({ pageDepth: 5_000 })
    expect((await platform(PREMISES, { body: { limit: 20, offset: 990 } })).status).toBe(200)
    sb.control.setDialect("default")
    expect((await platform(PREMISES, { body: { limit: 20, offset: 990 } })).body.code).toBe("page_depth_exceeded")
    expect((await platform(PREMISES, { body: { limit: 20, offset: 41 } })).status).toBe(200)
  })
})

describe("removeAfterFirstPage", () => {
  it("premises: after the first page, records 1..3 leave the query; later pages shift, count drops; other queries keep them", async () => {
    const truth = premisesTruth()
    sb.control.setDialect("removals")
    const first = await platform(PREMISES, { body: { limit: 10 } })
    expect(first.body.count).toBe(truth.length)
    expect(ids(first.body.results)).toEqual(truth.slice(0, 10))
    expect(sb.control.removed()).toEqual(truth.slice(1, 4))
    const second = await platform(PREMISES, { body: { limit: 10, offset: 10 } })
    expect(second.body.count).toBe(truth.length - 3)
    expect(ids(second.body.results)).toEqual(truth.slice(13, 23))
    // From the start again: the records are gone, and no more leave.
    const again = await platform(PREMISES, { body: { limit: 10 } })
    expect(ids(again.body.results)).toEqual([truth[0], ...truth.slice(4, 13)])
    // Another query (one more member) still has them.
    expect(ids((await platform(PREMISES, { body: { limit: 3, offset: 1, note: "other" } })).body.results)).toEqual(truth.slice(1, 4))
    expect(sb.control.removed()).toEqual(truth.slice(1, 4))
    const listed = await platform("/__sandbox/removed", { key: null })
    expect(listed.body).toEqual({
      ids: truth.slice(1, 4),
      removals: [{ query: expect.stringMatching(/^POST \/v1\/ai\/search /), ids: truth.slice(1, 4), positions: [1, 2, 3] }]
    })
    sb.control.setDialect("default")
    expect(sb.control.removed()).toEqual([])
    expect((await platform(PREMISES, { body: { limit: 10, offset: 10 } })).body.count).toBe(truth.length)
  })

  it("seller leads, plot search, legacy feed pages and alerts search shift the same way", async () => {
    const feed = await createFeed({ alert_date_from: "2026-05-28" })
    const alertIds = (r: CallResult) => r.body.results.map((a: { alert_id: number }) => String(a.alert_id))
    const page = (r: CallResult, of: (r: CallResult) => Array<string>) => ({ count: r.body.count as number, ids: of(r) })
    const plain = (r: CallResult) => ids(r.body.results)
    const reads: Record<string, (offset: number, limit: number) => Promise<{ count: number; ids: Array<string> }>> = {
      leads: async (o, l) => page(await platform(`/v1/seller-leads?${AROUND}&limit=${l}&offset=${o}`), plain),
      plots: async (o, l) => page(await platform(PLOTS, { body: { criteria: { ...ALL_PLOTS, limit: l, offset: o } } }), plain),
      feed: async (o, l) => page(await api(`${FEEDS}/${feed}?limit=${l}&offset=${o}`), alertIds),
      alertsSearch: async (o, l) =>
        page(await api("/api/v1/listing-alerts/search", { alert_date_from: "2026-05-28", limit: l, offset: o }), alertIds)
    }
    for (const [name, read] of Object.entries(reads)) {
      const truth = await read(0, 20)
      sb.control.setDialect("removals")
      expect((await read(0, 5)).ids, name).toEqual(truth.ids.slice(0, 5))
      expect(await read(5, 5), name).toEqual({ count: truth.count - 3, ids: truth.ids.slice(8, 13) })
      expect(sb.control.removed(), name).toEqual(truth.ids.slice(1, 4))
      sb.control.setDialect("default")
      expect(await read(5, 5), name).toEqual({ count: truth.count, ids: truth.ids.slice(5, 10) })
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Wire dialects

interface RawResult {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly bytes: Buffer
}

/** One request with exactly the headers given (no Accept-Encoding unless given); the body's bytes as sent. */
const raw = (base: string, path: string, headers: Record<string, string>, body?: unknown) =>
  new Promise<RawResult>((resolve, reject) => {
    const h = body === undefined ? headers : { ...headers, "content-type": "application/json" }
    const req = http.request(`${base}${path}`, { method: body === undefined ? "GET" : "POST", headers: h }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })

/** A zstd frame's content: Node's decoder when it has one, else the raw blocks the sandbox writes on older Node. */
const unzstd = (b: Buffer): Buffer => {
  const native = (zlib as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync
  if (native !== undefined) return native(b)
  expect(b[4]).toBe(0xa0)
  const parts: Array<Buffer> = []
  for (let at = 9; ;) {
    const header = b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)
    expect((header >>> 1) & 3).toBe(0)
    parts.push(b.subarray(at + 3, at + 3 + (header >>> 3)))
    at += 3 + (header >>> 3)
    if (header & 1) return Buffer.concat(parts)
  }
}

describe("contentEncoding", () => {
  const auth = { authorization: `Bearer ${C.SANDBOX_API_KEY}` }
  const json = (r: RawResult, decode: (b: Buffer) => Buffer = (b) => b) => JSON.parse(decode(r.bytes).toString("utf8"))

  it("default: nothing is coded, even without Accept-Encoding", async () => {
    const r = await raw(sb.platformUrl, PREMISES, auth, { limit: 2 })
    expect(r.headers["content-encoding"]).toBeUndefined()
    expect(r.headers["vary"]).toBeUndefined()
    expect(json(r).returned).toBe(2)
  })

  it("gzip: JSON answers of both hosts, errors included, when Accept-Encoding is absent or allows gzip", async () => {
    const plain = json(await raw(sb.platformUrl, PREMISES, auth, { limit: 2 }))
    sb.control.setDialect("gzip")
    const coded = await raw(sb.platformUrl, PREMISES, auth, { limit: 2 })
    expect(coded.headers).toMatchObject({ "content-encoding": "gzip", vary: "Accept-Encoding", "svc-units-charged": "40" })
    expect(Number(coded.headers["content-length"])).toBe(coded.bytes.length)
    expect(json(coded, zlib.gunzipSync)).toEqual(plain)
    for (const accept of ["gzip", "br, gzip;q=0.5", "*", "x-gzip"]) {
      const r = await raw(sb.platformUrl, PREMISES, { ...auth, "accept-encoding": accept }, { limit: 2 })
      expect(r.headers["content-encoding"], accept).toBe("gzip")
    }
    for (const accept of ["identity", "br", "gzip;q=0", "", "*;q=0"]) {
      const r = await raw(sb.platformUrl, PREMISES, { ...auth, "accept-encoding": accept }, { limit: 2 })
      expect(r.headers["content-encoding"], accept).toBeUndefined()
      expect(json(r)).toEqual(plain)
    }
    const problem = await raw(sb.platformUrl, PREMISES, {}, {})
    expect(problem.headers["content-type"]).toContain("application/problem+json")
    expect(json(problem, zlib.gunzipSync)).toMatchObject({ status: 401, code: "unauthorized" })
    expect(json(await raw(sb.platformUrl, "/nowhere", auth), zlib.gunzipSync)).toMatchObject({ status: 404, code: "not_found" })
    const denied = await raw(sb.apiUrl, "/api/v1/properties/search", {}, {})
    expect(denied.status).toBe(401)
    expect(json(denied, zlib.gunzipSync)).toEqual({ detail: expect.any(String) })
    const v1 = await raw(sb.apiUrl, "/api/v1/properties/search", { authorization: `Bearer ${token}` }, { limit: 1 })
    expect(json(v1, zlib.gunzipSync).results).toHaveLength(1)
    // The control routes are not the service's: never coded. A fetch client decodes gzip itself.
    expect((await raw(sb.platformUrl, "/__sandbox/dialect", {})).headers["content-encoding"]).toBeUndefined()
    expect((await platform(PREMISES, { body: { limit: 2 } })).body).toEqual(plain)
  })

  it("br and deflate when allowed", async () => {
    const plain = json(await raw(sb.platformUrl, PLOTS, auth, { criteria: { limit: 2 } }))
    sb.control.setDialect({ contentEncoding: "br" })
    const br = await raw(sb.platformUrl, PLOTS, { ...auth, "accept-encoding": "gzip, br" }, { criteria: { limit: 2 } })
    expect(br.headers["content-encoding"]).toBe("br")
    expect(json(br, zlib.brotliDecompressSync)).toEqual(plain)
    sb.control.setDialect({ contentEncoding: "deflate" })
    const deflate = await raw(sb.platformUrl, PLOTS, auth, { criteria: { limit: 2 } })
    expect(deflate.headers["content-encoding"]).toBe("deflate")
    expect(json(deflate, zlib.inflateSync)).toEqual(plain)
  })

  it("zstd: sent whatever Accept-Encoding says, as a zstd frame", async () => {
    const plain = json(await raw(sb.platformUrl, PREMISES, auth, { limit: 2 }))
    sb.control.setDialect("zstd")
    for (const accept of [undefined, "identity", "gzip, deflate"]) {
      const r = await raw(sb.platformUrl, PREMISES, accept === undefined ? auth : { ...auth, "accept-encoding": accept }, { limit: 2 })
      expect(r.headers["content-encoding"], accept).toBe("zstd")
      expect(r.bytes.readUInt32LE(0)).toBe(0xfd2fb528)
      expect(json(r, unzstd)).toEqual(plain)
    }
    const denied = await raw(sb.apiUrl, "/api/v1/properties/search", { "accept-encoding": "identity" }, {})
    expect(json(denied, unzstd)).toEqual({ detail: expect.any(String) })
  })
})

/** Every `alert_id` of a JSON text, read exactly: digits after the member name, no quotes. */
const exactAlertIds = (text: string) => [...text.matchAll(/"alert_id":(\d+)[,}]/g)].map((m) => BigInt(m[1]!))

describe("bigIds", () => {
  const filter: FeedFilter = { alert_date_from: "2026-05-28" }
  const bearer = () => ({ authorization: `Bearer ${token}` })

  it("legacy feed pages and alerts search write alert_id + 2^53 as exact JSON integers", async () => {
    const all = alertTruth(filter)
    const expected = all.slice(0, 5).map((id) => BigInt(id) + BIG_ID_OFFSET)
    const feed = await createFeed(filter)
    sb.control.setDialect("big-ids")
    for (const r of [
      await raw(sb.apiUrl, `${FEEDS}/${feed}?limit=5`, bearer()),
      await raw(sb.apiUrl, "/api/v1/listing-alerts/search", bearer(), { ...filter, limit: 5 })
    ]) {
      expect(r.headers["content-type"]).toContain("application/json")
      const text = r.bytes.toString("utf8")
      expect(exactAlertIds(text)).toEqual(expected)
      expect(JSON.parse(text).count).toBe(all.length)
    }
    sb.control.setDialect("default")
    expect((await api(`${FEEDS}/${feed}?limit=5`)).body.results.map((a: { alert_id: number }) => a.alert_id)).toEqual(all.slice(0, 5))
  })

  it("webhook deliveries carry the big id too", async () => {
    const bodies: Array<string> = []
    const receiver = http.createServer((req, res) => {
      let b = ""
      req.on("data", (c: Buffer) => (b += c.toString("utf8")))
      req.on("end", () => {
        bodies.push(b)
        res.statusCode = 204
        res.end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const delivery = startWebhookDelivery(sb.context, { pollMs: 0 })
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
      expect((await call(sb.apiUrl, "/alerts-api/webhooks", { method: "PUT", key: token, body: { url } })).status).toBe(200)
      expect((await api("/alerts-api/feeds", { name: "big", filter: {} })).status).toBe(201)
      sb.control.setDialect("big-ids")
      sb.control.advanceClock(3 * 3_600_000)
      const round = await delivery.deliverPending()
      expect(round.delivered).toBeGreaterThan(0)
      expect(bodies).toHaveLength(round.delivered)
      const sent = bodies.flatMap(exactAlertIds)
      expect(sent).toHaveLength(bodies.length)
      expect(sent.every((id) => id >= BIG_ID_OFFSET)).toBe(true)
      expect(new Set(sent)).toEqual(new Set(delivery.attempts().map((a) => BigInt(a.alertId) + BIG_ID_OFFSET)))
    } finally {
      await delivery.stop()
      await new Promise((resolve) => receiver.close(resolve))
      sb.control.reset()
    }
  })
})

describe("stringIds", () => {
  it("legacy feed records carry id as a string of digits; the path still takes the digits", async () => {
    const plain = await api(FEEDS, { name: "plain", filter: {} })
    expect(typeof plain.body.id).toBe("number")
    sb.control.setDialect("string-ids")
    const created = await api(FEEDS, { name: "text", filter: {} })
    expect(created.body.id).toEqual(expect.stringMatching(/^\d+$/))
    const list = await call(sb.apiUrl, FEEDS, { key: token })
    expect(list.body.every((f: { id: unknown }) => typeof f.id === "string")).toBe(true)
    expect(list.body.map((f: { id: string }) => f.id)).toContain(String(plain.body.id))
    const updated = await call(sb.apiUrl, `${FEEDS}/${created.body.id}/update`, { method: "PUT", key: token, body: { name: "renamed" } })
    expect(updated.body).toMatchObject({ id: created.body.id, name: "renamed" })
    expect((await api(`${FEEDS}/${created.body.id}?limit=1`)).status).toBe(200)
    sb.control.setDialect("default")
    expect((await call(sb.apiUrl, FEEDS, { key: token })).body.every((f: { id: unknown }) => typeof f.id === "number")).toBe(true)
  })
})
