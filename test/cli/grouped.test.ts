import { describe, expect, it } from "vitest"
import { grouped } from "../../src/cli/Format.js"

describe("grouped", () => {
  it("writes integers as toLocaleString('en-US') does", () => {
    for (const n of [0, 7, 999, 1000, -1000, 12_345, 207_071, -1_234_567, 1_000_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(grouped(n)).toBe(n.toLocaleString("en-US"))
    }
  })
})
