/**
 * A small node:http server on 127.0.0.1:0 for the client tests: every request is recorded
 * (method, URL, headers, body) and answered by the test's handler.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

export interface Reply {
  readonly status?: number
  readonly headers?: Record<string, string>
  /** An object is sent as JSON; a string or bytes (a `Buffer`) as they are. */
  readonly body?: unknown
  /** Milliseconds to wait before answering (real time). */
  readonly delayMs?: number
  /** Announce the whole body's length, send half of it, then drop the connection. */
  readonly truncate?: boolean
}

export type Handler = (req: SeenRequest, index: number) => Reply | Promise<Reply>

export interface LocalServer {
  readonly url: string
  readonly requests: Array<SeenRequest>
}

export const localServer = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.async<{ server: ReturnType<typeof createServer>; info: LocalServer }>((resume) => {
      const requests: Array<SeenRequest> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const seen: SeenRequest = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            at: Date.now()
          }
          const index = requests.push(seen) - 1
          Promise.resolve(handler(seen, index)).then(
            async (reply) => {
              if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
              const bytes = Buffer.isBuffer(reply.body) ? reply.body : undefined
              const isText = typeof reply.body === "string" || bytes !== undefined
              const text = reply.body === undefined || bytes ? "" : isText ? (reply.body as string) : JSON.stringify(reply.body)
              res.writeHead(reply.status ?? 200, {
                ...(reply.body !== undefined && !isText ? { "content-type": "application/json" } : {}),
                ...(reply.truncate ? { "content-length": String(Buffer.byteLength(text)) } : {}),
                ...reply.headers
              })
              if (reply.truncate) {
                res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy())
                return
              }
              res.end(bytes ?? text)
            },
            (e) => {
              res.writeHead(500)
              res.end(String(e))
            }
          )
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, info: { url: `http://127.0.0.1:${port}`, requests } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ info }) => info))

/** Waits in real time until `cond` holds (the server runs outside the test clock). */
export const waitFor = (cond: () => boolean, timeoutMs = 5000) =>
  Effect.promise(async () => {
    const start = Date.now()
    while (!cond()) {
      if (Date.now() - start > timeoutMs) throw new Error("waitFor: condition not met in time")
      await new Promise((r) => setTimeout(r, 5))
    }
  })
