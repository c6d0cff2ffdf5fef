import { describe, expect, it } from "vitest"
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent } from "../../src/cli/HeapPolicy.js"

describe("the CLI's heap growth policy", () => {
  it("defaults to DEFAULT_HEAP_GROWING_PERCENT", () => {
    expect(heapGrowingPercent({}, [])).toBe(DEFAULT_HEAP_GROWING_PERCENT)
    expect(heapGrowingPercent({ ESTATE_ETL_HEAP_GROWING_PERCENT: "" }, [])).toBe(DEFAULT_HEAP_GROWING_PERCENT)
  })

  it("takes ESTATE_ETL_HEAP_GROWING_PERCENT, and 0 or off leaves V8 alone", () => {
    expect(heapGrowingPercent({ ESTATE_ETL_HEAP_GROWING_PERCENT: "120" }, [])).toBe(120)
    expect(heapGrowingPercent({ ESTATE_ETL_HEAP_GROWING_PERCENT: "off" }, [])).toBeUndefined()
    expect(heapGrowingPercent({ ESTATE_ETL_HEAP_GROWING_PERCENT: "0" }, [])).toBeUndefined()
    // not a whole percent in range: the default, not a flag V8 would refuse
    expect(heapGrowingPercent({ ESTATE_ETL_HEAP_GROWING_PERCENT: "lots" }, [])).toBe(DEFAULT_HEAP_GROWING_PERCENT)
  })

  it("gives way to the user's own heap flags, in node's arguments or NODE_OPTIONS", () => {
    expect(heapGrowingPercent({}, ["--max-old-space-size=512"])).toBeUndefined()
    expect(heapGrowingPercent({ NODE_OPTIONS: "--heap-growing-percent=200" }, [])).toBeUndefined()
    expect(heapGrowingPercent({ NODE_OPTIONS: "--max-heap-size=900 --enable-source-maps" }, [])).toBeUndefined()
    expect(heapGrowingPercent({ NODE_OPTIONS: "--enable-source-maps" }, ["--no-warnings"])).toBe(DEFAULT_HEAP_GROWING_PERCENT)
  })
})
