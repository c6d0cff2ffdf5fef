/**
 * Lands spooled webhook deliveries in the warehouse, in batches, exactly once per delivery id:
 * - `alerts` (the table of the `alerts` pipeline, merged by `alert_id`): the event's `data`;
 * - `webhook_deliveries` (merged by `delivery_id`): one row per delivery, with its event type
 *   and times, and whether the alert landed or was rejected.
 *
 * Each batch is one warehouse transaction holding its rows and the checkpoint (the spool byte
 * offset after the batch, key `spool:<absolute path>`), so a crash mid-load repeats at most the
 * uncommitted batch. Ids already in `webhook_deliveries` are skipped (a redelivery adds nothing
 * and never overwrites a newer alert row with an older event).
 */
import { Effect, Option, Schema } from "effect"
import * as nodePath from "node:path"
import { Warehouse } from "../load/Warehouse.js"
import { flatTable } from "../normalize/Flatten.js"
import { alertsTable } from "../normalize/records/AlertRows.js"
import type { Row } from "../normalize/Table.js"
import { AlertEvent } from "../service/schema/Feeds.js"
import { readSpool, type SpooledEntry } from "./Spool.js"

/** The pipeline name under which loads are recorded in `_runs` and `_checkpoints`. */
export const WEBHOOK_PIPELINE = "alerts-webhook"

interface Delivery {
  readonly entry: SpooledEntry
  readonly type: string | null
  readonly eventTimestamp: string | null
  readonly alertId: number | null
  readonly status: "landed" | "rejected"
}

const iso = (ms: number) => new Date(ms).toISOString()

export const webhookDeliveriesTable = flatTable<Delivery>("webhook_deliveries", {
  delivery_id: ["VARCHAR", (d) => d.entry.id],
  event_type: ["VARCHAR", (d) => d.type],
  event_timestamp: ["VARCHAR", (d) => d.eventTimestamp],
  alert_id: ["BIGINT", (d) => d.alertId],
  webhook_timestamp: ["TIMESTAMP", (d) => iso(d.entry.timestamp * 1000)],
  received_at: ["TIMESTAMP", (d) => iso(d.entry.receivedAt)],
  status: "VARCHAR"
}, { primaryKey: ["delivery_id"], disposition: "merge" })

export interface LoadOptions {
  readonly spoolPath: string
  /** Deliveries per transaction. Default 500. */
  readonly batchSize?: number
}

export interface LoadSummary {
  /** Spooled deliveries read since the checkpoint. */
  readonly read: number
  /** Deliveries newly recorded (landed or rejected). */
  readonly loaded: number
  /** Of those, events whose body is not an alert event (kept in `_rejects`). */
  readonly rejected: number
  /** Delivery ids already loaded (or repeated in the spool): skipped. */
  readonly duplicates: number
  readonly batches: number
  /** Spool offset loaded up to (the new checkpoint). */
  readonly offset: number
}

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(AlertEvent))

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`

/** Loads what the spool holds beyond the checkpoint. Needs the `Warehouse`. */
export const loadSpool = Effect.fn("SpoolLoader.load")(function* (options: LoadOptions) {
  const w = yield* Warehouse
  const batchSize = Math.max(1, options.batchSize ?? 500)
  const key = `spool:${nodePath.resolve(options.spoolPath)}`
  yield* w.ensureTables([alertsTable.spec, webhookDeliveriesTable.spec])
  const checkpoint = (yield* w.checkpoints(WEBHOOK_PIPELINE)).find((c) => c.key === key)
  const from = Option.fromNullable((checkpoint?.value as { offset?: unknown } | null | undefined)?.offset).pipe(
    Option.filter((n): n is number => typeof n === "number"),
    Option.getOrElse(() => 0)
  )
  const read = yield* readSpool(options.spoolPath, from)
  const summary = { read: read.entries.length, loaded: 0, rejected: 0, duplicates: 0, batches: 0, offset: from }
  if (read.entries.length === 0) return summary satisfies LoadSummary

  const extractedAt = new Date().toISOString()
  const runId = `webhooks-${extractedAt.replace(/[-:.]/g, "")}`
  yield* w.startRun({ runId, pipeline: WEBHOOK_PIPELINE, params: { spool: key } })
  const ctx = { runId, slice: key, extractedAt }
  for (let i = 0; i < read.entries.length; i += batchSize) {
    const batch = read.entries.slice(i, i + batchSize)
    const known = yield* w.query(
      `SELECT delivery_id FROM webhook_deliveries WHERE delivery_id IN (${batch.map((e) => sqlString(e.id)).join(", ")})`
    )
    const skip = new Set(known.map((r) => String(r.delivery_id)))
    const alerts: Array<Row> = []
    const deliveries: Array<Row> = []
    const rejects: Array<{ table: string; reason: string; raw: string }> = []
    for (const entry of batch) {
      if (skip.has(entry.id)) {
        summary.duplicates += 1
        continue
      }
      skip.add(entry.id)
      const event = decodeEvent(entry.body)
      if (event._tag === "Right") {
        alerts.push(alertsTable.row(event.right.data, ctx))
        deliveries.push(webhookDeliveriesTable.row({
          entry, type: event.right.type, eventTimestamp: event.right.timestamp ?? null, alertId: event.right.data.alert_id, status: "landed"
        }, undefined))
      } else {
        summary.rejected += 1
        rejects.push({ table: "alerts", reason: `webhook ${entry.id}: ${event.left.message.slice(0, 500)}`, raw: entry.body })
        deliveries.push(webhookDeliveriesTable.row({ entry, type: null, eventTimestamp: null, alertId: null, status: "rejected" }, undefined))
      }
    }
    const offset = batch[batch.length - 1]!.end
    yield* w.commitPage({
      runId,
      pipeline: WEBHOOK_PIPELINE,
      rows: new Map([["alerts", alerts], ["webhook_deliveries", deliveries]]),
      checkpoint: { key, value: { offset }, done: false },
      ledger: [],
      rejects,
      requests: 0,
      retries: 0
    })
    summary.loaded += deliveries.length
    summary.batches += 1
    summary.offset = offset
  }
  yield* w.finishRun(runId, "done")
  return summary satisfies LoadSummary
})
