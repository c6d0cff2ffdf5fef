import { describe, expect, it } from "vitest"
import { Either } from "effect"
import { BARE_LIST, ENVELOPE, readList, type ResponseShape, withOverride } from "../../src/service/ResponseShape.js"
import { DEFAULT_SHAPES, shapeOf } from "../../src/service/Shapes.js"

const right = <A>(e: Either.Either<A, string>): A => {
  if (Either.isLeft(e)) throw new Error(`expected Right, got Left: ${e.left}`)
  return e.right
}
const left = <A>(e: Either.Either<A, string>): string => {
  if (Either.isRight(e)) throw new Error(`expected Left, got Right: ${JSON.stringify(e.right)}`)
  return e.left
}

describe("readList", () => {
  it("reads the results at a dotted path, with the count at another", () => {
    const shape: ResponseShape = { results: "data.items", count: "meta.total", next: "links.next", returned: "meta.returned" }
    const body = { data: { items: [{ id: 1 }, { id: 2 }] }, meta: { total: 7, returned: 2 }, links: { next: "https://svc/list?page=2" } }
    expect(right(readList(body, shape))).toEqual({
      records: [{ id: 1 }, { id: 2 }],
      recordsAt: "data.items",
      total: 7,
      returned: 2,
      next: "https://svc/list?page=2"
    })
  })

  it('reads a bare list with "."', () => {
    const page = right(readList([1, 2, 3], BARE_LIST))
    expect(page).toEqual({ records: [1, 2, 3], recordsAt: "." })
    expect("total" in page).toBe(false)
    expect("next" in page).toBe(false)
    expect("returned" in page).toBe(false)
  })

  it("reads count, next and returned of the usual envelope", () => {
    const page = right(readList({ count: 212, next: "https://svc/list?offset=50", returned: 50, results: ["a"] }, ENVELOPE))
    expect(page).toEqual({ records: ["a"], recordsAt: "results", total: 212, next: "https://svc/list?offset=50", returned: 50 })
  })

  it("leaves count and returned absent when the body has none (or not a number)", () => {
    const page = right(readList({ results: [], count: "212", returned: null }, ENVELOPE))
    expect(page.total).toBeUndefined()
    expect(page.returned).toBeUndefined()
    expect("total" in page).toBe(false)
    expect("returned" in page).toBe(false)
  })

  it("next is undefined when the member is absent, null when it says there is none", () => {
    const absent = right(readList({ count: 3, results: [1, 2, 3] }, ENVELOPE))
    expect(absent.next).toBeUndefined()
    expect("next" in absent).toBe(false)

    expect(right(readList({ count: 3, next: null, results: [1, 2, 3] }, ENVELOPE)).next).toBeNull()
    expect(right(readList({ count: 3, next: "", results: [1, 2, 3] }, ENVELOPE)).next).toBeNull()
    // a shape without a next member never reports one, whatever the body holds
    expect("next" in right(readList({ results: [], next: "https://svc/x" }, { ...ENVELOPE, next: null }))).toBe(false)
  })

  it("Left names the expected path and the members found", () => {
    const message = left(readList({ data: [1, 2], total: 2, page: 1 }, ENVELOPE))
    expect(message).toContain('expected a list at "results"')
    expect(message).toContain("found nothing")
    expect(message).toContain("members: data, total, page")
  })

  it("Left says what was at the path when it is not a list", () => {
    expect(left(readList({ results: { items: [] } }, ENVELOPE))).toBe('expected a list at "results", found an object (members: results)')
    expect(left(readList({ data: { items: "x" } }, { ...ENVELOPE, results: "data.items" }))).toContain(
      'expected a list at "data.items", found a string'
    )
    expect(left(readList({ results: [] }, BARE_LIST))).toBe('expected a list at ".", found an object (members: results)')
    expect(left(readList(null, ENVELOPE))).toBe('expected a list at "results", found nothing')
  })
})

describe("withOverride", () => {
  it("no override keeps the shape", () => {
    expect(withOverride(ENVELOPE, undefined)).toEqual(ENVELOPE)
    expect(withOverride(ENVELOPE, {})).toEqual(ENVELOPE)
  })

  it("replaces the members given and keeps the others", () => {
    expect(withOverride(ENVELOPE, { results: "data.items", count: "meta.total" })).toEqual({
      results: "data.items",
      count: "meta.total",
      next: "next",
      returned: "returned"
    })
    expect(withOverride(BARE_LIST, { next: "links.next" })).toEqual({ results: ".", count: null, next: "links.next", returned: null })
  })

  it('"" (or null) means none for count, next and returned', () => {
    expect(withOverride(ENVELOPE, { count: "", next: "", returned: null })).toEqual({
      results: "results",
      count: null,
      next: null,
      returned: null
    })
  })

  it("results can't be made none: an empty override keeps the declared path", () => {
    expect(withOverride(ENVELOPE, { results: "" }).results).toBe("results")
    expect(withOverride(ENVELOPE, { results: null }).results).toBe("results")
    expect(withOverride(ENVELOPE, { results: "." }).results).toBe(".")
  })
})

describe("shapeOf", () => {
  it("gives each operation its declared shape", () => {
    expect(shapeOf("plot_search")).toEqual({ results: "results", count: "count", next: "next", returned: "returned" })
    expect(shapeOf("market_time_series")).toEqual(BARE_LIST)
    expect(shapeOf("alerts_feed")).toEqual({ ...ENVELOPE, returned: null })
    for (const [operation, shape] of Object.entries(DEFAULT_SHAPES)) expect(shapeOf(operation)).toEqual(shape)
  })

  it("an unknown operation reads the usual envelope", () => {
    expect(shapeOf("no_such_operation")).toEqual(ENVELOPE)
  })

  it("applies the settings' override of that operation only", () => {
    const overrides = { alerts_feed: { results: "data", next: "" }, plot_search: { count: "meta.count" } }
    expect(shapeOf("alerts_feed", overrides)).toEqual({ results: "data", count: "count", next: null, returned: null })
    expect(shapeOf("plot_search", overrides)).toEqual({ results: "results", count: "meta.count", next: "next", returned: "returned" })
    expect(shapeOf("sourcing_search", overrides)).toEqual(ENVELOPE)
  })

  it("reads a body through an overridden shape", () => {
    const shape = shapeOf("alerts_feed", { alerts_feed: { results: "data.alerts", count: "data.total" } })
    expect(right(readList({ data: { alerts: [{ id: "x" }], total: 9 }, next: null }, shape))).toEqual({
      records: [{ id: "x" }],
      recordsAt: "data.alerts",
      total: 9,
      next: null
    })
    expect(left(readList({ results: [] }, shape))).toContain('expected a list at "data.alerts", found nothing (members: results)')
  })
})
