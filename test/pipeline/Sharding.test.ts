/**
 * `--shard i/n` splits a fan-out deterministically; merging the shard warehouses gives the same
 * table as one unsharded run.
 */
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { mergeWarehouses } from "../../src/load/MergeWarehouses.js"
import { useHarness } from "../support/pipelines.js"

const params = {
  location_ids: [18, 22, 26, 30, 130, 346],
  types: ["apartment", "penthouse"],
  business_type: "sale",
  data_points: ["avg_price", "available_on_market"],
  date_interval: "month",
  date_range: { min: "2025-03-03", max: "2026-03-29" }
}
const content = `SELECT count(*) AS n, sum(hash(area_key, data_point, date_start, value)) AS h FROM market_time_series`

describe("sharding", () => {
  const h = useHarness({ sandbox: { world: { properties: 3000 } } })

  it("two shards cover every slice exactly once, and their merge equals the unsharded run", async () => {
    const whole = path.join(h.dir, "whole.duckdb")
    const shards = [0, 1].map((i) => path.join(h.dir, `shard-${i}.duckdb`))
    const full = await h.run("market-time-series", { params, warehouse: whole })
    const parts = [
      await h.run("market-time-series", { params, warehouse: shards[0]!, shard: { index: 0, count: 2 } }),
      await h.run("market-time-series", { params, warehouse: shards[1]!, shard: { index: 1, count: 2 } })
    ]
    expect(full.plan.slices).toBe(12)
    expect(parts.every((p) => p.totals.pages > 0)).toBe(true)
    expect(parts[0]!.totals.pages + parts[1]!.totals.pages).toBe(full.totals.pages)
    const merged = path.join(h.dir, "merged.duckdb")
    await h.use(mergeWarehouses(merged, shards))
    const [a] = await h.query(content, whole)
    const [b] = await h.query(content, merged)
    expect(b).toEqual(a)
    expect(a!.n).toBeGreaterThan(0)
  })
})
