import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import {
  DEFAULT_HEAP_GROWING_PERCENT,
  DEFAULT_SEMI_SPACE_GROWTH_FACTOR,
  heapFlags,
  heapGrowingPercent,
  semiSpaceGrowthFactor
} from "../../src/cli/HeapPolicy.js"

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

describe("the CLI's young generation policy", () => {
  it("keeps the semi-spaces at their start size unless told otherwise", () => {
    expect(semiSpaceGrowthFactor({}, [])).toBe(DEFAULT_SEMI_SPACE_GROWTH_FACTOR)
    expect(semiSpaceGrowthFactor({ ESTATE_ETL_SEMI_SPACE_GROWTH_FACTOR: "2" }, [])).toBe(2)
    expect(semiSpaceGrowthFactor({ ESTATE_ETL_SEMI_SPACE_GROWTH_FACTOR: "off" }, [])).toBeUndefined()
    // 0 would crash V8: it means "V8's own", like off
    expect(semiSpaceGrowthFactor({ ESTATE_ETL_SEMI_SPACE_GROWTH_FACTOR: "0" }, [])).toBeUndefined()
    expect(semiSpaceGrowthFactor({ ESTATE_ETL_SEMI_SPACE_GROWTH_FACTOR: "1.5" }, [])).toBe(DEFAULT_SEMI_SPACE_GROWTH_FACTOR)
  })

  it("gives way to the user's own young generation flags, and each knob to its own", () => {
    expect(semiSpaceGrowthFactor({ NODE_OPTIONS: "--max-semi-space-size=8" }, [])).toBeUndefined()
    expect(semiSpaceGrowthFactor({}, ["--min-semi-space-size=2"])).toBeUndefined()
    expect(heapFlags({}, ["--max-old-space-size=512"])).toEqual([`--semi-space-growth-factor=${DEFAULT_SEMI_SPACE_GROWTH_FACTOR}`])
    expect(heapFlags({}, [])).toEqual([
      `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`,
      `--semi-space-growth-factor=${DEFAULT_SEMI_SPACE_GROWTH_FACTOR}`
    ])
  })

  it("takes effect when applied: V8's new space stops growing", () => {
    const script = `
      const v8 = require("node:v8")
      if (process.argv[1] === "apply") v8.setFlagsFromString("--semi-space-growth-factor=1")
      let keep = [], most = 0
      for (let i = 0; i < 2e6; i++) {
        keep.push({ i, s: "x" + i })
        if (keep.length > 50000) keep = []
        if (i % 50000 === 0) most = Math.max(most, v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size)
      }
      process.stdout.write(String(most))`
    const most = (arg: string) => Number(execFileSync(process.execPath, ["-e", script, arg], { encoding: "utf8" }))
    expect(most("apply") * 4).toBeLessThanOrEqual(most("default"))
  })
})
