/**
 * Same seed, same answers: two sandboxes started with one seed answer every product
 * identically (bodies and request ids, base URLs and each start's request-id prefix aside);
 * another seed answers differently. Request ids never repeat across starts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startTestSandbox, type SandboxHandle } from "../support/sandbox.js"

type Sb = SandboxHandle & { close: () => Promise<void> }
let a: Sb, b: Sb, c: Sb
beforeAll(async () => {
  const options = { seed: 99, world: { properties: 3_000, plots: 300, premises: 300 } }
  ;[a, b, c] = await Promise.all([startTestSandbox(options), startTestSandbox(options), startTestSandbox({ ...options, seed: 100 })])
})
afterAll(() => Promise.all([a, b, c].map((s) => s.close())))

const script: Array<[string, unknown]> = [
  ["/v1/property-sourcing/searches", { country: "ES", operation: "sale", limit: 20 }],
  ["/v1/property-sourcing/searches/describe", { country: "FR", description: "house, 3 bedrooms and under 500k" }],
  ["/v1/ai/plots/search", { criteria: { commercial_use: "all", sort: "price_asc", limit: 20 } }],
  ["/v1/ai/search", { limit: 20 }],
  ["/v1/seller-leads?latitude=40.4168&longitude=-3.7038&radius_km=50", undefined],
  ["/v1/ai/search", { limit: 500 }]
]

/** A request id less the 8 hex digits that are random per start: `req_<start><seeded>`. */
const seeded = (id: string | null) => (id === null ? null : `req_${id.slice(12)}`)
/** A body with base URLs and request ids made comparable. */
const comparable = (sb: Sb, body: unknown) =>
  JSON.parse(
    JSON.stringify(body)
      .split(sb.platformUrl)
      .join("{platform_url}")
      .replace(/"req_[0-9a-f]{8}([0-9a-f]{16})"/g, '"req_$1"')
  )

const run = async (sb: Sb) => {
  const out = []
  for (const [path, body] of script) {
    const r = await call(sb.platformUrl, path, body === undefined ? {} : { body })
    out.push({
      status: r.status,
      requestId: seeded(r.headers.get("svc-request-id")),
      rawId: r.headers.get("svc-request-id"),
      body: comparable(sb, r.body)
    })
  }
  return out
}

describe("determinism", () => {
  it("the same seed gives identical responses; another seed does not", async () => {
    const [ra, rb, rc] = [await run(a), await run(b), await run(c)]
    expect(ra.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 400])
    const without = (rs: typeof ra) => rs.map(({ rawId: _raw, ...r }) => r)
    expect(without(rb)).toEqual(without(ra))
    // the same seeded ids, yet never the same id twice across two starts
    expect(new Set([...ra, ...rb].map((r) => r.rawId)).size).toBe(ra.length + rb.length)
    expect(rc.map((r) => r.body)).not.toEqual(ra.map((r) => r.body))
  })
})
