import { describe, expect, it } from "vitest"
import { fetchedOf, pageOf } from "../../src/extract/Responses.js"

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

describe("pageOf", () => {
  const answer = { raw: "{}", requestId: "req-3", units: { charged: 1 }, page: { records: [{ id: "a" }], total: 1 } }
  it("enters the page and its charge under the operation the answer carries", () => {
    const page = pageOf({ ...answer, operation: "plot_search" })
    expect(page.operation).toBe("plot_search")
    expect(page.charges.map((c) => c.operation)).toEqual(["plot_search"])
    expect(page.total).toBe(1)
  })
  it("keeps the older form: the named operation for the charge, the answer's for the page, the name when the answer has none", () => {
    const named = pageOf({ ...answer, operation: "sourcing_next" }, "sourcing_search", (r) => r)
    expect(named.charges.map((c) => c.operation)).toEqual(["sourcing_search"])
    expect(named.operation).toBe("sourcing_next")
    const bare = pageOf({ ...answer } as never, "plot_search")
    expect(bare.operation).toBe("plot_search")
  })
})
