/**
 * Same seed, same answers: two sandboxes started with one seed answer every product
 * identically (bodies and request ids, base URLs aside); another seed answers differently.
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

const run = async (sb: Sb) => {
  const out = []
  for (const [path, body] of script) {
    const r = await call(sb.platformUrl, path, body === undefined ? {} : { body })
    out.push({
      status: r.status,
      requestId: r.headers.get("svc-request-id"),
      body: JSON.parse(JSON.stringify(r.body).split(sb.platformUrl).join("{platform_url}"))
    })
  }
  return out
}

describe("determinism", () => {
  it("the same seed gives identical responses; another seed does not", async () => {
    const [ra, rb, rc] = [await run(a), await run(b), await run(c)]
    expect(ra.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 400])
    expect(rb).toEqual(ra)
    expect(rc.map((r) => r.body)).not.toEqual(ra.map((r) => r.body))
  })
})
