import { describe, expect, it } from "vitest"
import { grouped, table } from "../../src/cli/Format.js"

describe("grouped", () => {
  it("writes integers as toLocaleString('en-US') does", () => {
    for (const n of [0, 7, 999, 1000, -1000, 12_345, 207_071, -1_234_567, 1_000_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(grouped(n)).toBe(n.toLocaleString("en-US"))
    }
  })
})

describe("table", () => {
  it("groups quantities but not identifiers (id, *_id, *Id)", () => {
    const text = table([{ property_id: 1_000_011, listingId: 10_006_344, id: 123_456, rows: 207_071, price: 1234.5 }])
    const [, , row] = text.split("\n")
    expect(row!.trim().split(/\s+/)).toEqual(["1000011", "10006344", "123456", "207,071", "1234.50"])
  })
})
