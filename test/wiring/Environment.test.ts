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
  const h = useHarness({
    settings: { duckdb: { memoryLimit: "40MB", checkpointThreshold: "3MB", threads: 1 }, service: { pacingHeadroom: 0.8 } }
  })

  it("duckdb.memoryLimit / duckdb.checkpointThreshold / duckdb.threads reach DuckDB, service.pacingHeadroom reaches the clients", async () => {
    const [row] = await h.use(
      Effect.flatMap(Warehouse, (w) =>
        w.query(
          `SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t, current_setting('checkpoint_threshold') AS c`
        )
      )
    )
    expect(String(row!.m)).toMatch(/^3[7-9](\.\d+)? MiB$|^40(\.0)? MiB$/)
    expect(Number(row!.t)).toBe(1)
    expect(String(row!.c)).toMatch(/^2\.[89](\d+)? MiB$|^3(\.0)? MiB$/)
    expect((await h.use(ServiceSettings)).pacingHeadroom).toBe(0.8)
  })
})
