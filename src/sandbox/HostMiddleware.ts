/**
 * The middleware around both host routers: request id, statistics, the per-credential rate
 * limit, fault injection, a catch-all for unmatched routes and defects, and the dialect's content
 * coding of JSON answers. Host routers only
 * handle requests; everything a test may want to provoke on any route lives here.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse, type HttpApp } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Effect, FiberRef, Option } from "effect"
import { encodeResponse } from "./ContentEncoding.js"
import { activeDialect, apiKeyHeaderOf } from "./Dialect.js"
import { type Fault, type HostName, nextFault } from "./Faults.js"
import { AI_VERSION } from "./platform/PlotRoutes.js"
import { problemResponse, plotErrorResponse, type ProblemCode } from "./platform/Problem.js"
import { bump } from "./SandboxContext.js"
import { nextRequestId, type SandboxState } from "./SandboxState.js"

/** What the middleware knows about the request being served; routes read and annotate it. */
export interface RequestInfo {
  readonly id: string
  readonly host: HostName
  readonly path: string
  /** `"METHOD /route/pattern"`, set by `tagRoutes` when a route matched. */
  route: string | undefined
}

export const CurrentRequest = FiberRef.unsafeMake<RequestInfo>({ id: "req_none", host: "platform", path: "/", route: undefined })

/** Path of a request URL, without the query. */
export const pathOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Records the matched route pattern of every route of `router` (for `stats.requests`). */
export const tagRoutes = <E, R>(router: HttpRouter.HttpRouter<E, R>) =>
  HttpRouter.use(router, (handler) =>
    Effect.flatMap(HttpRouter.RouteContext, (rc) =>
      Effect.flatMap(FiberRef.get(CurrentRequest), (info) => {
        info.route = `${rc.route.method} ${rc.route.path}`
        return handler
      })
    )
  )

const PLOT_PATH = "/v1/ai/plots/search"
const json = (body: unknown, status: number, headers: Record<string, string>) => HttpServerResponse.unsafeJson(body, { status, headers })

/** An error answered by the middleware itself, in the host's (and route's) error body. */
const hostError = (
  state: SandboxState,
  info: RequestInfo,
  status: number,
  code: ProblemCode,
  detail: string,
  headers: Record<string, string>
) => {
  if (info.host === "token") return json({ detail }, status, headers)
  if (info.path === PLOT_PATH && status === 429) {
    return plotErrorResponse(status, code, detail, info.id, { ...headers, "Ai-Version": AI_VERSION })
  }
  return problemResponse({ platformUrl: state.ctx.platformUrl(), code, detail, path: info.path, requestId: info.id, headers })
}

const serverErrorCode = (status: number): ProblemCode =>
  status === 502 ? "bad_gateway" : status === 503 ? "service_unavailable" : "internal_error"

const realSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const t = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(t))
  })

/**
 * Sends a valid status line and headers, then half of the body, and closes the socket.
 * Returns false when the body is not a byte array (the response is then sent whole).
 */
const sendTruncated = (req: HttpServerRequest.HttpServerRequest, res: HttpServerResponse.HttpServerResponse) => {
  if (res.body._tag !== "Uint8Array") return false
  const bytes = res.body.body
  const node = NodeHttpServerRequest.toServerResponse(req)
  node.writeHead(res.status, {
    ...res.headers,
    "content-type": res.body.contentType,
    "content-length": String(bytes.length)
  })
  // The socket is detached from the response once it finishes: keep it to close it then.
  const socket = node.socket
  node.end(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), () => socket?.destroy())
  return true
}

/** Wraps a host's app with the request id, rate limit, faults, stats and catch-all. */
export const withHost =
  (host: HostName, state: SandboxState, options: { readonly bypass?: (path: string) => boolean } = {}) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const req = yield* HttpServerRequest.HttpServerRequest
      const path = pathOf(req.url)
      if (options.bypass?.(path)) {
        const control: RequestInfo = { id: "req_control", host, path, route: undefined }
        return yield* Effect.locally(catchAll(app, state, control), CurrentRequest, control)
      }
      const info: RequestInfo = { id: nextRequestId(state), host, path, route: undefined }
      const { ctx } = state
      const credential = req.headers["authorization"] ?? req.headers[apiKeyHeaderOf(activeDialect(ctx))] ?? "anonymous"
      const rate = state.rateLimits[host].take(credential, Date.now() + state.rateOffsetMs)
      const extra: Record<string, string> = host === "platform" ? { "Svc-Request-Id": info.id } : {}
      if (rate.headers) Object.assign(extra, rate.headers)

      // Dialect `contentEncoding` (ContentEncoding.ts): every JSON answer, errors included.
      const encode = (r: HttpServerResponse.HttpServerResponse) =>
        encodeResponse(activeDialect(ctx).contentEncoding, req.headers["accept-encoding"], r)
      const fault: Fault = rate.allowed ? nextFault(ctx.seed, host, state.faults[host]) : { _tag: "None" }
      let response: HttpServerResponse.HttpServerResponse
      if (!rate.allowed) {
        response = hostError(state, info, 429, "rate_limited", "Rate limit exceeded; retry after the window resets", {
          ...extra,
          "Retry-After": String(rate.resetSeconds)
        })
      } else if (fault._tag === "ServerError") {
        response = hostError(state, info, fault.status, serverErrorCode(fault.status), "Injected server error", extra)
      } else if (fault._tag === "Burst") {
        response = hostError(state, info, 429, "rate_limited", "Too many requests (burst)", {
          ...extra,
          "Retry-After": String(fault.retryAfterSeconds)
        })
      } else if (fault._tag === "Reset") {
        NodeHttpServerRequest.toIncomingMessage(req).socket.destroy()
        record(state, info, req.method, 0)
        return yield* Effect.never
      } else {
        if (fault._tag === "TokenExpiry") ctx.tokenEpoch.value++
        if (fault._tag === "Slow" && !fault.afterAnswer) yield* realSleep(fault.ms)
        response = yield* Effect.locally(catchAll(app, state, info), CurrentRequest, info)
        if (fault._tag === "Slow" && fault.afterAnswer) yield* realSleep(fault.ms)
        response = encode(HttpServerResponse.setHeaders(response, extra))
        if (fault._tag === "Truncate" && sendTruncated(req, response)) {
          record(state, info, req.method, response.status)
          return response
        }
      }
      response = encode(response)
      record(state, info, req.method, response.status)
      return response
    })

const record = (state: SandboxState, info: RequestInfo, method: string, status: number) => {
  bump(state.ctx.stats.requests, info.route ?? `${method} ${info.path}`)
  bump(state.ctx.stats.statuses, status)
}

/** Unmatched routes answer 404 in the host's body; anything unexpected answers 500. */
const catchAll = <E, R>(app: HttpApp.Default<E, R>, state: SandboxState, info: RequestInfo) =>
  app.pipe(
    Effect.catchAllCause((cause) => {
      const failure = Cause.failureOption(cause)
      const notFound = Option.isSome(failure) && (failure.value as { _tag?: string } | null)?._tag === "RouteNotFound"
      return Effect.succeed(
        notFound
          ? hostError(state, info, 404, "not_found", `No route for ${info.path}`, {})
          : hostError(state, info, 500, "internal_error", "Unexpected sandbox error", {})
      )
    })
  )
