/**
 * `serve-alerts`' HTTP receiver of alert events. A delivery is acknowledged (204) only when it
 * is verified and durably spooled; everything else is refused with a 4xx (or 503 when the
 * spool cannot be written) and nothing is stored:
 *
 * | refused | status | `error` |
 * |---|---|---|
 * | body over `maxBodyBytes` (declared, or streamed), or cut off | 413 | `TooLarge` |
 * | a signature header missing, timestamp not an integer | 400 | `MissingHeaders`, `BadTimestamp` |
 * | timestamp more than the tolerance in the past / future | 400 | `Stale`, `Future` |
 * | no signature matches a secret | 401 | `Forged` |
 * | signed body that is not JSON | 400 | `InvalidJson` |
 * | a delivery id already spooled (replay or redelivery) | 409 | `Replayed` |
 *
 * The replay cache holds every delivery id of the spool: it is rebuilt from the spool at start,
 * so a restart does not forget what was acknowledged. Senders should treat 409 as delivered.
 * Times come from Effect's `Clock` (TestClock in tests).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeHttpServerRequest } from "@effect/platform-node"
import { Clock, Data, Effect, type Redacted } from "effect"
import * as Http from "node:http"
import { type VerifyFailure, verify } from "./Signature.js"
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
  /** Secrets a delivery may be signed with (during a rotation: the old and the new). */
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  /** Largest accepted body in bytes. Default 256 KiB (one alert record is ~4 KiB). */
  readonly maxBodyBytes?: number
  /** Accepted clock skew of `webhook-timestamp`, seconds. Default 300 (Standard Webhooks). */
  readonly toleranceSeconds?: number
}

export type Refusal = VerifyFailure | "TooLarge" | "InvalidJson" | "Replayed" | "SpoolFailed" | "MethodNotAllowed"

export interface ReceiverHandle {
  /** `http://host:port` (no trailing slash); deliveries may be POSTed to any path. */
  readonly url: string
  readonly port: number
  readonly spoolPath: string
  /** Acknowledged deliveries since start, and refusals by reason. */
  readonly stats: { accepted: number; readonly refused: Map<Refusal, number> }
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024

const statusOf: Record<Refusal, number> = {
  TooLarge: 413,
  MissingHeaders: 400,
  BadTimestamp: 400,
  Stale: 400,
  Future: 400,
  Forged: 401,
  InvalidJson: 400,
  Replayed: 409,
  SpoolFailed: 503,
  MethodNotAllowed: 405
}

/**
 * The whole body, or `undefined` as soon as it passes `max` bytes (a chunked upload without a
 * length is cut at the limit; the rest is read and discarded until the 413 closes the connection).
 */
const readLimited = (req: HttpServerRequest.HttpServerRequest, max: number) =>
  Effect.async<Uint8Array | undefined>((resume) => {
    const msg = NodeHttpServerRequest.toIncomingMessage(req)
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    const finish = (v: Uint8Array | undefined) => {
      if (done) return
      done = true
      resume(Effect.succeed(v))
    }
    msg.on("data", (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > max) finish(undefined)
      else chunks.push(chunk)
    })
    msg.on("end", () => finish(new Uint8Array(Buffer.concat(chunks))))
    // A body cut off by the client is never whole: treat it as refused (nothing is stored).
    msg.on("error", () => finish(undefined))
    msg.on("aborted", () => finish(undefined))
  })

/** Starts the receiver for the scope (the server stops and the spool closes with it). */
export const startReceiver = Effect.fn("Receiver.start")(function* (options: ReceiverOptions) {
  const host = options.host ?? "127.0.0.1"
  const port = options.port ?? 0
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const spool = yield* openSpool(options.spoolPath)
  const seen = new Set(spool.existingIds)
  const stats: ReceiverHandle["stats"] = { accepted: 0, refused: new Map() }

  /** `close`: the request body may still be streaming in; closing the connection ends it. */
  const refuse = (reason: Refusal, close = false) => {
    stats.refused.set(reason, (stats.refused.get(reason) ?? 0) + 1)
    return HttpServerResponse.unsafeJson({ error: reason }, { status: statusOf[reason], ...(close ? { headers: { connection: "close" } } : {}) })
  }

  /** Claims the id (a concurrent duplicate is refused), spools, acknowledges; not interruptible. */
  const store = (id: string, timestamp: number, now: number, text: string) =>
    Effect.uninterruptible(Effect.gen(function* () {
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
    }))

  const app = Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    if (req.method === "GET" && req.url.startsWith("/healthz")) return HttpServerResponse.unsafeJson({ ok: true, accepted: stats.accepted })
    if (req.method !== "POST") return refuse("MethodNotAllowed")
    const declared = Number(req.headers["content-length"] ?? "0")
    if (declared > maxBody) return refuse("TooLarge", true)
    const body = yield* readLimited(req, maxBody)
    if (body === undefined) return refuse("TooLarge", true)
    const now = yield* Clock.currentTimeMillis
    const v = verify({
      header: (name) => req.headers[name],
      body,
      secrets: options.secrets,
      nowSeconds: Math.floor(now / 1000),
      ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {})
    })
    if (!v.ok) return refuse(v.reason)
    const text = Buffer.from(body).toString("utf8")
    try {
      JSON.parse(text)
    } catch {
      return refuse("InvalidJson")
    }
    return yield* store(v.id, v.timestamp, now, text)
  })

  const server = yield* NodeHttpServer.make(() => Http.createServer({ keepAliveTimeout: 5_000 }), { host, port }).pipe(
    Effect.mapError((cause) => new ReceiverError({ reason: "Bind", host, port, cause }))
  )
  yield* server.serve(app)
  const address = server.address
  const boundPort = address._tag === "TcpAddress" ? address.port : port
  return { url: `http://${host}:${boundPort}`, port: boundPort, spoolPath: spool.path, stats } satisfies ReceiverHandle
})
