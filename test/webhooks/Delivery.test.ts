/**
 * The sandbox delivers alerts-api feed events to the webhook URL, signed with every active
 * secret; the receiver spools them and the loader lands them in `alerts` exactly once.
 * Ground truth: the token host's alerts search over the same window and filter.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as nodePath from "node:path"
import { SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { ROTATION_GRACE_MS } from "../../src/sandbox/token/WebhookSecrets.js"
import { startWebhookDelivery, type WebhookDelivery } from "../../src/sandbox/webhooks/WebhookDelivery.js"
import { Warehouse } from "../../src/load/Warehouse.js"
import { type ReceiverHandle, startReceiver } from "../../src/webhooks/Receiver.js"
import { loadSpool } from "../../src/webhooks/SpoolLoader.js"
import { call, startTestSandbox } from "../support/sandbox.js"
import { spoolLines, tempDir } from "./support.js"

const HOUR = 3_600_000
const WORLD = { properties: 2000, alertsPerDay: 480 }

type Sb = Awaited<ReturnType<typeof startTestSandbox>>
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** Token-host calls as the sandbox user; logs in per call (the sandbox clock jumps past token expiry). */
const apiOf = (sb: Sb) => async (method: string, path: string, body?: unknown) => {
  const token = (await call(sb.apiUrl, "/login", { key: null, body: SANDBOX_USER })).body.access_token as string
  return call(sb.apiUrl, path, { method, key: token, ...(body !== undefined ? { body } : {}) })
}

const setup = async () => {
  const sb = await startTestSandbox({ world: WORLD })
  cleanups.push(() => sb.close())
  const api = apiOf(sb)
  const delivery = startWebhookDelivery(sb.context, { pollMs: 0, concurrency: 4 })
  cleanups.push(() => delivery.stop())
  return { sb, api, delivery }
}

/** A receiver in its own scope, closed after the test. */
const receiver = async (secrets: ReadonlyArray<string>): Promise<ReceiverHandle> => {
  const scope = Effect.runSync(Scope.make())
  cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  const spoolPath = nodePath.join(tempDir(), "spool.ndjson")
  return Effect.runPromise(Scope.extend(startReceiver({ spoolPath, secrets: secrets.map((s) => Redacted.make(s)) }), scope))
}

const rotate = async (api: ReturnType<typeof apiOf>, immediate: boolean) => {
  const r = await api("POST", "/alerts-api/webhooks/rotate-secret", { immediate })
  expect(r.status).toBe(200)
  return r.body.secret as string
}

/** Alert ids the token host's search returns for a created_at window and subtypes (ground truth). */
const searchIds = async (api: ReturnType<typeof apiOf>, from: number, to: number, subtypes?: ReadonlyArray<string>) => {
  const ids: Array<number> = []
  for (let offset = 0; ; offset += 500) {
    const r = await api("POST", "/api/v1/listing-alerts/search", {
      created_at_from: new Date(from).toISOString(),
      created_at_to: new Date(to).toISOString(),
      ...(subtypes ? { alert_subtypes: subtypes } : {}),
      limit: 500,
      offset
    })
    expect(r.status).toBe(200)
    ids.push(...r.body.results.map((a: { alert_id: number }) => a.alert_id))
    if (r.body.results.length < 500) return ids.sort((a, b) => a - b)
  }
}

const advanceAndDeliver = async (sb: Sb, delivery: WebhookDelivery, ms: number) => {
  sb.control.advanceClock(ms)
  return delivery.deliverPending()
}

