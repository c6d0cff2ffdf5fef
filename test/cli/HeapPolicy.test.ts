import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { DEFAULT_HEAP_GROWING_PERCENT, DEFAULT_SEMI_SPACE_MB, heapGrowingPercent, semiSpaceMb } from "../../src/cli/HeapPolicy.js"

const ROOT = path.resolve(import.meta.dirname, "../..")

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
  it("caps the semi-spaces at DEFAULT_SEMI_SPACE_MB unless told otherwise", () => {
    expect(semiSpaceMb({}, [])).toBe(DEFAULT_SEMI_SPACE_MB)
    expect(semiSpaceMb({ ESTATE_ETL_SEMI_SPACE_MB: "8" }, [])).toBe(8)
    expect(semiSpaceMb({ ESTATE_ETL_SEMI_SPACE_MB: "off" }, [])).toBeUndefined()
    expect(semiSpaceMb({ ESTATE_ETL_SEMI_SPACE_MB: "0" }, [])).toBeUndefined()
    expect(semiSpaceMb({ ESTATE_ETL_SEMI_SPACE_MB: "1.5" }, [])).toBe(DEFAULT_SEMI_SPACE_MB)
  })

  it("gives way to the user's own young generation flags, and each knob to its own", () => {
    expect(semiSpaceMb({ NODE_OPTIONS: "--max-semi-space-size=8" }, [])).toBeUndefined()
    expect(semiSpaceMb({}, ["--min-semi-space-size=2"])).toBeUndefined()
    expect(semiSpaceMb({}, ["--max-old-space-size=512"])).toBe(DEFAULT_SEMI_SPACE_MB)
    expect(heapGrowingPercent({}, ["--max-semi-space-size=8"])).toBe(DEFAULT_HEAP_GROWING_PERCENT)
  })

  // the built module in a fresh process (a test worker's young generation has grown already):
  // young garbage allocated between turns of the event loop, as a run allocates between its I/O
  const youngest = (hold: string) => {
    const chunks = path.join(ROOT, "dist/bundle/chunks")
    const policy = pathToFileURL(
      path.join(
        chunks,
        fs.readdirSync(chunks).find((f) => /^HeapPolicy-.*\.mjs$/.test(f))!
      )
    ).href
    const script = `
      const { applyHeapPolicy, holdYoungGeneration, semiSpaceBytes } = await import(${JSON.stringify(policy)})
      const heap = applyHeapPolicy({ ESTATE_ETL_SEMI_SPACE_MB: ${JSON.stringify(hold)} }, [])
      if (heap.semiMb !== undefined) holdYoungGeneration(heap.semiMb, 5)
      let keep = [], most = 0
      for (let turn = 0; turn < 150; turn++) {
        for (let i = 0; i < 20000; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 30000) keep = [] }
        most = Math.max(most, semiSpaceBytes())
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      process.stdout.write(String(most / 2 ** 20))`
    return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }))
  }

  it("lets the semi-spaces grow to the cap, and no further", () => {
    const [held, free] = [youngest("4"), youngest("off")]
    // V8 doubles them after a scavenge, so a late check may let one doubling past the cap
    expect(held).toBeGreaterThanOrEqual(4)
    expect(held).toBeLessThanOrEqual(8)
    expect(free).toBeGreaterThan(held)
  }, 60_000)
})
