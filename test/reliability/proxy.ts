/**
 * A recording HTTP proxy in front of a sandbox host, on an ephemeral port of 127.0.0.1: it
 * forwards every request (rewriting the host's own links to point through it), keeps each request's URL and headers (to check where credentials go),
 * and lets a test replace or alter answers (HTML error pages, wrong content types, cut JSON,
 * unknown problem codes, fields of the wrong type).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** Given the request and how to get the real answer, the answer to send (undefined: the real one). */
export type Rewrite = (seen: Seen, upstream: () => Promise<Answer>) => Promise<Answer | undefined> | Answer | undefined

const HOP = new Set(["connection", "content-length", "transfer-encoding", "keep-alive", "content-encoding", "host"])

export const startProxy = async (target: string) => {
  const seen: Array<Seen> = []
  let rewrite: Rewrite | undefined
  let port = 0
  const self = () => `http://127.0.0.1:${port}`
  const fetchUpstream = (s: Seen) => async (): Promise<Answer> => {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(s.headers)) if (!HOP.has(k) && typeof v === "string") headers[k] = v
    const res = await fetch(target + s.url, { method: s.method, headers, ...(s.body !== "" ? { body: s.body } : {}) })
    const out: Record<string, string> = {}
    res.headers.forEach((v, k) => void (HOP.has(k) ? undefined : (out[k] = v)))
    // links the host gives (`next` cursors) point back through the proxy
    return { status: res.status, headers: out, body: (await res.text()).replaceAll(target, self()) }
  }
  const server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", async () => {
      const s: Seen = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body }
      seen.push(s)
      try {
        const upstream = fetchUpstream(s)
        const answer = (rewrite ? await rewrite(s, upstream) : undefined) ?? (await upstream())
        res.writeHead(answer.status, { ...answer.headers, "content-length": Buffer.byteLength(answer.body) })
        res.end(answer.body)
      } catch {
        res.destroy()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  return {
    url: self(),
    seen,
    setRewrite: (r: Rewrite | undefined) => void (rewrite = r),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