describe("webhook delivery", () => {
  it("delivers each matching alert once and the loader lands it once", async () => {
    const { sb, api, delivery } = await setup()
    const secret = await rotate(api, true)
    const r = await receiver([secret])
    expect((await api("PUT", "/alerts-api/webhooks", { url: `${r.url}/hooks/alerts` })).status).toBe(200)
    const start = sb.context.clock.now()
    const feed = (await api("POST", "/alerts-api/feeds", { name: "cuts", filter: { alert_subtypes: ["price_down", "new"] } })).body
    const round = await advanceAndDeliver(sb, delivery, 3 * HOUR)
    const truth = await searchIds(api, start, sb.context.clock.now(), ["price_down", "new"])
    expect(truth.length).toBeGreaterThan(5)
    expect(round).toMatchObject({ queued: truth.length, delivered: truth.length, failed: 0, pending: 0 })
    expect(delivery.attempts().every((a) => a.status === 204 && a.signatures === 1 && a.feedId === feed.feed_id)).toBe(true)
    expect((await delivery.deliverPending()).queued).toBe(0)

    const lines = spoolLines(r.spoolPath)
    expect(lines.map((l) => JSON.parse(l.body).data.alert_id).sort((a: number, b: number) => a - b)).toEqual(truth)
    expect(lines.every((l) => ["alert.price_down", "alert.new"].includes(JSON.parse(l.body).type))).toBe(true)

    // A second engine starts from scratch and redelivers everything: 409, nothing added.
    const again = startWebhookDelivery(sb.context, { pollMs: 0 })
    cleanups.push(() => again.stop())
    expect(await again.deliverPending()).toMatchObject({ queued: truth.length, delivered: truth.length, pending: 0 })
    expect(again.attempts().every((a) => a.status === 409)).toBe(true)
    expect(spoolLines(r.spoolPath)).toHaveLength(truth.length)

    const warehousePath = nodePath.join(tempDir(), "w.duckdb")
    const program = Effect.gen(function* () {
      const first = yield* loadSpool({ spoolPath: r.spoolPath, batchSize: 7 })
      const second = yield* loadSpool({ spoolPath: r.spoolPath })
      const w = yield* Warehouse
      const ids = (yield* w.query(`SELECT alert_id FROM alerts ORDER BY alert_id`)).map((x) => Number(x.alert_id))
      const deliveries = yield* w.query(`SELECT count(*) AS n, count(DISTINCT delivery_id) AS d FROM webhook_deliveries`)
      return { first, second, ids, deliveries: deliveries[0] }
    }).pipe(Effect.provide(Warehouse.Default({ path: warehousePath, rawDir: false })))
    const out = await Effect.runPromise(program)
    expect(out.first).toMatchObject({ read: truth.length, loaded: truth.length, rejected: 0, batches: Math.ceil(truth.length / 7) })
    expect(out.second).toMatchObject({ read: 0, loaded: 0 })
    expect(out.ids).toEqual(truth)
    expect(out.deliveries).toEqual({ n: truth.length, d: truth.length })
  })

  it("signs with both secrets during the grace window and only the new one after an immediate rotation", async () => {
    const { sb, api, delivery } = await setup()
    const s1 = await rotate(api, true)
    await api("POST", "/alerts-api/feeds", { name: "all", filter: {} })
    const onlyS1 = await receiver([s1])
    await api("PUT", "/alerts-api/webhooks", { url: onlyS1.url })
    const r1 = await advanceAndDeliver(sb, delivery, HOUR)
    expect(r1.delivered).toBeGreaterThan(0)

    // Graceful rotation: each delivery carries s2 and s1, so a receiver holding either accepts.
    const s2 = await rotate(api, false)
    const r2 = await advanceAndDeliver(sb, delivery, HOUR)
    expect(r2).toMatchObject({ failed: 0, pending: 0 })
    expect(r2.delivered).toBeGreaterThan(0)
    expect(
      delivery
        .attempts()
        .slice(-r2.attempted)
        .every((a) => a.signatures === 2)
    ).toBe(true)
    const onlyS2 = await receiver([s2])
    await api("PUT", "/alerts-api/webhooks", { url: onlyS2.url })
    const r3 = await advanceAndDeliver(sb, delivery, HOUR)
    expect(r3).toMatchObject({ failed: 0, pending: 0 })
    expect(onlyS1.stats.accepted).toBe(r1.delivered + r2.delivered)
    expect(onlyS2.stats.accepted).toBe(r3.delivered)

    // Immediate rotation: only s3 signs; a receiver still holding s1 and s2 refuses (401), nothing stored.
    const s3 = await rotate(api, true)
    const stale = await receiver([s1, s2])
    await api("PUT", "/alerts-api/webhooks", { url: stale.url })
    const r4 = await advanceAndDeliver(sb, delivery, HOUR)
    expect(r4.delivered).toBe(0)
    expect(r4.failed).toBe(r4.attempted)
    expect(r4.pending).toBe(r4.queued)
    expect(stale.stats.refused.get("Forged")).toBe(r4.attempted)
    expect(spoolLines(stale.spoolPath)).toEqual([])
    expect(
      delivery
        .attempts()
        .slice(-r4.attempted)
        .every((a) => a.status === 401 && a.signatures === 1)
    ).toBe(true)

    // Not due yet (backoff); once the receiver holds s3, the retries are delivered.
    expect((await delivery.deliverPending()).attempted).toBe(0)
    const fresh = await receiver([s3])
    await api("PUT", "/alerts-api/webhooks", { url: fresh.url })
    const r5 = await delivery.deliverPending({ ignoreBackoff: true })
    expect(r5).toMatchObject({ delivered: r4.pending, pending: 0 })
    expect(fresh.stats.accepted).toBe(r4.pending)
  })

  it("stops signing with the old secret when the 24-hour grace ends", async () => {
    const { sb, api, delivery } = await setup()
    const s1 = await rotate(api, true)
    await api("POST", "/alerts-api/feeds", { name: "sold", filter: { alert_subtypes: ["sold"] } })
    const s2 = await rotate(api, false)
    const both = await receiver([s1, s2])
    await api("PUT", "/alerts-api/webhooks", { url: both.url })
    const r1 = await advanceAndDeliver(sb, delivery, ROTATION_GRACE_MS - HOUR)
    expect(r1.delivered).toBeGreaterThan(0)
    expect(delivery.attempts().every((a) => a.signatures === 2)).toBe(true)
    const r2 = await advanceAndDeliver(sb, delivery, 2 * HOUR)
    expect(r2.delivered).toBeGreaterThan(0)
    expect(
      delivery
        .attempts()
        .slice(-r2.attempted)
        .every((a) => a.signatures === 1)
    ).toBe(true)
  })

  it("retries a failed delivery with backoff on the transport clock", async () => {
    let offset = 0
    const sb = await startTestSandbox({ world: WORLD })
    cleanups.push(() => sb.close())
    const api = apiOf(sb)
    const delivery = startWebhookDelivery(sb.context, { pollMs: 0, now: () => Date.now() + offset })
    cleanups.push(() => delivery.stop())
    const secret = await rotate(api, true)
    await api("POST", "/alerts-api/feeds", { name: "all", filter: {} })
    await api("PUT", "/alerts-api/webhooks", { url: "http://127.0.0.1:9/closed" })
    const r1 = await advanceAndDeliver(sb, delivery, HOUR)
    expect(r1.queued).toBeGreaterThan(0)
    expect(r1).toMatchObject({ delivered: 0, failed: r1.queued, pending: r1.queued })
    const r = await receiver([secret])
    await api("PUT", "/alerts-api/webhooks", { url: r.url })
    expect((await delivery.deliverPending()).attempted).toBe(0) // 1 s backoff not over
    offset += 1_000
    const r2 = await delivery.deliverPending()
    expect(r2).toMatchObject({ attempted: r1.queued, delivered: r1.queued, pending: 0 })
    expect(
      delivery
        .attempts()
        .slice(-r2.attempted)
        .every((a) => a.attempt === 2 && a.status === 204)
    ).toBe(true)
  })

  it("delivers on its own timer when the sandbox clock advances", async () => {
    const sb = await startTestSandbox({ world: WORLD })
    cleanups.push(() => sb.close())
    const api = apiOf(sb)
    const delivery = startWebhookDelivery(sb.context, { pollMs: 25 })
    cleanups.push(() => delivery.stop())
    const secret = await rotate(api, true)
    const r = await receiver([secret])
    await api("PUT", "/alerts-api/webhooks", { url: r.url })
    const start = sb.context.clock.now()
    await api("POST", "/alerts-api/feeds", { name: "all", filter: {} })
    sb.control.advanceClock(HOUR)
    const truth = await searchIds(api, start, sb.context.clock.now())
    await vi.waitFor(() => expect(r.stats.accepted).toBe(truth.length), { timeout: 5_000, interval: 25 })
    await vi.waitFor(() => expect(delivery.pending()).toBe(0), { timeout: 2_000, interval: 25 })
  })
})
