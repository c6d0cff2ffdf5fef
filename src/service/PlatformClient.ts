/**
 * Client of the metered platform host. Piped from small parts: base URL, the API key as
 * `Authorization: Bearer` (never in a URL), request validation before sending, the cost guard,
 * pacing, retry within budget, error mapping, then JSON decoding. Every method returns the
 * decoded body, the raw body text (for the raw archive), the units headers and the request id.
 */
import { HttpClient } from "@effect/platform"
import { Effect, Either, Option, Redacted, Schema } from "effect"
import { CostGuard } from "./CostGuard.js"
import { platformError } from "./ErrorMapping.js"
import { type HttpMethod, makeHostTransport, type RawResponse } from "./HostTransport.js"
import { makePacer } from "./Pacer.js"
import { type PlatformBody, PlatformRequests } from "./PlatformRequests.js"
import type { PlatformOperation } from "../config/UnitCosts.js"
import { chargedOf, retryPolicyOf } from "./Retry.js"
import { bodyStart, type ListPage, readList, withRelativeNext } from "./ResponseShape.js"
import { RetryBudget } from "./RetryBudget.js"
import { AuthenticationFailed, InvalidRequest, type ServiceError, TransportError, UnexpectedShape } from "./ServiceError.js"
import { shapeOf } from "./Shapes.js"
import { ServiceSettings } from "./ServiceSettings.js"
import type { SellerLeadsQuery } from "./schema/SellerLeads.js"
import { validateRequest } from "./schema/Validation.js"
import { PaidAnswers, type PaidRequest, requestKeyOf } from "./PaidAnswers.js"
import { parseJson } from "../shared/ExactJson.js"
import { firstLine } from "../shared/ErrorClass.js"

/** The units headers of one platform response (spec, "Units and platform response headers"). */
export interface Units {
  /** `Svc-Units-Charged` (0 when absent). */
  readonly charged: number
  /** `Svc-Units-Remaining`: the balance after the call. */
  readonly remaining: number | undefined
  /** `Svc-Units-Source` (Assumed: `balance` or `plan`). */
  readonly source: string | undefined
  /** `Svc-Plan`. */
  readonly plan: string | undefined
  readonly requestId: string | undefined
}

export interface PlatformResponse<A> {
  readonly body: A
  /** The body exactly as received, for the raw archive. */
  readonly raw: string
  readonly units: Units
  readonly requestId: string | undefined
  /** `Ai-Version` passed through from the plot service (plot search only). */
  readonly version: string | undefined
  /** The paid request this answers (reusable from the archive; `reused` when it came from there). */
  readonly request?: PaidRequest | undefined
  /** The operation that answered (what its page and its charge are entered under). */
  readonly operation: PlatformOperation
}

const num = (v: string | undefined): number | undefined => {
  if (v === undefined || v.trim() === "") return undefined
  const n = Number(v)
  return Number.isFinite(n) ? n : undefined
}

export const readUnits = (headers: Readonly<Record<string, string>>): Units => ({
  charged: Math.max(0, num(headers["svc-units-charged"]) ?? 0),
  remaining: num(headers["svc-units-remaining"]),
  source: headers["svc-units-source"],
  plan: headers["svc-plan"],
  requestId: headers["svc-request-id"]
})

/** Any JSON object. */
export const AnyObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type AnyObject = typeof AnyObject.Type

interface CallSpec<A> {
  readonly operation: PlatformOperation
  readonly method: HttpMethod
  /** A path under the platform URL, or an absolute `next` URL the service returned. */
  readonly target: string
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
  readonly bodySchema?: Schema.Schema<any, any, never>
  readonly querySchema?: Schema.Schema<any, any, never>
  readonly response: Schema.Schema<A, any, never>
}

const oneLine = (s: string) => s.split("\n").join("; ")

/** A request body without its `offset` (a next link carries the position). */
const withoutOffset = <B extends { readonly offset?: unknown }>(body: B): Omit<B, "offset"> => {
  const { offset: _offset, ...rest } = body
  return rest
}

