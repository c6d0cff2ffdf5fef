/**
 * The receiver refuses what it must (forged, tampered, unsigned, stale, future, oversized,
 * replayed) with a 4xx and stores nothing (abuse: timeouts, caps, checks before the body are in
 * Abuse.test.ts), and acknowledges a verified delivery only once it is
 * in the spool. Time is the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, TestClock } from "effect"
import * as Http from "node:http"
import * as nodePath from "node:path"
import { startReceiver } from "../../src/webhooks/Receiver.js"
import { signedHeaders } from "../../src/shared/WebhookSignature.js"
import { deliver, eventBody, newSecret, spoolLines, tempDir } from "./support.js"

const NOW_MS = Date.parse("2026-06-01T12:00:00Z")
const NOW = NOW_MS / 1000

const setup = (secrets: ReadonlyArray<string>, spoolPath = nodePath.join(tempDir(), "spool.ndjson")) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(NOW_MS)
    const r = yield* startReceiver({ spoolPath, secrets: secrets.map((s) => Redacted.make(s)), maxBodyBytes: 4096 })
    const send = (d: Parameters<typeof deliver>[1], extra?: Record<string, string>) => Effect.promise(() => deliver(r.url, d, extra))
    return { r, send, spoolPath }
  })

/** POSTs `body` in 1 KB chunks (`transfer-encoding: chunked`); the status, or 0 when the connection failed. */
const chunked = (url: string, headers: Record<string, string>, body: string) =>
  new Promise<number>((resolve) => {
    const u = new URL(url)
    const req = Http.request(
      { host: u.hostname, port: u.port, method: "POST", path: "/", headers: { ...headers, "transfer-encoding": "chunked" } },
      (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      }
    )
    req.on("error", () => resolve(0))
    for (let i = 0; i < body.length; i += 1024) req.write(body.slice(i, i + 1024))
    req.end()
  })

