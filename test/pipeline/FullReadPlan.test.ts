/**
 * Plans priced from the last full read, against the sandbox over HTTP: in pages of the page size
 * asked now (not the last read's), under a service that holds pages smaller than asked too, and
 * from the planned pipeline's own runs (a derived pipeline is not priced by its base's history).
 * Each plan is checked against what the next run was charged, and a cap below it refuses the run
 * before any unit is spent.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { derivePipeline, extract } from "../../src/index.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const places = [{ country: "PT" }]
const spent = (sandbox: Sandbox) => Object.values(sandbox.control.stats().unitsSpent).reduce((a, b) => a + b, 0)

describe("plans from the last full read", () => {
  let sandbox: Sandbox | undefined
  let dir: string | undefined
  afterEach(async () => {
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  for (const dialect of ["default", "capped-pages"] as const) {
    it(`prices a rerun in pages of its own size, as the run is charged; a cap below refuses it unpaid (${dialect})`, async () => {
      sandbox = await startTestSandbox({ dialect, world: { properties: 4000 } })
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-fullread-"))
      const warehouse = path.join(dir, "w.duckdb")
      const run = (pageSize: number, maxUnits = 100_000) =>
        extract("sourcing-search", { sandbox: sandbox!, warehouse, into: "warehouse", maxUnits, params: { places, pageSize } })

      const first = await run(50)
      expect(first.summary.status).toBe("done")
      const records = first.summary.totals.records
      expect(records).toBeGreaterThan(80)

      // smaller pages: the records over the new size (the sandbox honours sizes up to its cap)
      const pagesOf10 = Math.ceil(records / 10)
      const before = spent(sandbox)
      const refused = await run(10, pagesOf10 - 1).then(
        () => undefined,
        (e) => e
      )
      expect(refused?._tag).toBe("InvalidInput")
      expect(refused.detail).toContain(`sourcing-search plans ${pagesOf10} units, above the cap of ${pagesOf10 - 1}`)
      expect(spent(sandbox)).toBe(before)

      const second = await run(10)
      expect(second.summary.status).toBe("done")
      expect(second.summary.plan.units).toBe(pagesOf10)
      expect(second.summary.totals.units).toBe(pagesOf10)

      // larger pages: at most what the last read took; under a cap of 37 exactly that
      const third = await run(200)
      expect(third.summary.status).toBe("done")
      expect(third.summary.plan.units).toBe(second.summary.totals.units)
      expect(third.summary.totals.units).toBe(dialect === "capped-pages" ? Math.ceil(records / 37) : Math.ceil(records / 200))
      expect(third.summary.totals.units).toBeLessThanOrEqual(third.summary.plan.units)
    })
  }

  it("prices a derived pipeline by its own runs, not its base's", async () => {
    sandbox = await startTestSandbox({ world: { properties: 4000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-fullread-"))
    const warehouse = path.join(dir, "w.duckdb")
    const base = await extract("sourcing-search", { sandbox, warehouse, into: "warehouse", params: { places, pageSize: 10 } })
    expect(base.summary.totals.units).toBeGreaterThan(10)

    const mine = derivePipeline("sourcing-search", { name: "my-sourcing", params: { places, pageSize: 20 } })
    const first = await extract(mine, { sandbox, warehouse, into: "warehouse" })
    // never read in full: one page for its one place until the count says more (not the base's pages)
    expect(first.summary.plan.units).toBe(1)
    expect(first.summary.plan.note).toContain("1 page of 20 for 1 place(s)")
    const records = first.summary.totals.records
    expect(first.summary.totals.units).toBe(Math.ceil(records / 20))
    // its own last read, in pages of 15
    const again = await extract(mine, { sandbox, warehouse, into: "warehouse", params: { pageSize: 15 } })
    expect(again.summary.plan.units).toBe(Math.ceil(records / 15))
    expect(again.summary.totals.units).toBe(Math.ceil(records / 15))
  })
})
