/**
 * Shared helpers of the webhook tests: temp dirs, secrets, alert events and a signed sender.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as Http from "node:http"
import * as os from "node:os"
import * as nodePath from "node:path"
import { signedHeaders } from "../../src/webhooks/Signature.js"

export const tempDir = (prefix = "webhooks-") => fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix))

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
    const req = Http.request({
      host: u.hostname, port: u.port, path: u.pathname, method: "POST", agent,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        resolve({ status: res.statusCode ?? 0, body: text === "" ? undefined : JSON.parse(text) })
      })
      res.on("error", reject)
    })
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
    ? fs.readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as { id: string; body: string })
    : []
