/**
 * Exact JSON (`shared/ExactJson.ts`): integers beyond 2^53 come back as `bigint` with every digit,
 * everything else as `JSON.parse` gives it (long fractions, exponents, digits inside strings), and
 * `stringifyJson` writes the digits back.
 */
import { describe, expect, it } from "vitest"
import { parseJson, stringifyJson } from "../../src/shared/ExactJson.js"

describe("exact JSON", () => {
  it("integers beyond 2^53 are bigints, every digit kept; safe ones stay numbers", () => {
    const text = `{"id":12345678901234567890,"neg":-9007199254740993,"edge":9007199254740991,"list":[9007199254740992,1]}`
    expect(parseJson(text)).toEqual({
      id: 12345678901234567890n,
      neg: -9007199254740993n,
      edge: 9007199254740991,
      list: [9007199254740992n, 1]
    })
    expect(stringifyJson(parseJson(text))).toBe(text)
  })

  it("long fractions, exponents and digits in strings are what JSON.parse makes of them", () => {
    const cases = [
      `{"lat":41.38512345678901234,"lon":-2.1734567890123456}`,
      `[0.12345678901234567890, 1.5e300, 2E-17, 12345678901234567.5]`,
      `{"id":"123456789012345678901","note":"a \\"quoted\\" 99999999999999999"}`,
      `{"a":[],"b":{},"c":null,"d":true}`
    ]
    for (const text of cases) expect(parseJson(text)).toEqual(JSON.parse(text))
    // a long integer after a long fraction is still found
    expect(parseJson(`[0.1234567890123456789, 98765432109876543210]`)).toEqual([0.1234567890123456789, 98765432109876543210n])
  })

  it("throws on what is not JSON, as JSON.parse does", () => {
    expect(() => parseJson(`{"id": 12345678901234567890`)).toThrow(SyntaxError)
    expect(() => parseJson(`{"a": 1`)).toThrow(SyntaxError)
  })
})
