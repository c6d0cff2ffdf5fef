/**
 * `serve-alerts`' HTTP receiver of alert events. A delivery is acknowledged (204) only when it
 * is verified and durably spooled; everything else is refused and nothing is stored. The checks
 * run in this order; those down to the pending-body cap need the headers only, so an unsigned,
 * mistyped, oversized or excess request is answered without a byte of its body being read (and
 * its connection closed):
 *
 * | refused | status | `error` | body read? |
 * |---|---|---|---|
 * | not POST (GET /healthz answers `{ok, accepted}`) | 405 | `MethodNotAllowed` | no |
 * | a signature header missing, timestamp not an integer, no well-formed `v1` entry | 401 | `MissingHeaders`, `BadTimestamp`, `Forged` | no |
 * | timestamp more than the tolerance in the past / future | 400 | `Stale`, `Future` | no |
 * | `content-type` not `application/json` (or `application/*+json`) | 415 | `UnsupportedMediaType` | no |
 * | declared body over `maxBodyBytes` | 413 | `TooLarge` | no |
 * | `maxPendingBodies` bodies already being read and verified, none of them still reading | 503 (`retry-after: 1`) | `Busy` | no |
 * | the slots full and a new request in: the body that has been read longest (its slot goes to the new one) | 503 (`retry-after: 1`) | `Busy` | partly |
 * | body averaging under `minBodyBytesPerSecond` once `bodyRateGraceMs` have passed since its headers | 408 | `BodyTooSlow` | partly |
 * | body not complete `bodyTimeoutMs` after its headers | 408 | `BodyTimeout` | partly |
 * | streamed body over `maxBodyBytes` | 413 | `TooLarge` | up to the limit |
 * | body cut off by the client | - | `Aborted` | partly |
 * | no signature matches a secret in force | 401 | `Forged` | yes |
 * | signed body that is not JSON | 400 | `InvalidJson` | yes |
 * | a delivery id already spooled (replay or redelivery) | 409 | `Replayed` | yes |
 * | the spool cannot be written | 503 | `SpoolFailed` | yes |
 *
 * Under abuse (slow or idle clients, floods):
 * - headers must arrive within `headersTimeoutMs` of the connection's first byte (Node's
 *   `headersTimeout`: answered 408 and closed); a body within `bodyTimeoutMs` of its headers
 *   (408, closed); Node's `requestTimeout` (their sum) is the backstop;
 * - at most `maxConnections` connections are open. A connection beyond the cap evicts the oldest
 *   one that has no request in progress (first those that never completed a request, such as a
 *   client dribbling its headers, then idle keep-alive ones); when every open connection is
 *   serving a request, the new one is closed at once;
 * - at most `maxPendingBodies` requests read and verify a body at once. A request over the cap
 *   takes the slot of the one that has been reading its body longest (answered 503 and closed),
 *   and gets 503 itself only when no body is still being read. A well-formed forged signature
 *   passes every header check, so no slot can be kept for verified deliveries; instead, no slow
 *   body keeps its slot: it is cut (408, closed) as soon as it averages under
 *   `minBodyBytesPerSecond` once `bodyRateGraceMs` have passed (time for connection set-up and
 *   slow start), and, whatever its rate, it gives its slot up to a new request once it is the
 *   oldest one still being read. A delivery whose body comes with its headers, as any HTTP client
 *   sends it, is read in well under a millisecond on loopback: to refuse it, slow clients would
 *   need `maxPendingBodies` new requests within that time (a flood, not a slow attack).
 *
 * Secrets come from a `SecretSource` (`Secrets.ts`): with `secretsFile`, the file is checked
 * before each signature check and re-read when it changed, which is how a revocation by
 * `alerts rotate-secret --immediate` reaches a running receiver.
 *
 * The replay cache holds every delivery id of the spool: it is rebuilt from the spool at start,
 * so a restart does not forget what was acknowledged. Senders should treat 409 as delivered.
 * Times of the signature check come from Effect's `Clock` (TestClock in tests); the timeouts are
 * wall-clock (Node timers).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import { Clock, Data, Effect, type Redacted } from "effect"
import * as Http from "node:http"
import type * as Net from "node:net"
import { fileSecretSource, type SecretSource, staticSecrets } from "./Secrets.js"
import { checkHeaders, type DeliveryHeaders, matchesBody, type VerifyFailure } from "../shared/WebhookSignature.js"
import { openSpool } from "./Spool.js"

export class ReceiverError extends Data.TaggedError("ReceiverError")<{
  readonly reason: "Bind"
  readonly host: string
  readonly port: number
  readonly cause?: unknown
}> {
  override get message() {
    return `Cannot bind the alerts receiver to ${this.host}:${this.port}`
  }
}

export interface ReceiverOptions {
  /** Interface to bind. Default 127.0.0.1. */
  readonly host?: string
  /** Port; 0 (default) picks an ephemeral one. */
  readonly port?: number
  /** The spool file (created if absent). */
  readonly spoolPath: string
  /**
   * Secrets a delivery may be signed with (during a rotation: the old and the new). With
   * `secretsFile` they are the fallback while that file does not exist.
   */
  readonly secrets?: ReadonlyArray<Redacted.Redacted<string>>
  /** File of accepted secrets (`Secrets.ts`), re-read when it changes; wins over `secrets` once it exists. */
  readonly secretsFile?: string
  /** Largest accepted body in bytes. Default 256 KiB (one alert record is ~4 KiB). */
  readonly maxBodyBytes?: number
  /** Accepted clock skew of `webhook-timestamp`, seconds. Default 300 (Standard Webhooks). */
  readonly toleranceSeconds?: number
  /** Time to receive a request's headers, ms. Default 10,000. */
  readonly headersTimeoutMs?: number
  /** Time to receive a body once its headers are in, ms. Default 10,000. */
  readonly bodyTimeoutMs?: number
  /** Open connections at most (see the header for eviction). Default 256. */
  readonly maxConnections?: number
  /**
   * Requests whose body is being read and verified at once, at most. Beyond, the body being read
   * longest is refused (503) to make room; with none still reading, the new request. Default 64.
   */
  readonly maxPendingBodies?: number
  /**
   * Average rate a body must keep, bytes/s since its headers, once `bodyRateGraceMs` have passed;
   * below it: 408, closed. 0 turns the check off. Default 8,192 (a 256 KiB body within the body
   * timeout needs 26,215).
   */
  readonly minBodyBytesPerSecond?: number
  /** Time a body has before its rate is checked, ms (connection set-up, slow start). Default 1,000. */
  readonly bodyRateGraceMs?: number
  /** Idle time of a keep-alive connection between requests, ms. Default 5,000. */
  readonly keepAliveTimeoutMs?: number
}

