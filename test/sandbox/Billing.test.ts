/**
 * Billing over real HTTP: units headers add up, premises costs 40, failed calls cost 0,
 * 402 `payment_required` with `payment_url`, and the stats the control reports.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as C from "../../src/sandbox/Credentials.js"
import { call, startTestSandbox, type SandboxHandle } from "../support/sandbox.js"

let sb: SandboxHandle & { close: () => Promise<void> }
beforeEach(async () => {
  sb = await startTestSandbox({ world: { properties: 2_000 } })
})
afterEach(() => sb.close())

const search = { country: "ES", operation: "sale", limit: 5 }
const units = (r: { headers: Headers }) => ({
  charged: Number(r.headers.get("svc-units-charged")),
  remaining: Number(r.headers.get("svc-units-remaining"))
})

describe("units", () => {
  it("each success carries the billing headers and remaining falls by charged", async () => {
    let balance = sb.control.getBalance("key_default")!
    const calls: Array<[string, unknown, number]> = [
      ["/v1/property-sourcing/searches", search, 1],
      ["/v1/ai/search", { limit: 3 }, 40],
      ["/v1/ai/plots/search", { criteria: { limit: 1 } }, 1],
      ["/v1/property-sourcing/searches/describe", { country: "ES", tags: ["apartment"] }, 2]
    ]
    for (const [path, body, cost] of calls) {
      const r = await call(sb.platformUrl, path, { body })
      expect(r.status).toBe(200)
      expect(units(r)).toEqual({ charged: cost, remaining: balance - cost })
      expect(r.headers.get("svc-units-source")).toBe("balance")
      expect(r.headers.get("svc-plan")).toBe("sandbox")
      expect(r.headers.get("svc-request-id")).toMatch(/^req_/)
      balance -= cost
    }
    expect(sb.control.getBalance("key_default")).toBe(balance)
    expect(sb.control.stats().unitsSpent["key_default"]).toBe(44)
  })

  it("failed calls are not charged", async () => {
    const before = sb.control.getBalance("key_default")
    const bad = [
      await call(sb.platformUrl, "/v1/ai/search", { body: { limit: 201 } }),
      await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: { country: "XX", operation: "sale" } }),
      await call(sb.platformUrl, "/v1/property-sourcing/properties/prop_nope"),
      await call(sb.platformUrl, "/v1/ai/plots/search", { body: { criteria: { sort: "random" } } })
    ]
    expect(bad.map((r) => r.status)).toEqual([400, 400, 404, 400])
    for (const r of bad) expect(r.headers.get("svc-units-charged")).toBeNull()
    expect(sb.control.getBalance("key_default")).toBe(before)
    expect(sb.control.stats().unitsSpent["key_default"]).toBeUndefined()
  })

  it("answers 402 payment_required with payment_url when the balance cannot cover the call", async () => {
    const r = await call(sb.platformUrl, "/v1/ai/search", { body: {}, key: C.LOW_BALANCE_API_KEY })
    expect(r.status).toBe(402)
    expect(r.headers.get("content-type")).toBe("application/problem+json")
    expect(r.body.code).toBe("payment_required")
    expect(r.body.type).toBe(`${sb.platformUrl}/errors/payment-required`)
    expect(r.body.payment_url).toMatch(new RegExp(`^${sb.platformUrl}/`))
    expect(r.body.payment_url).not.toContain(C.LOW_BALANCE_API_KEY)
    expect(sb.control.getBalance(C.LOW_BALANCE_API_KEY)).toBe(C.LOW_BALANCE)
  })

  it("a low balance pays for cheap calls until it runs out", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < C.LOW_BALANCE + 1; i++) {
      const r = await call(sb.platformUrl, "/v1/property-sourcing/searches", { body: search, key: C.LOW_BALANCE_API_KEY })
      statuses.push(r.status)
    }
    expect(statuses).toEqual([...Array(C.LOW_BALANCE).fill(200), 402])
    expect(sb.control.getBalance("key_low_balance")).toBe(0)
  })

  it("setBalance changes what the next call sees", async () => {
    expect(sb.control.setBalance("key_default", 39)).toBe(true)
    expect((await call(sb.platformUrl, "/v1/ai/search", { body: {} })).status).toBe(402)
    sb.control.setBalance(C.SANDBOX_API_KEY, 40)
    const r = await call(sb.platformUrl, "/v1/ai/search", { body: {} })
    expect(units(r)).toEqual({ charged: 40, remaining: 0 })
    expect(sb.control.setBalance("no_such_key", 1)).toBe(false)
  })
})
