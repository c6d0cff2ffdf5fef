/**
 * The HTTP pipeline shared by both host clients, one instance per host:
 *
 *   pace (shared per host) -> send with a per-attempt timeout -> read the whole body and undo its
 *   content coding (gzip, deflate, br; `ContentEncoding.ts`) -> log the attempt at Debug (`RequestLog.ts`) -> learn rate limits -> map non-2xx to a
 *   tagged error -> retry transient ones within budget
 *
 * It returns the raw text (the engine archives it) and the lower-case headers; the clients
 * parse and decode. Failures never carry a stack or a body dump: one short line at most.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { Clock, Duration, Effect, FiberRef, Ref } from "effect"
import { CurrentCallGate } from "./CallGate.js"
import type { RawResponse } from "./ErrorMapping.js"
import type { Pacer } from "./Pacer.js"
import { readRateLimitHeaders, tightestState } from "./RateLimitHeaders.js"
import { type RetryPolicy, withRetry } from "./Retry.js"
import { countThrottled, type RetryBudget } from "./RetryBudget.js"
import { logExchange, pathForLog } from "./RequestLog.js"
import { countRequest } from "../observe/Instruments.js"
import { InvalidRequest, type ServiceError, TransportError } from "./ServiceError.js"
import { firstLine, messageOf } from "../shared/ErrorClass.js"
import { ACCEPT_ENCODING, decodeBody } from "./ContentEncoding.js"
import { askedLimit, recordExchange } from "./Exchanges.js"

export type { RawResponse } from "./ErrorMapping.js"

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE"

export interface HostRequest {
  /** Operation name for errors, counters and the cost table. */
  readonly operation: string
  readonly method: HttpMethod
  /** Absolute URL, query included. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** JSON body (sent as `application/json`); omitted when `undefined`. */
  readonly body?: unknown
}

export interface HostTransportOptions {
  readonly client: HttpClient.HttpClient
  readonly pacer: Pacer
  readonly budget: RetryBudget
  readonly policy: RetryPolicy
  readonly timeoutMs: number
  /** The host's calls are paid: one that got no answer is not retried unless `retryUnansweredPaid` (see `Retry.ts`). */
  readonly paid?: { readonly retryUnanswered: boolean } | undefined
  /** Maps a non-2xx answer to its error; `retryAfterMs` comes from `Retry-After`. */
  readonly toError: (operation: string, res: RawResponse, retryAfterMs: number | undefined) => ServiceError
}

export interface TransportStats {
  /** HTTP attempts sent (first attempts and retries). */
  readonly attempts: number
  /** Of those, retries. */
  readonly retries: number
  /** Wall time of the answered exchanges, summed (ms): sent to whole body read. */
  readonly exchangeMs: number
  /** Answered exchanges (those `exchangeMs` sums). */
  readonly exchanges: number
}

/** One short line about a failed exchange: the system error code, or the first line of a message. */
const describe = (e: HttpClientError): string => {
  const cause = e.cause as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined
  const code = cause?.code ?? cause?.cause?.code
  if (typeof code === "string") return code
  const msg = cause?.cause?.message ?? cause?.message ?? e.reason
  return firstLine(String(msg)).slice(0, 120)
}

const isJson = (contentType: string | undefined) => contentType === undefined || /json/i.test(contentType)

