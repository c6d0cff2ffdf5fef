import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { compileCheck, makeRecordDecoder } from "../../../src/service/schema/FastDecode.js"
import { Alert, AlertEnvelope, PlotResult, Problem, Property, PropertyEnvelope } from "../../../src/service/schema/index.js"
import { alert, plotResult, property } from "./fixtures.js"

const WRONG: ReadonlyArray<unknown> = ["x", "90", 1.5, -1, 0, null, {}, [], [1], ["a"], true, "active", "apartment", NaN]

/** Every one-field mutation of `obj` (top level and one level down), plus deletions. */
const mutations = (obj: Record<string, unknown>): Array<unknown> => {
  const out: Array<unknown> = []
  for (const k of Object.keys(obj)) {
    const { [k]: _drop, ...without } = obj
    out.push(without)
    for (const w of WRONG) out.push({ ...obj, [k]: w })
    const v = obj[k]
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      for (const kk of Object.keys(v)) for (const w of WRONG) out.push({ ...obj, [k]: { ...v, [kk]: w } })
    }
    if (Array.isArray(v) && v.length > 0 && typeof v[0] === "object") {
      for (const kk of Object.keys(v[0])) for (const w of WRONG) out.push({ ...obj, [k]: [{ ...v[0], [kk]: w }] })
    }
  }
  return out
}

const agree = <A, I>(schema: Schema.Schema<A, I, never>, inputs: ReadonlyArray<unknown>) => {
  const fast = makeRecordDecoder(schema)
  const slow = Schema.decodeUnknownEither(schema)
  let accepted = 0
  for (const input of inputs) {
    const a = fast(input)
    const b = slow(input)
    expect([Either.isRight(a), input]).toEqual([Either.isRight(b), input])
    if (Either.isRight(a) && Either.isRight(b)) {
      expect(a.right).toEqual(b.right)
      accepted++
    }
  }
  return accepted
}

describe("makeRecordDecoder", () => {
  it("compiles the response records", () => {
    for (const s of [Property, PropertyEnvelope, Alert, AlertEnvelope, PlotResult, Problem]) expect(compileCheck(s)).toBeDefined()
  })

  it("accepts and refuses exactly what Effect's decoder does (property, every one-field mutation)", () => {
    const inputs = mutations({ ...property(1), extra: 1 })
    const accepted = agree(Property, inputs)
    expect(accepted).toBeGreaterThan(0)
    expect(accepted).toBeLessThan(inputs.length)
  })

  it("agrees on alerts and plots", () => {
    expect(agree(Alert, mutations(alert(1)))).toBeGreaterThan(0)
    expect(agree(PlotResult, mutations(plotResult))).toBeGreaterThan(0)
  })

  it("returns the record itself, extras included, and Effect's ParseError on failure", () => {
    const decode = makeRecordDecoder(Property)
    const input = { ...property(2), extra: [1, 2] }
    expect(Either.getOrThrow(decode(input))).toBe(input)
    const bad = decode({ ...property(2), bedrooms: "2" })
    expect(Either.isLeft(bad) && bad.left._tag === "ParseError" && bad.left.message.includes("bedrooms")).toBe(true)
  })

  it("falls back to Effect for schemas it cannot compile", () => {
    const S = Schema.Struct({ n: Schema.NumberFromString })
    expect(compileCheck(S)).toBeUndefined()
    expect(Either.getOrThrow(makeRecordDecoder(S)({ n: "4" }))).toEqual({ n: 4 })
  })
})
