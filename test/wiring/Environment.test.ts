/**
 * The one wiring place passes the settings through: DuckDB knobs to the warehouse of a run, the
 * pacing headroom to the clients.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Warehouse } from "../../src/load/Warehouse.js"
import { ServiceSettings } from "../../src/service/ServiceSettings.js"
import { useHarness } from "../support/pipelines.js"

describe("environment wiring", () => {
  const h = useHarness({ settings: { duckdb: { memoryLimit: "40MB", threads: 1 }, service: { pacingHeadroom: 0.8 } } })

  it("duckdb.memoryLimit / duckdb.threads reach DuckDB, service.pacingHeadroom reaches the clients", async () => {
    const [row] = await h.use(
      Effect.flatMap(Warehouse, (w) => w.query(`SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t`))
    )
    expect(String(row!.m)).toMatch(/^3[7-9](\.\d+)? MiB$|^40(\.0)? MiB$/)
    expect(Number(row!.t)).toBe(1)
    expect((await h.use(ServiceSettings)).pacingHeadroom).toBe(0.8)
  })
})
