import { Effect } from "effect"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pipeline from "../../pipelines/alerts.js"
import { TokenClient } from "../../src/service/TokenClient.js"
import type { TokenBody } from "../../src/service/TokenRequests.js"
import { makeHarness, type Harness } from "../support/pipelines.js"

const ROUTE = "GET /api/v1/listing-alerts/feeds/:id"
const SINCE = "2026-05-20T00:00:00Z"
const HOUR = 3_600_000

describe("alerts", () => {
  let h: Harness
  let all: number
  let drops: number
  const reads = () => h.sandbox.control.stats().requests[ROUTE] ?? 0
  const now = () => new Date(h.sandbox.control.now()).toISOString()
  /** The world's count of alerts created in [SINCE, now), optionally of some subtypes. */
  const truth = (subtypes?: ReadonlyArray<string>) =>
    h.sandbox.context.world.alerts({
      nowMs: h.sandbox.control.now(),
      createdFrom: Date.parse(SINCE),
      createdTo: h.sandbox.control.now(),
      subtypes,
      offset: 0,
      limit: 0
    }).count

  beforeAll(async () => {
    // 600 properties: 20 alerts a day
    h = await makeHarness({ sandbox: { world: { properties: 600 } } })
    const create = (body: TokenBody<"feed">) =>
      h.use(Effect.flatMap(TokenClient, (c) => c.legacyFeedCreate(body)).pipe(Effect.map((r) => (r.body as { id: number }).id)))
    all = await create({ name: "everything", filter: {} })
    drops = await create({ name: "price drops", filter: { alert_subtypes: ["price_down"] } })
  })
  afterAll(() => h.close())

  it("syncs every feed of the user, then a rerun after the clock moves fetches only the new alerts", async () => {
    const first = await h.run(pipeline, { params: { since: SINCE, until: now() } })
    expect(first.status).toBe("done")
    expect(first.plan.slices).toBe(2)
    const total = truth()
    const dropsTotal = truth(["price_down"])
    expect(total).toBeGreaterThan(100)
    const count = async (sql: string) => Number((await h.query(sql))[0]!.n)
    expect(await count(`SELECT count(*) AS n FROM alerts`)).toBe(total)
    expect(await count(`SELECT count(*) AS n FROM alert_feed_links WHERE feed_id = ${all}`)).toBe(total)
    expect(await count(`SELECT count(*) AS n FROM alert_feed_links WHERE feed_id = ${drops}`)).toBe(dropsTotal)
    expect(await count(`SELECT count(*) AS n FROM alerts WHERE alert_subtype = 'price_down'`)).toBe(dropsTotal)

    // a sample alert as the world has it
    const sample = h.sandbox.context.world.alerts({
      nowMs: h.sandbox.control.now(),
      createdFrom: Date.parse(SINCE),
      orderBy: "alert_id",
      offset: 7,
      limit: 1
    }).results[0]!
    const [row] = await h.query(`SELECT *, CAST(alert_date AS VARCHAR) AS d FROM alerts WHERE alert_id = ${sample.alert_id}`)
    expect(row!.listing_id).toBe(sample.listing_id)
    expect(row!.alert_subtype).toBe(sample.alert_subtype)
    expect(row!.d).toBe(sample.alert_date)
    expect(row!.new_value).toBe(sample.new_value)

    // two days later: only what is new is read, one page per feed
    h.sandbox.context.clock.advance(48 * HOUR)
    const before = reads()
    const second = await h.run(pipeline, { params: { since: SINCE, until: now() } })
    expect(second.status).toBe("done")
    expect(reads() - before).toBe(2)
    const newAll = truth() - total
    const newDrops = truth(["price_down"]) - dropsTotal
    expect(newAll).toBeGreaterThan(20)
    // the new alerts, plus those re-read in the overlap before the watermark (merged by alert_id)
    expect(second.totals.records).toBeGreaterThanOrEqual(newAll + newDrops)
    expect(await count(`SELECT count(*) AS n FROM alerts`)).toBe(truth())
    expect(await count(`SELECT count(*) AS n FROM alert_feed_links`)).toBe(truth() + truth(["price_down"]))
    // the watermark is the newest created_at landed, not this machine's clock
    const [mark] = await h.query(
      `SELECT json_extract_string(value, '$.watermark') AS w FROM _checkpoints WHERE pipeline = 'alerts' AND key = 'feed=${all}'`
    )
    const [newest] = await h.query(
      `SELECT strftime(max(a.created_at), '%Y-%m-%dT%H:%M:%S') AS t FROM alerts a JOIN alert_feed_links l USING (alert_id) WHERE l.feed_id = ${all}`
    )
    expect(String(mark!.w).slice(0, 19)).toBe(newest!.t)

    // the clock has not moved: only the overlap is read again (one request per feed), nothing changes
    const idle = reads()
    const third = await h.run(pipeline, { params: { since: SINCE, until: now() } })
    expect(third.status).toBe("done")
    expect(reads() - idle).toBe(2)
    expect(await count(`SELECT count(*) AS n FROM alerts`)).toBe(truth())
  })

  it("splits windows so no read goes past max_offset, and still lands every alert once", async () => {
    const warehouse = path.join(h.dir, "split.duckdb")
    const before = reads()
    const summary = await h.run(pipeline, {
      params: { feed_ids: [all], since: SINCE, until: now(), page_size: 50, max_offset: 100 },
      warehouse
    })
    expect(summary.status).toBe("done")
    const [{ n, ids }] = (await h.query(`SELECT count(*) AS n, count(DISTINCT alert_id) AS ids FROM alerts`, warehouse)) as Array<{
      n: number
      ids: number
    }>
    expect(Number(n)).toBe(truth())
    expect(Number(ids)).toBe(truth())
    // the whole range (more than 150 alerts) was probed once and split: one request more than the pages landed
    expect(truth()).toBeGreaterThan(150)
    expect(reads() - before).toBeGreaterThan(summary.totals.pages)
    expect(summary.totals.pages).toBeGreaterThanOrEqual(Math.ceil(truth() / 50))
  })

  it("refuses bad parameters before any request", async () => {
    const before = reads()
    await expect(h.run(pipeline, { params: { max_offset: 60000 } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { since: "yesterday" } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    await expect(h.run(pipeline, { params: { page_size: 501 } })).rejects.toMatchObject({ _tag: "InvalidInput" })
    expect(reads()).toBe(before)
  })
})
