/**
 * The heavy-first order names test files that exist: a renamed or deleted file would silently
 * lose its place at the front.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { HEAVY_FILES } from "./HeavyFirst.js"

const ROOT = path.resolve(import.meta.dirname, "../..")

describe("HeavyFirst", () => {
  it("names only test files of this checkout, each once", () => {
    expect(HEAVY_FILES.filter((f) => !f.endsWith(".test.ts") || !fs.existsSync(path.join(ROOT, f)))).toEqual([])
    expect(new Set(HEAVY_FILES).size).toBe(HEAVY_FILES.length)
  })
})
