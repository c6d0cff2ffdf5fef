/**
 * The spool loader: batches, resumes from its checkpoint, skips delivery ids it already has,
 * keeps bodies that are not alert events in `_rejects` (recorded as rejected deliveries).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Warehouse } from "../../src/load/Warehouse.js"
import { loadSpool, WEBHOOK_PIPELINE } from "../../src/webhooks/SpoolLoader.js"
import { eventBody, tempDir } from "./support.js"

const line = (id: string, body: string) => JSON.stringify({ id, timestamp: 1_780_000_000, receivedAt: 1_780_000_000_500, body }) + "\n"

describe("SpoolLoader", () => {
  it.effect("lands new deliveries in batches, resumes from the checkpoint and skips known ids", () => {
    const dir = tempDir()
    const spoolPath = nodePath.join(dir, "spool.ndjson")
    fs.writeFileSync(spoolPath, [1, 2, 3, 4, 5].map((n) => line(`m${n}`, eventBody(n, "price_up"))).join(""))
    return Effect.gen(function* () {
      const w = yield* Warehouse
      const first = yield* loadSpool({ spoolPath, batchSize: 2 })
      expect(first).toMatchObject({ read: 5, loaded: 5, duplicates: 0, rejected: 0, batches: 3, offset: fs.statSync(spoolPath).size })
      // More lines: a redelivered id, a body that is not an alert event, a new one, and a torn tail.
      fs.appendFileSync(
        spoolPath,
        line("m2", eventBody(2, "price_up")) +
          line("bad", '{"type":"alert.new","data":{"alert_id":"x"}}') +
          line("m6", eventBody(6, "sold")) +
          '{"id":"torn"'
      )
      const second = yield* loadSpool({ spoolPath, batchSize: 2 })
      expect(second).toMatchObject({ read: 3, loaded: 2, duplicates: 1, rejected: 1, batches: 2 })
      const alerts = yield* w.query(`SELECT alert_id, alert_subtype FROM alerts ORDER BY alert_id`)
      expect(alerts).toEqual(
        [1, 2, 3, 4, 5].map((n) => ({ alert_id: n, alert_subtype: "price_up" })).concat([{ alert_id: 6, alert_subtype: "sold" }])
      )
      const deliveries = yield* w.query(`SELECT delivery_id, status, event_type, alert_id FROM webhook_deliveries ORDER BY delivery_id`)
      expect(deliveries.map((d) => [d.delivery_id, d.status])).toEqual([
        ["bad", "rejected"],
        ["m1", "landed"],
        ["m2", "landed"],
        ["m3", "landed"],
        ["m4", "landed"],
        ["m5", "landed"],
        ["m6", "landed"]
      ])
      // Every verified delivery once in alert_events, the rejected one included.
      const events = yield* w.query(`SELECT delivery_id, status FROM alert_events ORDER BY delivery_id`)
      expect(events.map((d) => [d.delivery_id, d.status])).toEqual(deliveries.map((d) => [d.delivery_id, d.status]))
      const rejects = yield* w.query(`SELECT count(*) AS n FROM _rejects WHERE pipeline = '${WEBHOOK_PIPELINE}'`)
      expect(rejects).toEqual([{ n: 1 }])
      expect((yield* loadSpool({ spoolPath })).read).toBe(0)
    }).pipe(Effect.provide(Warehouse.Default({ path: nodePath.join(dir, "w.duckdb"), rawDir: false })))
  })

  it.effect("yields between batches when asked (a run waits for the warehouse): what landed stays, the next load goes on", () => {
    const dir = tempDir()
    const spoolPath = nodePath.join(dir, "spool.ndjson")
    const lines = [1, 2, 3, 4, 5].map((n) => line(`y${n}`, eventBody(n, "new")))
    fs.writeFileSync(spoolPath, lines.join(""))
    return Effect.gen(function* () {
      const w = yield* Warehouse
      let asked = 0
      const first = yield* loadSpool({ spoolPath, batchSize: 2, yieldNow: () => ++asked >= 1 })
      expect(first).toMatchObject({ read: 5, loaded: 2, batches: 1, yielded: true, offset: Buffer.byteLength(lines.slice(0, 2).join("")) })
      expect(asked).toBe(1)
      const rest = yield* loadSpool({ spoolPath, batchSize: 2, yieldNow: () => false })
      expect(rest).toMatchObject({ read: 3, loaded: 3, duplicates: 0, batches: 2, yielded: false, offset: fs.statSync(spoolPath).size })
      const events = yield* w.query(`SELECT delivery_id FROM alert_events ORDER BY delivery_id`)
      expect(events.map((e) => e.delivery_id)).toEqual(["y1", "y2", "y3", "y4", "y5"])
    }).pipe(Effect.provide(Warehouse.Default({ path: nodePath.join(dir, "w.duckdb"), rawDir: false })))
  })
})
