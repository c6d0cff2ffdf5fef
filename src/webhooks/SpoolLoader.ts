/**
 * Lands spooled webhook deliveries in the warehouse, in batches, exactly once per delivery id:
 * - `alert_events` (append-only, keyed by `delivery_id`): every verified delivery, with its raw
 *   body, the alert's own time and whether it was applied to `alerts`; a redelivery adds nothing;
 * - `alerts` (the table of the `alerts` pipeline, merged by `alert_id`): the event's `data`, unless
 *   `alerts` already holds a newer version of that alert;
 * - `webhook_deliveries` (merged by `delivery_id`): one row per delivery, with its event type
 *   and times, and whether the alert landed or was rejected.
 *
 * Order: events arrive in any order (retries, several feeds, redeliveries), so the spool's order
 * says nothing. An event is ordered by its alert's own time, `alertTimeOf`: `updated_at`, else
 * `created_at`, else `alert_date_and_time`, else the envelope's `timestamp`. It replaces the
 * `alerts` row only when its time is at least the row's (same rule over the row's columns); a
 * tie goes to the later arrival; an event without any time never replaces a row that has one.
 * Within a batch the newest event per alert wins. The comparison reads `alerts` before the batch's
 * transaction: loads into one warehouse must not run concurrently (one process holds a DuckDB file;
 * `serve-alerts` runs its passes one after the other).
 *
 * Each batch is one warehouse transaction holding its rows and the checkpoint (the spool byte
 * offset after the batch, key `spool:<absolute path>`), so a crash mid-load repeats at most the
 * uncommitted batch. Ids already in `webhook_deliveries` or `alert_events` are skipped.
 */
import { Either, Effect, Option, Schema } from "effect"
import { parseJson } from "../shared/ExactJson.js"
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
  readonly alertId: number | bigint | null
  readonly status: "landed" | "rejected"
}

interface EventRow extends Delivery {
  /** The alert's own time (`alertTimeOf`), epoch ms. */
  readonly alertTime: number | null
  /** Whether this event's data is what the load wrote to `alerts`. */
  readonly applied: boolean
}

const iso = (ms: number) => new Date(ms).toISOString()

export const webhookDeliveriesTable = flatTable<Delivery>(
  "webhook_deliveries",
  {
    delivery_id: ["VARCHAR", (d) => d.entry.id],
    event_type: ["VARCHAR", (d) => d.type],
    event_timestamp: ["VARCHAR", (d) => d.eventTimestamp],
    alert_id: ["BIGINT", (d) => d.alertId],
    webhook_timestamp: ["TIMESTAMPTZ", (d) => iso(d.entry.timestamp * 1000)],
    received_at: ["TIMESTAMPTZ", (d) => iso(d.entry.receivedAt)],
    status: "VARCHAR"
  },
  { primaryKey: ["delivery_id"], disposition: "merge" }
)

/** Every verified delivery, once (append-only; a redelivered id is skipped, never added again). */
export const alertEventsTable = flatTable<EventRow>(
  "alert_events",
  {
    delivery_id: ["VARCHAR", (d) => d.entry.id],
    event_type: ["VARCHAR", (d) => d.type],
    event_timestamp: ["VARCHAR", (d) => d.eventTimestamp],
    alert_id: ["BIGINT", (d) => d.alertId],
    alert_time: ["TIMESTAMPTZ", (d) => (d.alertTime === null ? null : iso(d.alertTime))],
    applied: "BOOLEAN",
    status: "VARCHAR",
    webhook_timestamp: ["TIMESTAMPTZ", (d) => iso(d.entry.timestamp * 1000)],
    received_at: ["TIMESTAMPTZ", (d) => iso(d.entry.receivedAt)],
    body: ["VARCHAR", (d) => d.entry.body]
  },
  { primaryKey: ["delivery_id"], disposition: "append" }
)

/**
 * An instant as epoch ms; a date-time without a zone is read as UTC (the service's times are
 * UTC), a bare date as its midnight UTC. `null` when absent or unreadable.
 */
