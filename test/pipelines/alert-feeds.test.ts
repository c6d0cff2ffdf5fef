import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/alert-feeds.js"
import { TokenClient } from "../../src/service/TokenClient.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

describe("alert-feeds", () => {
  let h: Harness
  const client = <A>(f: (c: TokenClient) => Effect.Effect<A, unknown>) => h.use(Effect.flatMap(TokenClient, f))
  const made = () => {
    const r = h.sandbox.control.stats().requests
    return (r["GET /api/v1/listing-alerts/feeds"] ?? 0) + (r["GET /alerts-api/feeds"] ?? 0)
  }
  beforeAll(async () => {
    h = await makeHarness({ sandbox: { world: { properties: 300 } } })
  })
  afterAll(() => h.close())

  it("lands the feeds of both families, following the alerts-api pages; a rerun replaces the table", async () => {
    const legacy: Array<number> = []
    for (const name of ["madrid", "lisbon"]) {
      legacy.push(
        await client((c) => c.legacyFeedCreate({ name, filter: { location_ids: [1], alert_subtypes: ["new"] } })).then(
          (r) => (r.body as { id: number }).id
        )
      )
    }
    const hooks: Array<string> = []
    for (const name of ["a", "b", "c"]) {
      hooks.push(
        await client((c) => c.alertsApiFeedCreate({ name, filter: { alert_subtypes: ["sold"] } })).then(
          (r) => (r.body as { feed_id: string }).feed_id
        )
      )
    }
    const before = made()
    const summary = await h.run(pipeline, { params: { page_size: 2 } })
    expect(summary.status).toBe("done")
    // one legacy list, two alerts-api pages (2 + 1)
    expect(made() - before).toBe(3)
    const rows = await h.query(`SELECT family, feed_id, name, alert_subtypes FROM alert_feeds ORDER BY family, feed_id`)
    expect(rows.map((r) => [r.family, r.feed_id])).toEqual([
      ...hooks
        .slice()
        .sort()
        .map((id) => ["alerts_api", id]),
      ...legacy
        .map(String)
        .sort()
        .map((id) => ["legacy", id])
    ])
    expect(rows.find((r) => r.feed_id === String(legacy[0]))).toMatchObject({ name: "madrid", alert_subtypes: ["new"] })

    await client((c) => c.legacyFeedDelete(legacy[1]!))
    const again = await h.run(pipeline, { params: { page_size: 2 } })
    expect(again.status).toBe("done")
    const [{ n }] = (await h.query(`SELECT count(*) AS n FROM alert_feeds`)) as Array<{ n: number }>
    expect(Number(n)).toBe(4)
  })

  it("refuses a bad page size before any request", async () => {
    const before = made()
    await expect(h.run(pipeline, { params: { page_size: 0 } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(made()).toBe(before)
  })
})
