/**
 * The library's reads (`query`, `rows`, `queryArrow`, `writeArrow`, `writeParquet`) never write:
 * the warehouse is opened read-only, so a statement that writes is refused as the CLI's `query`
 * refuses it, and the file keeps its rows. A warehouse another process holds is waited for
 * (`lockWait`, default 30 s as the CLI's `--lock-wait`), then named `Locked`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { extract, query, writeParquet } from "../../src/index.js"
import { holder } from "../support/holder.js"
import { startTestSandbox } from "../support/sandbox.js"

const params = { criteria: { regions: ["Bayern"], commercial_use: "all" }, pageSize: 50, maxPages: 2, sample: true } as const

describe("library reads", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  let warehouse: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-lib-reads-"))
    warehouse = path.join(dir, "w.duckdb")
    await extract("plots-germany", { sandbox, into: "warehouse", warehouse, params })
  })
  afterAll(async () => {
    await sandbox?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("refuses a statement that writes, and the warehouse keeps its rows; exports still write their files", async () => {
    const [{ n }] = await query<{ n: number }>("SELECT count(*)::INTEGER AS n FROM plots", { warehouse })
    expect(n).toBeGreaterThan(0)
    const refused = await query("DELETE FROM plots", { warehouse }).then(
      () => undefined,
      (e) => e
    )
    expect(refused?._tag).toBe("WarehouseError")
    expect(String(refused.message)).toMatch(/read-only/)
    expect(await query("SELECT count(*)::INTEGER AS n FROM plots", { warehouse })).toEqual([{ n }])
    const file = path.join(dir, "plots.parquet")
    await writeParquet("plots", file, { warehouse })
    expect(fs.statSync(file).size).toBeGreaterThan(0)
  })

  it("waits for a warehouse another process holds, up to lockWait, then names it Locked", async () => {
    const held = await holder(warehouse)
    try {
      const started = Date.now()
      const locked = await query("SELECT 1 AS one", { warehouse, lockWait: 300 }).then(
        () => undefined,
        (e) => e
      )
      expect(locked?._tag).toBe("WarehouseError")
      expect(locked.reason).toBe("Locked")
      expect(Date.now() - started).toBeGreaterThanOrEqual(300)
      // released while the read waits: the read goes on
      setTimeout(() => held.kill("SIGKILL"), 300)
      expect(await query("SELECT 1 AS one", { warehouse, lockWait: "20 seconds" })).toEqual([{ one: 1 }])
    } finally {
      held.kill("SIGKILL")
    }
  })
})
