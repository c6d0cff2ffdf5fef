/**
 * `make chaos` starts with `tools/chaos.ts`, outside vitest: the harness it imports from
 * `test/support/` must load there (a top-level `import { expect } from "vitest"` in a helper once
 * stopped it before its first kill). Bad flags are refused with the usage line, before anything runs.
 */
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")

describe("tools/chaos.ts (make chaos)", () => {
  it("loads outside vitest and refuses a kill count below 1 with its usage, exit 2", () => {
    const r = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["tools/chaos.ts", "--kills", "0"], { cwd: ROOT, encoding: "utf8" })
    expect(r.stderr).toMatch(/^usage: tools\/chaos\.ts \[--kills N >= 1\] \[--pipeline [a-z|-]+\|all\] \[--seed N\] \[--out file\]\n$/)
    expect(r.status).toBe(2)
  })
})
