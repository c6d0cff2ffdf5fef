/**
 * 1,000 deliveries of real sandbox alerts from 20 concurrent senders, 100 of them sent a second
 * time by another sender at the same time: each delivery id is acknowledged exactly once, and
 * after loading (twice) the warehouse holds each alert exactly once.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as nodePath from "node:path"
import { Warehouse } from "../../src/load/Warehouse.js"
import { startReceiver } from "../../src/webhooks/Receiver.js"
import { loadSpool } from "../../src/webhooks/SpoolLoader.js"
import { startTestSandbox } from "../support/sandbox.js"
import { deliver, newSecret, spoolLines, tempDir } from "./support.js"

const N = 1000
const SENDERS = 20

const scope = Effect.runSync(Scope.make())
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

describe("concurrent deliveries", () => {
  it("land exactly once", { timeout: 20_000 }, async () => {
    const sb = await startTestSandbox({ world: { properties: 5000 } })
    const alerts = sb.context.world.alerts({ nowMs: sb.context.clock.now(), orderBy: "alert_id", offset: 0, limit: N }).results
    await sb.close()
    expect(alerts).toHaveLength(N)

    const secret = newSecret()
    const spoolPath = nodePath.join(tempDir(), "spool.ndjson")
    const r = await Effect.runPromise(Scope.extend(startReceiver({ spoolPath, secrets: [Redacted.make(secret)] }), scope))
    const deliveries = alerts.map((a) => ({
      id: `msg_feed_1_${a.alert_id}`,
      body: JSON.stringify({ type: `alert.${a.alert_subtype}`, timestamp: a.created_at, data: a }),
      secrets: [secret]
    }))
    // Sender s sends deliveries s, s+20, ...; every 10th delivery is also sent by the next sender.
    const work = Array.from({ length: SENDERS }, (_, s) =>
      deliveries.flatMap((d, i) => (i % SENDERS === s || (i % 10 === 0 && (i + 1) % SENDERS === s) ? [d] : []))
    )
    const statuses = new Map<string, Array<number>>()
    await Promise.all(
      work.map(async (mine) => {
        for (const d of mine) {
          const res = await deliver(r.url, { ...d, timestamp: Math.floor(Date.now() / 1000) })
          statuses.set(d.id, [...(statuses.get(d.id) ?? []), res.status])
        }
      })
    )
    expect(statuses.size).toBe(N)
    for (const s of statuses.values()) {
      expect(s.filter((x) => x === 204)).toHaveLength(1)
      expect(s.every((x) => x === 204 || x === 409)).toBe(true)
    }
    expect([...statuses.values()].filter((s) => s.length === 2)).toHaveLength(N / 10)
    expect(r.stats.accepted).toBe(N)
    expect(r.stats.refused.get("Replayed")).toBe(N / 10)
    expect(spoolLines(spoolPath)).toHaveLength(N)

    const out = await Effect.runPromise(
      Effect.gen(function* () {
        const first = yield* loadSpool({ spoolPath, batchSize: 200 })
        const second = yield* loadSpool({ spoolPath, batchSize: 200 })
        const w = yield* Warehouse
        const counts =
          yield* w.query(`SELECT (SELECT count(*) FROM alerts) AS alerts, (SELECT count(DISTINCT alert_id) FROM alerts) AS distinct_alerts,
        (SELECT count(*) FROM webhook_deliveries) AS deliveries`)
        const ids = (yield* w.query(`SELECT alert_id FROM alerts ORDER BY alert_id`)).map((x) => Number(x.alert_id))
        return { first, second, counts: counts[0], ids }
      }).pipe(Effect.provide(Warehouse.Default({ path: nodePath.join(tempDir(), "w.duckdb"), rawDir: false })))
    )
    expect(out.first).toMatchObject({ read: N, loaded: N, duplicates: 0, rejected: 0, batches: N / 200 })
    expect(out.second).toMatchObject({ read: 0, loaded: 0 })
    expect(out.counts).toEqual({ alerts: N, distinct_alerts: N, deliveries: N })
    expect(out.ids).toEqual(alerts.map((a) => a.alert_id))
  })
})
