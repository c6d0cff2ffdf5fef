/**
 * Premises search over real HTTP: the page shape, `limit` at most 200, the plan's page depth,
 * 405 on other methods and 40 units per successful call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startTestSandbox, type SandboxHandle } from "../../support/sandbox.js"

let sb: SandboxHandle & { close: () => Promise<void> }
beforeAll(async () => {
  sb = await startTestSandbox({ world: { properties: 1_000, premises: 1_500 } })
})
afterAll(() => sb.close())

const PATH = "/v1/ai/search"

describe("premises search", () => {
  it("answers a page with count, returned, offset and prem_ results; charges 40", async () => {
    const r = await call(sb.platformUrl, PATH, { body: { limit: 200, offset: 0 } })
    expect(r.status).toBe(200)
    expect(r.headers.get("svc-units-charged")).toBe("40")
    expect(r.body.count).toBe(sb.context.world.searchPremises({}).length)
    expect(r.body.returned).toBe(200)
    expect(r.body.offset).toBe(0)
    for (const p of r.body.results) {
      expect(p.id).toMatch(/^prem_/)
      for (const k of ["title", "operation", "municipality", "province", "price_eur", "area_m2", "latitude", "longitude"])
        expect(p).toHaveProperty(k)
    }
  })

  it("accepts an empty body and any keys", async () => {
    const empty = await call(sb.platformUrl, PATH, { method: "POST" })
    expect(empty.status).toBe(200)
    expect(empty.body.returned).toBe(20)
    const extra = await call(sb.platformUrl, PATH, { body: { something_new: { nested: true }, limit: 3 } })
    expect(extra.status).toBe(200)
    expect(extra.body.returned).toBe(3)
  })

  it("filters by operation and query as the world does", async () => {
    const query = { operation: "rent", min_area: 100 }
    const r = await call(sb.platformUrl, PATH, { body: { ...query, limit: 200 } })
    expect(r.body.count).toBe(sb.context.world.searchPremises(query as never).length)
    for (const p of r.body.results) {
      expect(p.operation).toBe("rent")
      expect(p.area_m2).toBeGreaterThanOrEqual(100)
    }
  })

  it("refuses limit above 200 and a non-integer limit with 400 invalid_request", async () => {
    for (const limit of [201, 0, 2.5, "x"]) {
      const r = await call(sb.platformUrl, PATH, { body: { limit } })
      expect(r.status).toBe(400)
      expect(r.body.code).toBe("invalid_request")
    }
  })

  it("refuses pages deeper than the plan allows with 400 page_depth_exceeded", async () => {
    const ok = await call(sb.platformUrl, PATH, { body: { limit: 200, offset: 800 } })
    expect(ok.status).toBe(200)
    const deep = await call(sb.platformUrl, PATH, { body: { limit: 200, offset: 801 } })
    expect(deep.status).toBe(400)
    expect(deep.body.code).toBe("page_depth_exceeded")
    expect(deep.body.type).toBe(`${sb.platformUrl}/errors/page-depth-exceeded`)
  })

  it.each(["GET", "PUT", "PATCH", "DELETE"])("answers %s with 405 method_not_allowed", async (method) => {
    const r = await call(sb.platformUrl, PATH, { method })
    expect(r.status).toBe(405)
    expect(r.body.code).toBe("method_not_allowed")
    expect(r.headers.get("allow")).toBe("POST")
    expect(r.headers.get("svc-request-id")).toBe(r.body.request_id)
  })

  it("refuses a body above 1 MiB with 413 payload_too_large", async () => {
    const r = await call(sb.platformUrl, PATH, { body: { query: "x".repeat(1024 * 1024 + 1) } })
    expect(r.status).toBe(413)
    expect(r.body.code).toBe("payload_too_large")
  })

  it("refuses a body that is not an object or not JSON", async () => {
    expect((await call(sb.platformUrl, PATH, { body: [1] })).body.code).toBe("invalid_request")
    expect((await call(sb.platformUrl, PATH, { body: "{oops" })).body.code).toBe("invalid_request")
  })
})
