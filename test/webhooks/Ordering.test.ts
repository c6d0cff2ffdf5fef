/**
 * Events are ordered by the alert's own time, not by arrival: delivered through a real receiver
 * and loaded into a real DuckDB file, an older event that arrives after a newer one never
 * overwrites the newer row (in the same load or a later one), and every verified event is kept
 * once in `alert_events`.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Warehouse } from "../../src/load/Warehouse.js"
import { type ReceiverHandle, startReceiver } from "../../src/webhooks/Receiver.js"
import { alertTimeOf, instantOf, loadSpool } from "../../src/webhooks/SpoolLoader.js"
import { alertEvent, deliver, newSecret, tempDir } from "./support.js"

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const receiver = async (secret: string): Promise<ReceiverHandle> => {
  const scope = Effect.runSync(Scope.make())
  cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return Effect.runPromise(
    Scope.extend(startReceiver({ spoolPath: nodePath.join(tempDir(), "spool.ndjson"), secrets: [Redacted.make(secret)] }), scope)
  )
}

const CREATED = "2026-06-01T08:00:00Z"
/** Version `n` of alert 7: later versions have a later `updated_at` and a lower price. */
const version = (n: number) =>
  alertEvent(7, {
    created_at: CREATED,
    updated_at: `2026-06-01T${String(8 + n).padStart(2, "0")}:00:00Z`,
    sale_price: 300_000 - n * 10_000
  })

const load = (spoolPath: string, warehouse: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const summary = yield* loadSpool({ spoolPath, batchSize: 50 })
      const w = yield* Warehouse
      const row = yield* w.query(`SELECT sale_price, epoch_ms(updated_at) AS updated FROM alerts WHERE alert_id = 7`)
      const events = yield* w.query(
        `SELECT delivery_id, alert_id, epoch_ms(alert_time) AS alert_time, applied, status FROM alert_events ORDER BY delivery_id`
      )
      return { summary, row, events }
    }).pipe(Effect.provide(Warehouse.Default({ path: warehouse, rawDir: false })))
  )

describe("event order", () => {
  it("keeps the newer row when an older event arrives after it, in one load and across loads", { timeout: 15_000 }, async () => {
    const secret = newSecret()
    const r = await receiver(secret)
    const warehouse = nodePath.join(tempDir(), "w.duckdb")
    const send = (id: string, body: string) => deliver(r.url, { id, body, timestamp: Math.floor(Date.now() / 1000), secrets: [secret] })

    // Newer (version 3) then older (version 1), loaded together.
    expect((await send("msg_v3", version(3))).status).toBe(204)
    expect((await send("msg_v1", version(1))).status).toBe(204)
    const first = await load(r.spoolPath, warehouse)
    expect(first.summary).toMatchObject({ read: 2, loaded: 2, superseded: 1, duplicates: 0 })
    expect(first.row).toEqual([{ sale_price: 270_000, updated: Date.parse("2026-06-01T11:00:00Z") }])
    expect(first.events).toEqual([
      { delivery_id: "msg_v1", alert_id: 7, alert_time: Date.parse("2026-06-01T09:00:00Z"), applied: false, status: "landed" },
      { delivery_id: "msg_v3", alert_id: 7, alert_time: Date.parse("2026-06-01T11:00:00Z"), applied: true, status: "landed" }
    ])

    // An even older one in a later load: the row still holds version 3; a newer one replaces it.
    expect((await send("msg_v2", version(2))).status).toBe(204)
    const second = await load(r.spoolPath, warehouse)
    expect(second.summary).toMatchObject({ read: 1, loaded: 1, superseded: 1 })
    expect(second.row).toEqual(first.row)
    expect((await send("msg_v4", version(4))).status).toBe(204)
    const third = await load(r.spoolPath, warehouse)
    expect(third.summary).toMatchObject({ read: 1, loaded: 1, superseded: 0 })
    expect(third.row).toEqual([{ sale_price: 260_000, updated: Date.parse("2026-06-01T12:00:00Z") }])
    expect(third.events.map((e) => [e.delivery_id, e.applied])).toEqual([
      ["msg_v1", false],
      ["msg_v2", false],
      ["msg_v3", true],
      ["msg_v4", true]
    ])

    // The same delivery ids spooled again (a redelivery reaching another receiver's spool): nothing added.
    fs.appendFileSync(r.spoolPath, fs.readFileSync(r.spoolPath, "utf8"))
    const again = await load(r.spoolPath, warehouse)
    expect(again.summary).toMatchObject({ read: 4, loaded: 0, duplicates: 4 })
    expect(again.events).toHaveLength(4)
    expect(again.row).toEqual(third.row)
  })

  it("orders by updated_at, else created_at, else alert_date_and_time, else the envelope's timestamp", () => {
    const t = (data: Record<string, unknown>, timestamp: string | null = null) => alertTimeOf({ timestamp, data })
    expect(t({ updated_at: "2026-06-01T10:00:00Z", created_at: "2026-06-01T09:00:00Z" })).toBe(Date.parse("2026-06-01T10:00:00Z"))
    expect(t({ updated_at: null, created_at: "2026-06-01T09:00:00Z" })).toBe(Date.parse("2026-06-01T09:00:00Z"))
    expect(t({ alert_date_and_time: "2026-06-01 07:30:00" })).toBe(Date.parse("2026-06-01T07:30:00Z"))
    expect(t({}, "2026-06-01T06:00:00+02:00")).toBe(Date.parse("2026-06-01T04:00:00Z"))
    expect(t({ updated_at: "garbage" })).toBeNull()
    expect(instantOf("2026-06-01")).toBe(Date.parse("2026-06-01T00:00:00Z"))
  })
})