export const instantOf = (value: unknown): number | null => {
  if (typeof value !== "string" || value.trim() === "") return null
  const v = value.trim()
  const zoned = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(v) || /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : `${v.replace(" ", "T")}Z`
  const ms = Date.parse(zoned)
  return Number.isFinite(ms) ? ms : null
}

/** The alert's own time: `updated_at`, else `created_at`, else `alert_date_and_time`, else the envelope's `timestamp`. */
export const alertTimeOf = (event: {
  readonly timestamp?: string | null | undefined
  readonly data: Record<string, unknown>
}): number | null =>
  instantOf(event.data.updated_at) ??
  instantOf(event.data.created_at) ??
  instantOf(event.data.alert_date_and_time) ??
  instantOf(event.timestamp)

/** Whether an event of time `incoming` may replace a row of time `held` (`undefined`: no row). */
const supersedes = (incoming: number | null, held: number | null | undefined) =>
  held === undefined || held === null || (incoming !== null && incoming >= held)

export interface LoadOptions {
  readonly spoolPath: string
  /** Deliveries per transaction. Default 500. */
  readonly batchSize?: number
  /**
   * Asked before each batch after the first: `true` ends the load there (what landed stays, with
   * its checkpoint; the next load goes on from it). `serve-alerts` yields so to a run waiting for
   * the warehouse. Default: never.
   */
  readonly yieldNow?: (() => boolean) | undefined
}

export interface LoadSummary {
  /** Spooled deliveries read since the checkpoint. */
  readonly read: number
  /** Deliveries newly recorded (landed or rejected). */
  readonly loaded: number
  /** Of those, events whose body is not an alert event (kept in `_rejects`). */
  readonly rejected: number
  /** Alert events not applied to `alerts`: older than the version it held (or than one in the same batch). */
  readonly superseded: number
  /** Delivery ids already loaded (or repeated in the spool): skipped. */
  readonly duplicates: number
  readonly batches: number
  /** Spool offset loaded up to (the new checkpoint). */
  readonly offset: number
  /** The load stopped before the end of the spool because `yieldNow` said so. */
  readonly yielded: boolean
}