export type Refusal =
  | VerifyFailure
  | "TooLarge"
  | "InvalidJson"
  | "Replayed"
  | "SpoolFailed"
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "Busy"
  | "BodyTimeout"
  | "BodyTooSlow"
  | "Aborted"

export interface ReceiverHandle {
  /** `http://host:port` (no trailing slash); deliveries may be POSTed to any path. */
  readonly url: string
  readonly port: number
  readonly spoolPath: string
  /** Acknowledged deliveries since start, refusals by reason, and connection counters. */
  readonly stats: {
    accepted: number
    readonly refused: Map<Refusal, number>
    /** Requests reading or verifying a body now (capped by `maxPendingBodies`). */
    readonly pendingBodies: () => number
    /** Bodies refused (503) while being read, their slot given to a newer request. */
    preempted: number
    readonly connections: {
      /** Open now. */
      readonly open: () => number
      /** Closed to make room under `maxConnections`. */
      evicted: number
      /** Closed at once: at the cap with every connection serving a request. */
      dropped: number
    }
  }
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
export const DEFAULT_BODY_TIMEOUT_MS = 10_000
export const DEFAULT_MAX_CONNECTIONS = 256
export const DEFAULT_MAX_PENDING_BODIES = 64
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000
export const DEFAULT_MIN_BODY_BYTES_PER_SECOND = 8_192
export const DEFAULT_BODY_RATE_GRACE_MS = 1_000

const statusOf: Record<Refusal, number> = {
  TooLarge: 413,
  MissingHeaders: 401,
  BadTimestamp: 401,
  Stale: 400,
  Future: 400,
  Forged: 401,
  InvalidJson: 400,
  Replayed: 409,
  SpoolFailed: 503,
  MethodNotAllowed: 405,
  UnsupportedMediaType: 415,
  Busy: 503,
  BodyTimeout: 408,
  BodyTooSlow: 408,
  Aborted: 400
}

/** `application/json` or a `+json` type, parameters (charset) allowed. */
export const isJsonContentType = (value: string | undefined): boolean => {
  if (value === undefined) return false
  const type = value.split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type)
}

