/**
 * The one wiring place passes the settings through: DuckDB knobs to the warehouse of a run, the
 * pacing headroom and the retry settings to the clients, today's spend from the ledger to the
 * daily cap.
 */
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { resolveSettings } from "../../src/library/Session.js"
import { remoteUrls } from "../../src/wiring/Environment.js"
import { Warehouse } from "../../src/load/Warehouse.js"
import { ServiceSettings } from "../../src/service/ServiceSettings.js"
import { unitsSpent, useHarness } from "../support/pipelines.js"
import { makeTempDir } from "../support/tempDirs.js"

describe("environment wiring", () => {
  const h = useHarness({
    settings: {
      duckdb: { memoryLimit: "40MB", checkpointThreshold: "3MB", threads: 1 },
      service: { pacingHeadroom: 0.8, maxRetries: 2, retryBaseMs: 40, retryMaxMs: 900 }
    }
  })

  it("duckdb.memoryLimit / duckdb.checkpointThreshold / duckdb.threads reach DuckDB, service.pacingHeadroom and the retry settings reach the clients", async () => {
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
    expect(await h.use(ServiceSettings)).toMatchObject({ pacingHeadroom: 0.8, maxRetries: 2, retryBaseMs: 40, retryMaxMs: 900 })
  })
})

describe("the daily cap, counted from the warehouse's ledger", () => {
  const h = useHarness({ settings: { budget: { dailyMaxUnits: 3 } } })

  it("a later run today is held to what earlier runs left of budget.dailyMaxUnits, before the call that would cross it", async () => {
    const first = await h.run("plots-germany", { params: { pageSize: 10, maxPages: 2 }, sample: true })
    expect([first.status, first.totals.units]).toEqual(["done", 2])
    const charged = unitsSpent(h)
    // other pages than the first run's (its paid answers would be reused at 0 units)
    const second = await h.run("plots-germany", { params: { pageSize: 5, maxPages: 3 }, sample: true, fullRefresh: true })
    expect([second.status, second.exitCode]).toEqual(["paused", 3])
    expect(second.error).toMatch(/costs 1 units and 3 of today's 3 are spent or reserved/)
    // one unit was left today: one page bought, the next refused before it was sent
    expect(unitsSpent(h) - charged).toBe(1)
  })
})

describe("the environment's base URLs, applied once where settings are loaded", () => {
  const withEnv = async <A>(env: Record<string, string>, f: () => Promise<A>): Promise<A> => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
    Object.assign(process.env, env)
    try {
      return await f()
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
    }
  }
  const env = { SVC_PLATFORM_URL: "http://platform.example", SVC_API_URL: "http://api.example" }
  const expected = { platformUrl: "http://platform.example", apiUrl: "http://api.example" }

  it("a library session's settings object and settings file carry them; the wiring reads only the settings", async () => {
    const fromObject = await withEnv(env, () => Effect.runPromise(resolveSettings({ service: { target: "remote" } })))
    expect(fromObject.service).toMatchObject(expected)
    const file = path.join(makeTempDir("estate-env-"), "settings.json")
    fs.writeFileSync(file, JSON.stringify({ service: { target: "remote", platformUrl: "http://other.example" } }))
    const fromFile = await withEnv(env, () => Effect.runPromise(resolveSettings(file)))
    expect(fromFile.service).toMatchObject(expected)
    // read later, with the variables gone: what the settings hold, not the environment of the moment
    const urls = await withEnv({ SVC_PLATFORM_URL: "", SVC_API_URL: "" }, async () => remoteUrls(fromFile))
    expect(Option.getOrUndefined(urls.platformUrl)).toBe(expected.platformUrl)
    const withoutEnv = await withEnv({ SVC_PLATFORM_URL: "", SVC_API_URL: "" }, () => Effect.runPromise(resolveSettings(file)))
    expect(withoutEnv.service.platformUrl).toBe("http://other.example")
  })
})
