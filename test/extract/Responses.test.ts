import { describe, expect, it } from "vitest"
import { fetchedOf } from "../../src/extract/Responses.js"

describe("fetchedOf", () => {
  it("gives each charge without a request id a key of its own, even within one millisecond", () => {
    const pages = Array.from({ length: 50 }, () => fetchedOf({ raw: "[]", units: { charged: 2 } }, "sourcing_next", []))
    const ids = pages.map((p) => p.charges[0]!.requestId)
    expect(new Set(ids).size).toBe(50)
    for (const id of ids) expect(id).toMatch(/^unknown-[0-9a-f-]{36}$/)
  })

  it("keeps the service's request id, and charges nothing for a free answer", () => {
    const paid = fetchedOf({ raw: "[]", requestId: "req-1", units: { charged: 40 } }, "premises_search", [])
    expect(paid.charges).toEqual([{ requestId: "req-1", operation: "premises_search", units: 40, at: expect.any(String) }])
    expect(fetchedOf({ raw: "[]", requestId: "req-2" }, "references", []).charges).toEqual([])
  })
})