type BodyRead = { readonly body: Uint8Array } | { readonly failed: "TooLarge" | "BodyTimeout" | "BodyTooSlow" | "Busy" | "Aborted" }

interface BodyLimits {
  readonly maxBytes: number
  readonly timeoutMs: number
  /** 0: no rate check. */
  readonly minBytesPerSecond: number
  readonly graceMs: number
}

/** A body's hold on a pending-body slot, from its headers until it is verified or refused. */
interface Slot {
  /** Still receiving bytes (only such a slot can be taken by a newer request). */
  reading: boolean
  /** Set by the read: ends it with `Busy` (its slot was given to a newer request). */
  preempt?: () => void
}

/**
 * The whole body, or why not: over `maxBytes` (a chunked upload is cut at the limit), not
 * complete within `timeoutMs`, averaging under `minBytesPerSecond` after `graceMs`, its slot
 * taken (`slot.preempt`), or cut off by the client. Whatever arrives after is discarded.
 */
const readLimited = (req: HttpServerRequest.HttpServerRequest, limits: BodyLimits, slot: Slot) =>
  Effect.async<BodyRead>((resume) => {
    if (!slot.reading) return void resume(Effect.succeed({ failed: "Busy" })) // taken before the read began
    const msg = NodeHttpServerRequest.toIncomingMessage(req)
    const chunks: Array<Buffer> = []
    const started = performance.now()
    let size = 0
    let done = false
    let rateTimer: ReturnType<typeof setTimeout> | undefined
    const finish = (v: BodyRead) => {
      if (done) return
      done = true
      slot.reading = false
      clearTimeout(timer)
      clearTimeout(rateTimer)
      chunks.length = 0
      resume(Effect.succeed(v))
    }
    const timer = setTimeout(() => finish({ failed: "BodyTimeout" }), limits.timeoutMs)
    // The average falls under the rate `size / rate` after the start: checked then (and re-armed
    // while bytes keep coming). The check waits for the I/O already due (setImmediate runs after
    // the poll phase), so bytes waiting in the socket while the event loop was busy still count.
    const checkRate = () => {
      if (done) return
      const due = Math.max(limits.graceMs, (size / limits.minBytesPerSecond) * 1000)
      const elapsed = performance.now() - started
      if (elapsed < due) rateTimer = setTimeout(checkRate, due - elapsed)
      else
        setImmediate(() => {
          if (done) return
          if (performance.now() - started >= (size / limits.minBytesPerSecond) * 1000) finish({ failed: "BodyTooSlow" })
          else checkRate()
        })
    }
    if (limits.minBytesPerSecond > 0) rateTimer = setTimeout(checkRate, limits.graceMs)
    slot.preempt = () => finish({ failed: "Busy" })
    msg.on("data", (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limits.maxBytes) finish({ failed: "TooLarge" })
      else chunks.push(chunk)
    })
    msg.on("end", () => {
      if (!done) finish({ body: new Uint8Array(Buffer.concat(chunks)) })
    })
    // A body cut off by the client is never whole: refused (nothing is stored).
    msg.on("error", () => finish({ failed: "Aborted" }))
    msg.on("aborted", () => finish({ failed: "Aborted" }))
    return Effect.sync(() => {
      clearTimeout(timer)
      clearTimeout(rateTimer)
    })
  })