const CREDENTIAL_PARAMS = ["api_key", "apikey", "api-key", "access_token", "token", "key"]
/** Whether a URL carries the key (raw or encoded) or a credential-named query parameter. */
export const credentialInUrl = (url: string, key: string): boolean => {
  const u = new URL(url)
  if (CREDENTIAL_PARAMS.some((p) => u.searchParams.has(p))) return true
  // Very short keys (tests) would match by accident; real keys are long.
  return key.length >= 8 && (url.includes(key) || url.includes(encodeURIComponent(key)))
}

export const makePlatformClient = Effect.gen(function* () {
  const settings = yield* ServiceSettings
  const guard = yield* CostGuard
  const budget = yield* RetryBudget
  const client = yield* HttpClient.HttpClient
  const pacer = yield* makePacer({ ratePerSecond: settings.platformRate, headroom: settings.pacingHeadroom })
  const scrub = (text: string) =>
    Option.match(settings.apiKey, {
      onNone: () => text,
      onSome: (k) => (Redacted.value(k).length >= 8 ? text.split(Redacted.value(k)).join("<redacted>") : text)
    })
  const transport = yield* makeHostTransport({
    client,
    pacer,
    budget,
    policy: retryPolicyOf(settings),
    paid: { retryUnanswered: settings.retryUnansweredPaid },
    timeoutMs: settings.timeoutMs,
    // An error body that echoes the key (e.g. a proxy quoting the request) never reaches an error message.
    toError: (operation, res, retryAfterMs) =>
      platformError(operation, { ...res, text: scrub(res.text) }, retryAfterMs, readUnits(res.headers).charged, settings.paymentLinkMember)
  })
  const base = new URL(settings.platformUrl)

  /** Builds the URL; a `next` URL must point at the platform host (the key is never sent elsewhere). */
  const urlOf = (spec: Pick<CallSpec<unknown>, "target" | "query" | "operation">) => {
    const url = /^https?:\/\//i.test(spec.target) ? new URL(spec.target) : new URL(settings.platformUrl + spec.target)
    if (url.origin !== base.origin) {
      return Effect.fail(
        new InvalidRequest({
          reason: "Url",
          operation: spec.operation,
          detail: `refusing to follow a link to another host (${url.origin})`
        })
      )
    }
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    return Effect.succeed(url.toString())
  }

  const decode = <A>(
    spec: CallSpec<A>,
    res: RawResponse,
    request: PaidRequest
  ): Effect.Effect<PlatformResponse<A>, TransportError | UnexpectedShape> => {
    const units = readUnits(res.headers)
    const charged = units.charged > 0 ? { unitsCharged: units.charged } : {}
    let json: unknown
    try {
      // integers beyond 2^53 keep every digit (`shared/ExactJson.ts`)
      json = res.text === "" ? null : parseJson(res.text)
    } catch {
      return Effect.fail(
        new TransportError({
          reason: "InvalidBody",
          operation: spec.operation,
          status: res.status,
          requestId: units.requestId,
          detail: "the body is not valid JSON",
          ...charged
        })
      )
    }
    // JSON of another shape than the operation's: the same named stop as a list of the wrong shape (exit 7)
    return Schema.decodeUnknown(spec.response, { onExcessProperty: "preserve" })(json).pipe(
      Effect.mapError(
        (e) =>
          new UnexpectedShape({
            operation: spec.operation,
            host: "platform",
            detail: `the body is not the documented shape (${firstLine(String(e.message)).slice(0, 160)})`,
            bodyStart: scrub(bodyStart(res.text)),
            status: res.status,
            requestId: units.requestId,
            ...charged,
            raw: res.text,
            request
          })
      ),
      Effect.map((body) => ({
        body,
        raw: res.text,
        units,
        requestId: units.requestId,
        version: res.headers["ai-version"],
        request,
        operation: spec.operation
      }))
    )
  }

  const call = <A>(spec: CallSpec<A>): Effect.Effect<PlatformResponse<A>, ServiceError> =>
    Effect.gen(function* () {
      const key = yield* Option.match(settings.apiKey, {
        onNone: () =>
          Effect.fail(
            new AuthenticationFailed({
              reason: "MissingCredentials",
              host: "platform",
              operation: spec.operation,
              detail: "no API key is configured (SVC_API_KEY)"
            })
          ),
        onSome: Effect.succeed
      })
      if (spec.bodySchema) {
        const v = validateRequest(spec.bodySchema, spec.body)
        if (v._tag === "Left")
          return yield* new InvalidRequest({ reason: "Body", operation: spec.operation, detail: oneLine(v.left.message) })
      }
      if (spec.querySchema) {
        const v = validateRequest(spec.querySchema, spec.query ?? {})
        if (v._tag === "Left")
          return yield* new InvalidRequest({ reason: "Query", operation: spec.operation, detail: oneLine(v.left.message) })
      }
      const url = yield* urlOf(spec)
      // Spec: credentials in the URL are refused (400 key_in_query); never build such a request.
      if (credentialInUrl(url, Redacted.value(key))) {
        return yield* new InvalidRequest({ reason: "Url", operation: spec.operation, detail: "a credential must never be sent in a URL" })
      }
      // an answer bought for the same request lately is read from the archive, at 0 units
      const requestKey = requestKeyOf({ operation: spec.operation, method: spec.method, url, body: spec.body })
      const answers = yield* Effect.serviceOption(PaidAnswers)
      const archived = Option.isSome(answers) ? yield* answers.value.find(spec.operation, requestKey) : Option.none()
      if (Option.isSome(archived)) {
        const { body, boughtAt, units } = archived.value
        return yield* decode(
          spec,
          { status: 200, headers: {}, text: body },
          { operation: spec.operation, key: requestKey, boughtAt, units, reused: true }
        )
      }
      const send = transport
        .send({
          operation: spec.operation,
          method: spec.method,
          url,
          headers: Option.match(settings.apiKeyHeader, {
            onNone: () => ({ authorization: `Bearer ${Redacted.value(key)}` }),
            onSome: (name) => ({ [name.toLowerCase()]: Redacted.value(key) })
          }),
          ...(spec.body !== undefined ? { body: spec.body } : {})
        })
        .pipe(
          Effect.flatMap((res) =>
            decode(spec, res, {
              operation: spec.operation,
              key: requestKey,
              boughtAt: new Date().toISOString(),
              units: readUnits(res.headers).charged
            })
          )
        )
      return yield* guard.guard(
        spec.operation,
        send,
        (r) => ({ charged: r.units.charged, requestId: r.requestId, remaining: r.units.remaining }),
        (e) => {
          const charged = chargedOf(e)
          return charged > 0 ? { charged, requestId: (e as { requestId?: string }).requestId } : undefined
        }
      )
    }).pipe(Effect.withSpan(`PlatformClient.${spec.operation}`, { captureStackTrace: false }))

  /**
   * A list call: the body read through the operation's response shape (`service.shapes`). A body
   * without the list fails `UnexpectedShape`, carrying the raw body and the units it cost so the
   * runner archives the paid page.
   */
  const callList = (
    spec: Omit<CallSpec<unknown>, "response">,
    shapeKey: PlatformOperation = spec.operation
  ): Effect.Effect<PlatformResponse<unknown> & { readonly page: ListPage }, ServiceError> =>
    Effect.flatMap(call({ ...spec, response: Schema.Unknown }), (r) =>
      Either.match(readList(r.body, shapeOf(shapeKey, settings.shapes)), {
        onRight: (page) =>
          Effect.succeed({ ...r, page: withRelativeNext(settings.platformUrl, page, r.request?.reused === true), operation: shapeKey }),
        onLeft: (detail) =>
          Effect.fail(
            new UnexpectedShape({
              operation: spec.operation,
              host: "platform",
              detail,
              bodyStart: scrub(bodyStart(r.raw)),
              requestId: r.requestId,
              ...(r.units.charged > 0 ? { unitsCharged: r.units.charged } : {}),
              raw: r.raw,
              request: r.request
            })
          )
      })
    )

  const R = PlatformRequests
  return {
    /** POST /v1/ai/search: premises search (40 units a successful call). */
    premisesSearch: (body: PlatformBody<"premisesSearch"> = {}) =>
      callList({ operation: "ai_search_premises", method: "POST", target: "/v1/ai/search", body, bodySchema: R.premisesSearch }),
    /**
     * A `next` link of a premises search page. Assumed (docs/ASSUMPTIONS.md): the same body is POSTed
     * to the link without `offset` (the link says where; GET on the path is 405 by the spec).
     */
    premisesSearchNext: (nextUrl: string, body: PlatformBody<"premisesSearch"> = {}) =>
      callList({ operation: "ai_search_premises", method: "POST", target: nextUrl, body: withoutOffset(body) }),
    /** POST /v1/ai/plots/search: commercial plots in Germany. */
    plotSearch: (body: PlatformBody<"plotSearch">) =>
      callList({ operation: "plot_search", method: "POST", target: "/v1/ai/plots/search", body, bodySchema: R.plotSearch }),
    /** A `next` link of a plot search page, should the service send one: the body POSTed to it (as premises). */
    plotSearchNext: (nextUrl: string, body: PlatformBody<"plotSearch">) =>
      callList({ operation: "plot_search", method: "POST", target: nextUrl, body }),
    /** POST /v1/property-sourcing/searches: structured search. */
    sourcingSearch: (body: PlatformBody<"sourcingSearch">) =>
      callList({
        operation: "sourcing_search",
        method: "POST",
        target: "/v1/property-sourcing/searches",
        body,
        bodySchema: R.sourcingSearch
      }),
    /** GET the `next` URL of a sourcing search (or describe) page. */
    sourcingNext: (nextUrl: string) => callList({ operation: "sourcing_next", method: "GET", target: nextUrl }),
    /** POST /v1/property-sourcing/searches/describe: plain-language search. */
    sourcingDescribe: (body: PlatformBody<"sourcingDescribe">) =>
      callList({
        operation: "sourcing_describe",
        method: "POST",
        target: "/v1/property-sourcing/searches/describe",
        body,
        bodySchema: R.sourcingDescribe
      }),
    /** GET /v1/property-sourcing/properties/{prop_id}. */
    sourcingProperty: (propertyId: string) =>
      Effect.flatMap(R.checkId("sourcing_property", propertyId, "prop_"), (id) =>
        call({
          operation: "sourcing_property",
          method: "GET",
          target: `/v1/property-sourcing/properties/${encodeURIComponent(id)}`,
          response: AnyObject
        })
      ),
    /** POST /v1/property-sourcing/properties/resolve: exactly one of url, reference, listing_id. */
    sourcingResolve: (body: PlatformBody<"sourcingResolve">) =>
      call({
        operation: "sourcing_resolve",
        method: "POST",
        target: "/v1/property-sourcing/properties/resolve",
        body,
        bodySchema: R.sourcingResolve,
        response: AnyObject
      }),
    /** GET /v1/seller-leads around a point. */
    sellerLeads: (query: PlatformBody<"sellerLeadsQuery">) =>
      callList({ operation: "seller_leads", method: "GET", target: "/v1/seller-leads", query, querySchema: R.sellerLeadsQuery }),
    /** GET the `next` URL of a seller-leads page. */
    sellerLeadsNext: (nextUrl: string) => callList({ operation: "seller_leads", method: "GET", target: nextUrl }),
    /** GET /v1/seller-leads/{lead_id}. */
    sellerLead: (leadId: string) =>
      Effect.flatMap(R.checkId("seller_lead", leadId, "lead_"), (id) =>
        call({ operation: "seller_lead", method: "GET", target: `/v1/seller-leads/${encodeURIComponent(id)}`, response: AnyObject })
      ),
    /** Low-level: any platform call (used by tests and new operations before they get a method). */
    call,
    /** Low-level: any list call, read through its response shape. */
    callList,
    /** HTTP attempts and retries of this client. */
    stats: transport.stats,
    pacer: pacer.snapshot
  }
})

/** Needs an `HttpClient`, `ServiceSettings`, `RetryBudget` and `CostGuard` (wired in `ServiceLayer.clients`). */
export class PlatformClient extends Effect.Service<PlatformClient>()("service/PlatformClient", {
  effect: makePlatformClient
}) {}