export const makeHostTransport = (options: HostTransportOptions) =>
  Effect.gen(function* () {
    const counters = yield* Ref.make<TransportStats>({ attempts: 0, retries: 0, exchangeMs: 0, exchanges: 0 })
    // the request span below is the one exported: the HTTP client's own span would carry the full
    // URL and the request headers (a custom API-key header is not among those it redacts)
    const client = HttpClient.withTracerDisabledWhen(options.client, () => true)

    const toRequest = (req: HostRequest) => {
      let r = HttpClientRequest.make(req.method)(req.url).pipe(
        HttpClientRequest.setHeaders(req.headers),
        HttpClientRequest.acceptJson,
        // named, so a server that compresses uses a coding this client decodes
        HttpClientRequest.setHeader("accept-encoding", ACCEPT_ENCODING)
      )
      if (req.body !== undefined) r = HttpClientRequest.bodyUnsafeJson(r, req.body)
      return r
    }

    /** One attempt: paced, timed out as a whole (headers and body), non-2xx mapped. */
    const attempt = (req: HostRequest) =>
      Effect.gen(function* () {
        yield* options.pacer.take
        // a run that is stopping sends nothing more (`CallGate.ts`)
        const gate = yield* FiberRef.get(CurrentCallGate)
        if (gate !== undefined && !gate.open()) return yield* Effect.interrupt
        yield* Ref.update(counters, (c) => ({ ...c, attempts: c.attempts + 1 }))
        const exchange = client.execute(toRequest(req)).pipe(
          Effect.flatMap((res) =>
            Effect.flatMap(res.arrayBuffer, (bytes) => {
              const decoded = decodeBody(new Uint8Array(bytes), res.headers["content-encoding"])
              if ("text" in decoded) return Effect.succeed<RawResponse>({ status: res.status, headers: res.headers, text: decoded.text })
              const charged = Number(res.headers["svc-units-charged"] ?? 0)
              return Effect.fail(
                new TransportError({
                  reason: "unsupported" in decoded ? "Encoding" : "TruncatedBody",
                  operation: req.operation,
                  status: res.status,
                  requestId: res.headers["svc-request-id"],
                  detail:
                    "unsupported" in decoded
                      ? `the answer is encoded as "${decoded.unsupported}", which this client cannot decode (it asks for ${ACCEPT_ENCODING})`
                      : `the encoded body cannot be decoded (${decoded.corrupt})`,
                  ...(charged > 0 ? { unitsCharged: charged } : {})
                })
              )
            })
          ),
          Effect.mapError((e): ServiceError => {
            if (e._tag === "TransportError") return e
            if (e._tag === "RequestError" && e.reason === "InvalidUrl") {
              return new InvalidRequest({ reason: "Url", operation: req.operation, detail: "the URL is not valid" })
            }
            if (e._tag === "RequestError" && e.reason === "Encode") {
              return new InvalidRequest({ reason: "Body", operation: req.operation, detail: "the body is not serialisable as JSON" })
            }
            if (e._tag === "ResponseError") {
              // The headers arrived: a charged call whose body broke off must not be retried (or lost from the ledger).
              const charged = Number(e.response.headers["svc-units-charged"] ?? 0)
              return new TransportError({
                reason: "TruncatedBody",
                operation: req.operation,
                status: e.response.status,
                requestId: e.response.headers["svc-request-id"],
                detail: describe(e),
                ...(charged > 0 ? { unitsCharged: charged } : {})
              })
            }
            return new TransportError({ reason: "Network", operation: req.operation, detail: describe(e) })
          }),
          Effect.timeoutFail({
            duration: Duration.millis(options.timeoutMs),
            onTimeout: () =>
              new TransportError({
                reason: "Timeout",
                operation: req.operation,
                detail: `no complete answer within ${options.timeoutMs} ms`
              })
          })
        )
        const started = yield* Clock.currentTimeMillis
        const logged = { operation: req.operation, method: req.method, url: req.url }
        const res = yield* exchange.pipe(
          Effect.tapError((e) =>
            Effect.flatMap(Clock.currentTimeMillis, (end) =>
              logExchange({ ...logged, ms: end - started, outcome: { failure: "reason" in e ? e.reason : e._tag } })
            )
          )
        )
        const now = yield* Clock.currentTimeMillis
        yield* Ref.update(counters, (c) => ({ ...c, exchangeMs: c.exchangeMs + (now - started), exchanges: c.exchanges + 1 }))
        yield* recordExchange({
          operation: req.operation,
          method: req.method,
          url: req.url,
          status: res.status,
          headers: res.headers,
          text: res.text,
          asked: askedLimit(req.url, req.body)
        })
        yield* logExchange({
          ...logged,
          ms: now - started,
          outcome: { status: res.status, units: Number(res.headers["svc-units-charged"] ?? 0) || 0 }
        })
        const info = readRateLimitHeaders((name) => res.headers[name], now)
        yield* options.pacer.observe(info, res.status)
        if (res.status === 429) yield* countThrottled
        const contentType = res.headers["content-type"]
        const requestId = res.headers["svc-request-id"]
        const charged = Number(res.headers["svc-units-charged"] ?? 0)
        const chargedField = charged > 0 ? { unitsCharged: charged } : {}
        if (res.status >= 200 && res.status < 300) {
          if (res.text.length > 0 && !isJson(contentType)) {
            return yield* new TransportError({
              reason: "WrongContentType",
              operation: req.operation,
              status: res.status,
              requestId,
              detail: `expected JSON, got ${contentType?.split(";")[0]}`,
              ...chargedField
            })
          }
          return res
        }
        if (/text\/html/i.test(contentType ?? "")) {
          return yield* new TransportError({
            reason: "WrongContentType",
            operation: req.operation,
            status: res.status,
            requestId,
            detail: "an HTML error page instead of the service's error body",
            ...chargedField
          })
        }
        // `Retry-After` wins; a 429 without it waits for the reset its `RateLimit` state names.
        const reset = tightestState(info.states)?.resetSeconds
        const retryAfterMs = info.retryAfterMs ?? (res.status === 429 && reset !== undefined ? reset * 1000 : undefined)
        return yield* Effect.fail(options.toError(req.operation, res, retryAfterMs))
      })

    /**
     * Sends with retries of transient failures (see `Retry.ts`), in one span per request: its
     * operation, method, path and query (credential-named parameters and JWTs redacted), final
     * status, units charged and retries. Never headers or bodies.
     */
    const send = (req: HostRequest): Effect.Effect<RawResponse, ServiceError> => {
      const [path, query] = pathForLog(req.url).split(/\?(.*)/s)
      let retries = 0
      const ended = (status: string, units: number) =>
        Effect.zipRight(
          Effect.annotateCurrentSpan({ status, units, retries }),
          countRequest({ operation: req.operation, method: req.method, status, units })
        )
      return withRetry(req.operation, attempt(req), options.policy, options.budget, {
        paidUnansweredFinal: options.paid !== undefined && !options.paid.retryUnanswered,
        onRetry: (n, delayMs, error) =>
          Effect.zipRight(
            Effect.sync(() => void (retries += 1)),
            Ref.update(counters, (c) => ({ ...c, retries: c.retries + 1 }))
          ).pipe(
            // a run that retries says so as it goes (a warning line: JSON off a terminal); 429s
            // are the pacing's, counted as throttled in the progress, not a line each
            Effect.zipRight(
              (error as { status?: number }).status === 429
                ? Effect.void
                : Effect.logWarning(`${messageOf(error)}; retry ${n + 1} of ${options.policy.maxRetries} in ${delayMs} ms`).pipe(
                    Effect.annotateLogs({ operation: req.operation, retry: n + 1, delayMs })
                  )
            )
          )
      }).pipe(
        Effect.tap((res) => ended(String(res.status), Number(res.headers["svc-units-charged"] ?? 0) || 0)),
        Effect.tapError((e) => {
          const err = e as { status?: number; reason?: string; unitsCharged?: number }
          return ended(err.status !== undefined ? String(err.status) : (err.reason ?? e._tag), err.unitsCharged ?? 0)
        }),
        Effect.withSpan(`HostTransport.send`, {
          kind: "client",
          captureStackTrace: false,
          attributes: { operation: req.operation, method: req.method, "url.path": path, ...(query ? { "url.query": query } : {}) }
        })
      )
    }

    return { send, stats: Ref.get(counters) }
  })

export type HostTransport = Effect.Effect.Success<ReturnType<typeof makeHostTransport>>