interface ConnState {
  /** Requests in progress on the connection (headers received, response not finished). */
  busy: number
  /** Responses finished on it. */
  served: number
}

/** Starts the receiver for the scope (the server stops and the spool closes with it). */
export const startReceiver = Effect.fn("Receiver.start")(function* (options: ReceiverOptions) {
  const host = options.host ?? "127.0.0.1"
  const port = options.port ?? 0
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const headersTimeout = Math.max(1, options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS)
  const bodyTimeout = Math.max(1, options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS)
  const maxConnections = Math.max(1, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS)
  const maxPending = Math.max(1, options.maxPendingBodies ?? DEFAULT_MAX_PENDING_BODIES)
  const keepAlive = Math.max(1, options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS)
  const limits: BodyLimits = {
    maxBytes: maxBody,
    timeoutMs: bodyTimeout,
    minBytesPerSecond: Math.max(0, options.minBodyBytesPerSecond ?? DEFAULT_MIN_BODY_BYTES_PER_SECOND),
    graceMs: Math.max(0, options.bodyRateGraceMs ?? DEFAULT_BODY_RATE_GRACE_MS)
  }
  const secrets: SecretSource =
    options.secretsFile !== undefined
      ? yield* fileSecretSource(options.secretsFile, options.secrets ?? [])
      : staticSecrets(options.secrets ?? [])
  const spool = yield* openSpool(options.spoolPath)
  const seen = new Set(spool.existingIds)
  const conns = new Map<Net.Socket, ConnState>() // insertion order: oldest first
  const slots = new Set<Slot>() // bodies being read and verified; insertion order: oldest first
  let closing = false
  const stats: ReceiverHandle["stats"] = {
    accepted: 0,
    refused: new Map(),
    pendingBodies: () => slots.size,
    preempted: 0,
    connections: { open: () => conns.size, evicted: 0, dropped: 0 }
  }

  /** `close`: the request body may not have been read; closing the connection ends it. */
  const refuse = (reason: Refusal, close = false) => {
    stats.refused.set(reason, (stats.refused.get(reason) ?? 0) + 1)
    const headers: Record<string, string> = {}
    if (close) headers.connection = "close"
    if (reason === "Busy") headers["retry-after"] = "1"
    return HttpServerResponse.unsafeJson({ error: reason }, { status: statusOf[reason], headers })
  }

  /** Claims the id (a concurrent duplicate is refused), spools, acknowledges; not interruptible. */
  const store = (id: string, timestamp: number, now: number, text: string) =>
    Effect.uninterruptible(
      Effect.gen(function* () {
        if (seen.has(id)) return refuse("Replayed")
        seen.add(id)
        const written = yield* Effect.either(spool.append({ id, timestamp, receivedAt: now, body: text }))
        if (written._tag === "Left") {
          seen.delete(id)
          yield* Effect.logError(written.left.message)
          return refuse("SpoolFailed")
        }
        stats.accepted += 1
        return HttpServerResponse.empty({ status: 204 })
      })
    )

  /** Reads and verifies the body of a request whose headers passed: the body's text, or the refusal. */
  const verifyBody = (req: HttpServerRequest.HttpServerRequest, headers: DeliveryHeaders, slot: Slot) =>
    Effect.gen(function* () {
      const read = yield* readLimited(req, limits, slot)
      if ("failed" in read) return refuse(read.failed, true)
      const held = yield* secrets.current
      if (!matchesBody(headers, read.body, held)) return refuse("Forged")
      const text = Buffer.from(read.body).toString("utf8")
      try {
        JSON.parse(text)
      } catch {
        return refuse("InvalidJson")
      }
      return text
    })

  const app = Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    if (req.method === "GET" && req.url.startsWith("/healthz")) return HttpServerResponse.unsafeJson({ ok: true, accepted: stats.accepted })
    if (req.method !== "POST") return refuse("MethodNotAllowed", true)
    // Everything up to the pending-body cap is settled from the headers alone.
    const now = yield* Clock.currentTimeMillis
    const h = checkHeaders({
      header: (name) => req.headers[name],
      nowSeconds: Math.floor(now / 1000),
      ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {})
    })
    if (!h.ok) return refuse(h.reason, true)
    if (!isJsonContentType(req.headers["content-type"])) return refuse("UnsupportedMediaType", true)
    const declared = Number(req.headers["content-length"] ?? "0")
    if (declared > maxBody) return refuse("TooLarge", true)
    if (slots.size >= maxPending) {
      // The body being read longest gives up its slot (it is answered 503 and closed).
      let oldest: Slot | undefined
      for (const s of slots) {
        if (s.reading) {
          oldest = s
          break
        }
      }
      if (oldest === undefined) return refuse("Busy", true)
      slots.delete(oldest)
      stats.preempted += 1
      oldest.reading = false
      oldest.preempt?.()
    }
    // The slot is held until the body is verified (or refused); spooling happens after.
    const slot: Slot = { reading: true }
    slots.add(slot)
    const verified = yield* verifyBody(req, h.headers, slot).pipe(Effect.ensuring(Effect.sync(() => slots.delete(slot))))
    if (typeof verified !== "string") return verified
    return yield* store(h.headers.id, h.headers.timestamp, yield* Clock.currentTimeMillis, verified)
  })

  /** Makes room for a new connection, or refuses it (see the header). */
  const admit = (socket: Net.Socket) => {
    if (closing) return void socket.destroy()
    if (conns.size >= maxConnections) {
      let victim: Net.Socket | undefined
      for (const [s, c] of conns) {
        if (c.busy === 0 && c.served === 0) {
          victim = s
          break
        }
      }
      if (victim === undefined)
        for (const [s, c] of conns) {
          if (c.busy === 0) {
            victim = s
            break
          }
        }
      if (victim === undefined) {
        stats.connections.dropped += 1
        return void socket.destroy()
      }
      stats.connections.evicted += 1
      conns.delete(victim)
      victim.destroy()
    }
    conns.set(socket, { busy: 0, served: 0 })
    socket.once("close", () => conns.delete(socket))
  }

  const makeServer = () => {
    const server = Http.createServer({
      keepAliveTimeout: keepAlive,
      headersTimeout: headersTimeout,
      requestTimeout: headersTimeout + bodyTimeout,
      // Node checks both timeouts on this period: a quarter of the shorter, 10 ms to 1 s.
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(Math.min(headersTimeout, bodyTimeout) / 4)))
    })
    server.on("connection", admit)
    server.on("request", (req: Http.IncomingMessage, res: Http.ServerResponse) => {
      const c = conns.get(req.socket)
      if (c === undefined) return
      c.busy += 1
      res.once("close", () => {
        c.busy -= 1
        c.served += 1
      })
    })
    return server
  }

  const server = yield* NodeHttpServer.make(makeServer, { host, port }).pipe(
    Effect.mapError((cause) => new ReceiverError({ reason: "Bind", host, port, cause }))
  )
  // Runs before the server's own release (which waits for the requests in progress): new
  // connections are refused and those without a request in progress (slow headers, idle) closed.
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      closing = true
      for (const [s, c] of conns) if (c.busy === 0) s.destroy()
    })
  )
  yield* server.serve(app)
  const address = server.address
  const boundPort = address._tag === "TcpAddress" ? address.port : port
  return { url: `http://${host}:${boundPort}`, port: boundPort, spoolPath: spool.path, stats } satisfies ReceiverHandle
})