/** A delivery's body as its event: ids beyond 2^53 read exactly (`shared/ExactJson.ts`). */
const decodeEvent = (body: string): Either.Either<typeof AlertEvent.Type, { readonly message: string }> =>
  Either.flatMap(
    Either.try({ try: () => parseJson(body), catch: (e) => ({ message: `not JSON: ${String(e)}` }) }),
    Schema.decodeUnknownEither(AlertEvent)
  )

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`

/** Loads what the spool holds beyond the checkpoint. Needs the `Warehouse`. */
export const loadSpool = Effect.fn("SpoolLoader.load")(function* (options: LoadOptions) {
  const w = yield* Warehouse
  const batchSize = Math.max(1, options.batchSize ?? 500)
  const key = `spool:${nodePath.resolve(options.spoolPath)}`
  yield* w.ensureTables([alertsTable.spec, webhookDeliveriesTable.spec, alertEventsTable.spec])
  const checkpoint = (yield* w.checkpoints(WEBHOOK_PIPELINE)).find((c) => c.key === key)
  const from = Option.fromNullable((checkpoint?.value as { offset?: unknown } | null | undefined)?.offset).pipe(
    Option.filter((n): n is number => typeof n === "number"),
    Option.getOrElse(() => 0)
  )
  const read = yield* readSpool(options.spoolPath, from)
  const summary = {
    read: read.entries.length,
    loaded: 0,
    rejected: 0,
    superseded: 0,
    duplicates: 0,
    batches: 0,
    offset: from,
    yielded: false
  }
  if (read.entries.length === 0) return summary satisfies LoadSummary

  const extractedAt = new Date().toISOString()
  const runId = `webhooks-${extractedAt.replace(/[-:.]/g, "")}`
  yield* w.startRun({ runId, pipeline: WEBHOOK_PIPELINE, params: { spool: key } })
  const ctx = { runId, slice: key, extractedAt }
  for (let i = 0; i < read.entries.length; i += batchSize) {
    if (i > 0 && options.yieldNow?.()) {
      summary.yielded = true
      break
    }
    const batch = read.entries.slice(i, i + batchSize)
    const ids = batch.map((e) => sqlString(e.id)).join(", ")
    const known = yield* w.query(
      `SELECT delivery_id FROM webhook_deliveries WHERE delivery_id IN (${ids}) UNION SELECT delivery_id FROM alert_events WHERE delivery_id IN (${ids})`
    )
    const skip = new Set(known.map((r) => String(r.delivery_id)))
    const fresh: Array<{ entry: SpooledEntry; event: Either.Either<AlertEvent, { readonly message: string }> }> = []
    for (const entry of batch) {
      if (skip.has(entry.id)) {
        summary.duplicates += 1
        continue
      }
      skip.add(entry.id)
      fresh.push({ entry, event: decodeEvent(entry.body) })
    }
    // The time of each alert's row as `alerts` holds it now (absent: no row).
    const alertIds = [...new Set(fresh.flatMap((f) => (f.event._tag === "Right" ? [f.event.right.data.alert_id] : [])))]
    // keyed by the id's digits: an id beyond 2^53 is a bigint, exact (`shared/ExactJson.ts`)
    const held = new Map<string, number | null>()
    if (alertIds.length > 0) {
      const rows = yield* w.query(
        `SELECT alert_id, epoch_ms(updated_at) AS u, epoch_ms(created_at) AS c, alert_date_and_time AS d FROM alerts WHERE alert_id IN (${alertIds.join(", ")})`
      )
      for (const r of rows) held.set(String(r.alert_id), r.u != null ? Number(r.u) : r.c != null ? Number(r.c) : instantOf(r.d))
    }
    // The winner per alert: the newest event, over the row and the rest of the batch.
    const winner = new Map<string, number>() // alert_id -> index in `fresh`
    const times = fresh.map((f) => (f.event._tag === "Right" ? alertTimeOf(f.event.right) : null))
    fresh.forEach((f, i) => {
      if (f.event._tag === "Left") return
      const id = String(f.event.right.data.alert_id)
      const best = winner.get(id)
      if (supersedes(times[i]!, best === undefined ? held.get(id) : times[best]!)) winner.set(id, i)
    })
    const alerts: Array<Row> = []
    const deliveries: Array<Row> = []
    const events: Array<Row> = []
    const rejects: Array<{ table: string; reason: string; raw: string }> = []
    fresh.forEach(({ entry, event }, i) => {
      if (event._tag === "Right") {
        const e = event.right
        const applied = winner.get(String(e.data.alert_id)) === i
        if (applied) alerts.push(alertsTable.row(e.data, ctx))
        else summary.superseded += 1
        const d: Delivery = { entry, type: e.type, eventTimestamp: e.timestamp ?? null, alertId: e.data.alert_id, status: "landed" }
        deliveries.push(webhookDeliveriesTable.row(d, undefined))
        events.push(alertEventsTable.row({ ...d, alertTime: times[i]!, applied }, undefined))
      } else {
        summary.rejected += 1
        rejects.push({ table: "alerts", reason: `webhook ${entry.id}: ${event.left.message.slice(0, 500)}`, raw: entry.body })
        const d: Delivery = { entry, type: null, eventTimestamp: null, alertId: null, status: "rejected" }
        deliveries.push(webhookDeliveriesTable.row(d, undefined))
        events.push(alertEventsTable.row({ ...d, alertTime: null, applied: false }, undefined))
      }
    })
    const offset = batch[batch.length - 1]!.end
    yield* w.commitPage({
      runId,
      pipeline: WEBHOOK_PIPELINE,
      rows: new Map([
        ["alerts", alerts],
        ["webhook_deliveries", deliveries],
        ["alert_events", events]
      ]),
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