describe("Receiver", () => {
  it.scoped("acknowledges a verified delivery after spooling its exact body", () =>
    Effect.gen(function* () {
      const secret = newSecret()
      const { send, spoolPath } = yield* setup([secret])
      const body = eventBody(1)
      const res = yield* send({ id: "msg_1", body, timestamp: NOW, secrets: [secret] })
      expect(res.status).toBe(204)
      expect(spoolLines(spoolPath)).toEqual([expect.objectContaining({ id: "msg_1", body })])
    })
  )

  it.scoped("refuses forged, tampered and unsigned deliveries and stores nothing", () =>
    Effect.gen(function* () {
      const secret = newSecret()
      const { send, spoolPath, r } = yield* setup([secret])
      const forged = yield* send({ id: "msg_f", body: eventBody(2), timestamp: NOW, secrets: [newSecret()] })
      expect(forged).toEqual({ status: 401, body: { error: "Forged" } })
      // Signed correctly for one body, sent with another.
      const headers = signedHeaders([secret], "msg_t", NOW, eventBody(3))
      const tampered = yield* Effect.promise(() =>
        fetch(r.url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: eventBody(4) })
      )
      expect(tampered.status).toBe(401)
      const unsigned = yield* send({ id: "msg_u", body: eventBody(5), timestamp: NOW, secrets: [] })
      expect(unsigned).toEqual({ status: 401, body: { error: "MissingHeaders" } })
      const garbage = yield* send(
        { id: "msg_g", body: eventBody(6), timestamp: NOW, secrets: [secret] },
        { "webhook-signature": "v1,AAAA v2,xyz nonsense" }
      )
      expect(garbage.status).toBe(401)
      expect(spoolLines(spoolPath)).toEqual([])
      expect(r.stats.accepted).toBe(0)
    })
  )

  it.scoped("refuses timestamps more than 5 minutes old or ahead, accepts the edges", () =>
    Effect.gen(function* () {
      const secret = newSecret()
      const { send, spoolPath } = yield* setup([secret])
      const stale = yield* send({ id: "msg_s", body: eventBody(1), timestamp: NOW - 301, secrets: [secret] })
      expect(stale).toEqual({ status: 400, body: { error: "Stale" } })
      const future = yield* send({ id: "msg_fu", body: eventBody(2), timestamp: NOW + 301, secrets: [secret] })
      expect(future).toEqual({ status: 400, body: { error: "Future" } })
      expect(spoolLines(spoolPath)).toEqual([])
      expect((yield* send({ id: "msg_e1", body: eventBody(3), timestamp: NOW - 300, secrets: [secret] })).status).toBe(204)
      expect((yield* send({ id: "msg_e2", body: eventBody(4), timestamp: NOW + 300, secrets: [secret] })).status).toBe(204)
      // The same signed delivery turns stale as the receiver's clock moves on.
      yield* TestClock.adjust("6 minutes")
      const late = yield* send({ id: "msg_l", body: eventBody(5), timestamp: NOW, secrets: [secret] })
      expect(late.status).toBe(400)
      expect(spoolLines(spoolPath).map((l) => l.id)).toEqual(["msg_e1", "msg_e2"])
    })
  )

  it.scoped("refuses bodies over the size limit with 413", () =>
    Effect.gen(function* () {
      const secret = newSecret()
      const { send, spoolPath, r } = yield* setup([secret])
      const big = JSON.stringify({ type: "alert.new", timestamp: null, data: { alert_id: 1, description: "x".repeat(5000) } })
      const res = yield* send({ id: "msg_big", body: big, timestamp: NOW, secrets: [secret] })
      expect(res).toEqual({ status: 413, body: { error: "TooLarge" } })
      // Streamed in chunks without a length: cut at the limit, still a 413.
      const streamed = yield* Effect.promise(() =>
        chunked(r.url, { ...signedHeaders([secret], "msg_big2", NOW, big), "content-type": "application/json" }, big)
      )
      expect(streamed).toBe(413)
      expect(spoolLines(spoolPath)).toEqual([])
    })
  )

  it.scoped("refuses a replayed delivery id, also after a restart, and stores it once", () =>
    Effect.gen(function* () {
      const secret = newSecret()
      const spoolPath = nodePath.join(tempDir(), "spool.ndjson")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const { send } = yield* setup([secret], spoolPath)
          const d = { id: "msg_r", body: eventBody(7), timestamp: NOW, secrets: [secret] }
          expect((yield* send(d)).status).toBe(204)
          expect(yield* send(d)).toEqual({ status: 409, body: { error: "Replayed" } })
          // Re-signed with a fresh timestamp: still the same delivery id.
          expect((yield* send({ ...d, timestamp: NOW + 10 })).status).toBe(409)
        })
      )
      const { send } = yield* setup([secret], spoolPath)
      expect((yield* send({ id: "msg_r", body: eventBody(7), timestamp: NOW, secrets: [secret] })).status).toBe(409)
      expect(spoolLines(spoolPath).map((l) => l.id)).toEqual(["msg_r"])
    })
  )

  it.scoped("accepts a delivery when any signature matches any held secret", () =>
    Effect.gen(function* () {
      const [oldS, newS] = [newSecret(), newSecret()]
      const { send } = yield* setup([oldS, newS])
      expect((yield* send({ id: "a", body: eventBody(1), timestamp: NOW, secrets: [newS] })).status).toBe(204)
      expect((yield* send({ id: "b", body: eventBody(2), timestamp: NOW, secrets: [oldS] })).status).toBe(204)
      expect((yield* send({ id: "c", body: eventBody(3), timestamp: NOW, secrets: [newSecret(), newS] })).status).toBe(204)
    })
  )

  it.scoped("refuses a signed body that is not JSON", () =>
    Effect.gen(function* () {
      const secret = newSecret()
      const { send, spoolPath } = yield* setup([secret])
      expect((yield* send({ id: "j", body: "{not json", timestamp: NOW, secrets: [secret] })).status).toBe(400)
      expect(spoolLines(spoolPath)).toEqual([])
    })
  )
})
