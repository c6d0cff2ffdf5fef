/**
 * README's pipeline table agrees with the catalogue (what `estate-etl list` prints): the same
 * pipelines, each row's tables among the pipeline's own, and its units per call the declared
 * cost. A new pipeline without its README row, or a renamed table, fails here.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { catalogue } from "../../pipelines/index.js"
import { DEFAULT_UNIT_COSTS } from "../../src/config/UnitCosts.js"

const README = fs.readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8")
const section = README.slice(README.indexOf("## Pipelines"), README.indexOf("## Running"))
const rows = section
  .split("\n")
  .filter((l) => /^\| `[a-z-]+` \|/.test(l))
  .map((l) =>
    l
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim())
  )

describe("README's pipeline table", () => {
  it("lists exactly the catalogue's pipelines, in its order", () => {
    expect(rows.map((r) => r[0]!.replaceAll("`", ""))).toEqual(catalogue.map((p) => p.name))
  })

  it("names only tables the pipeline writes, and its units per call", () => {
    for (const [name, , tables, units] of rows) {
      const p = catalogue.find((x) => `\`${x.name}\`` === name)!
      const own = new Set(p.tables.map((t) => t.name))
      for (const t of tables!.match(/`[a-z_]+`/g) ?? []) expect(own, `${p.name}: ${t}`).toContain(t.replaceAll("`", ""))
      expect(Number(units), p.name).toBe(p.host === "platform" ? DEFAULT_UNIT_COSTS[p.cost.operation] : 0)
    }
  })
})
