/**
 * Saved links survive a new base URL: cursor checkpoints keep `next` relative to their host, so
 * a run paused against one sandbox resumes against another (a new embedded-sandbox port, a
 * changed `platformUrl`); a link to a genuinely foreign host is still refused.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Warehouse } from "../../src/load/Warehouse.js"
import { type Harness, makeHarness } from "../support/pipelines.js"

const params = { places: [{ country: "PT" }], operation: "sale", pageSize: 10 }

describe("saved links and a new base URL", () => {
  let a: Harness
  let b: Harness
  let dir: string
  beforeAll(async () => {
    // the same world on two ports
    a = await makeHarness({ sandbox: { world: { properties: 3000 } } })
    b = await makeHarness({ sandbox: { world: { properties: 3000 } } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-rebase-"))
  })
  afterAll(async () => {
    await a.close()
    await b.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a run paused against one host resumes against the same host at another address", async () => {
    expect(a.sandbox.platformUrl).not.toBe(b.sandbox.platformUrl)
    const warehouse = path.join(dir, "w.duckdb")
    const paused = await a.run("sourcing-search", { params, maxUnits: 2, untilCap: true, warehouse })
    expect(paused.status).toBe("paused")
    const [cp] = await a.query(
      `SELECT json_extract_string(value, '$.next') AS next FROM _checkpoints WHERE pipeline = 'sourcing-search'`,
      warehouse
    )
    expect(String(cp!.next)).toMatch(/^\/v1\/property-sourcing\/searches\//)

    const resumed = await b.run("sourcing-search", { params, warehouse })
    expect(resumed.resumed).toBe(true)
    expect(resumed.status).toBe("done")
    const truth = await b.query(`SELECT count(*) AS n FROM sourcing_properties`, warehouse)
    expect(Number(truth[0]!.n)).toBe(resumed.completeness.declared)
  })

  it("a rerun against the same host at another address reuses the answers bought before, their links followed there", async () => {
    const warehouse = path.join(dir, "reuse.duckdb")
    const first = await a.run("sourcing-search", { params, warehouse })
    expect(first.status).toBe("done")
    expect(first.totals.units).toBeGreaterThan(1)
    const spentB = Object.values(b.sandbox.control.stats().unitsSpent).reduce((x, y) => x + y, 0)
    // the archived pages name the first sandbox's port in their next links: they are followed on the second
    const again = await b.run("sourcing-search", { params, warehouse })
    expect([again.status, again.totals.units, again.totals.pages]).toEqual(["done", 0, first.totals.pages])
    expect(Object.values(b.sandbox.control.stats().unitsSpent).reduce((x, y) => x + y, 0)).toBe(spentB)
  })

  it("a saved link to another host is refused", async () => {
    const warehouse = path.join(dir, "foreign.duckdb")
    await a.run("sourcing-search", { params, maxUnits: 2, untilCap: true, warehouse })
    await a.use(
      Effect.flatMap(Warehouse, (w) =>
        w.query(
          `UPDATE _checkpoints SET value = json_object('next', 'http://elsewhere.test/v1/property-sourcing/searches/x', 'pages', 1) WHERE pipeline = 'sourcing-search'`
        )
      ),
      warehouse
    )
    const r = await b.run("sourcing-search", { params, warehouse })
    expect(r.status).not.toBe("done")
    expect(r.error).toMatch(/refusing to follow a link to another host \(http:\/\/elsewhere\.test\)/)
  })
})
