/**
 * Shared helpers of the webhook tests: temp dirs, secrets, alert events and a signed sender.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import { signedHeaders } from "../../src/shared/WebhookSignature.js"
import { makeTempDir } from "../support/tempDirs.js"

export const tempDir = (prefix = "webhooks-") => makeTempDir(prefix)

export const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`

/** A minimal alert event body as the sandbox sends it (`{type, timestamp, data}`). */
export const eventBody = (alertId: number, subtype = "new") =>
  JSON.stringify({
    type: `alert.${subtype}`,
    timestamp: "2026-06-01T00:00:00Z",
    data: { alert_id: alertId, listing_id: alertId * 10, alert_type: "new", alert_subtype: subtype, alert_date: "2026-06-01" }
  })

export interface Sent {
  readonly status: number
  readonly body: any
}

/** Keep-alive connections for test senders (node:http is several times faster than fetch here). */
const agent = new Http.Agent({ keepAlive: true, maxSockets: 64 })

/** POSTs `body` with `headers` over node:http; status and parsed JSON body. */
export const post = (url: string, headers: Record<string, string>, body: string): Promise<Sent> =>
  new Promise((resolve, reject) => {
    const u = new URL(url)
    const req = Http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        agent,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          resolve({ status: res.statusCode ?? 0, body: text === "" ? undefined : JSON.parse(text) })
        })
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(body)
  })

/** POSTs a body signed with `secrets` (none: no signature headers at all). */
export const deliver = (
  url: string,
  delivery: { readonly id: string; readonly body: string; readonly timestamp: number; readonly secrets: ReadonlyArray<string> },
  extraHeaders: Record<string, string> = {}
): Promise<Sent> => {
  const headers = delivery.secrets.length === 0 ? {} : signedHeaders(delivery.secrets, delivery.id, delivery.timestamp, delivery.body)
  return post(url, { ...headers, "content-type": "application/json", ...extraHeaders }, delivery.body)
}

/** Lines of a spool file (complete ones), parsed. */
export const spoolLines = (path: string): Array<{ id: string; body: string }> =>
  fs.existsSync(path)
    ? fs
        .readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as { id: string; body: string })
    : []

/** An alert event whose record carries the given fields (times, prices) over a minimal alert. */
export const alertEvent = (alertId: number, fields: Record<string, unknown>, subtype = "price_down") =>
  JSON.stringify({
    type: `alert.${subtype}`,
    timestamp: (fields.created_at as string | undefined) ?? null,
    data: {
      alert_id: alertId,
      listing_id: alertId * 10,
      alert_type: "sale_price",
      alert_subtype: subtype,
      alert_date: "2026-06-01",
      ...fields
    }
  })

/** A raw TCP connection to a receiver: what it received so far, and when it closed. */
export interface RawConnection {
  readonly socket: Net.Socket
  readonly openedAt: number
  readonly received: () => string
  /** Resolves with the ms from open to close. */
  readonly closed: Promise<number>
  readonly isClosed: () => boolean
}

/** Opens a TCP connection to `url`'s host and port (resolves once connected). */
export const rawConnect = (url: string): Promise<RawConnection> =>
  new Promise((resolve, reject) => {
    const u = new URL(url)
    const socket = Net.connect(Number(u.port), u.hostname)
    const openedAt = Date.now()
    let data = ""
    let done = false
    socket.on("data", (d: Buffer) => (data += d.toString("latin1")))
    socket.on("error", () => undefined)
    const closed = new Promise<number>((r) =>
      socket.once("close", () => {
        done = true
        r(Date.now() - openedAt)
      })
    )
    socket.once("connect", () => resolve({ socket, openedAt, received: () => data, closed, isClosed: () => done }))
    socket.once("error", reject)
  })

/** The request head (request line and headers, blank line included) of a POST. */
export const requestHead = (headers: Record<string, string>, path = "/hooks") =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`

/** Resolves with `p`'s value, or rejects after `ms` (bounded waits in tests). */
export const within = <A>(p: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)
    p.then(
      (v) => {
        clearTimeout(t)
        resolve(v)
      },
      (e) => {
        clearTimeout(t)
        reject(e)
      }
    )
  })
