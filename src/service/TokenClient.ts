/**
 * Client of the token host (`{api_url}`): bearer JWT from the session (`TokenSession.ts`), one
 * renewal and one replay on 401, request validation before sending, pacing, retry within budget,
 * error mapping, JSON decoding. Every method returns the decoded body, the raw text (for the raw
 * archive) and the status. Records are kept loosely typed here; the normalizer decodes each one
 * with its schema so one drifted record does not fail a page.
 */
import { HttpClient } from "@effect/platform"
import { Effect, Either, Option, Redacted, Schema } from "effect"
import { tokenError } from "./ErrorMapping.js"
import { type HttpMethod, makeHostTransport, type RawResponse } from "./HostTransport.js"
import { retryPolicyOf } from "./Retry.js"
import { makePacer } from "./Pacer.js"
import { RetryBudget } from "./RetryBudget.js"
import * as S from "./schema/index.js"
import { type TokenBody, TokenRequests } from "./TokenRequests.js"
import { validateRequest } from "./schema/Validation.js"
import { bodyStart, type ListPage, readList, withRelativeNext } from "./ResponseShape.js"
import { AuthenticationFailed, InvalidRequest, type ServiceError, TransportError, UnexpectedShape } from "./ServiceError.js"
import { ServiceSettings } from "./ServiceSettings.js"
import { shapeOf } from "./Shapes.js"
import { makeTokenSession } from "./TokenSession.js"
import { parseJson } from "../shared/ExactJson.js"
import { firstLine } from "../shared/ErrorClass.js"
import type { TokenOperation } from "../config/Operations.js"

export interface TokenResponse<A> {
  readonly body: A
  /** The body exactly as received ("" for 204). */
  readonly raw: string
  readonly status: number
  /**
   * A write (`RequestOptions.write`) the service answered 2xx with a body this client cannot read
   * (not JSON, or not the documented shape): what was wrong. The write happened; `body` is what
   * could be read (the parsed JSON, or undefined).
   */
  readonly unreadable?: string | undefined
  /** The operation that answered, on the answers pipelines read (what their pages are entered under). */
  readonly operation?: TokenOperation | undefined
}

type Query = Readonly<Record<string, string | number | boolean | undefined>>
type AnySchema = Schema.Schema<any, any, never>

export interface RequestOptions<A> {
  readonly query?: Query
  readonly body?: unknown
  readonly bodySchema?: AnySchema
  readonly querySchema?: AnySchema
  readonly response?: Schema.Schema<A, any, never>
  /** The body to return on 204 / an empty body (time series: `[]`). */
  readonly empty?: A
  /** Operation name for errors and counters (default `METHOD path`). */
  readonly operation?: string
  /**
   * A write (create, update, set): a 2xx answer is success whatever its body, so a body that
   * cannot be read is reported (`TokenResponse.unreadable`), never an error a rerun would repeat
   * the write for.
   */
  readonly write?: boolean
}

const Obj = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const List = Schema.Array(Schema.Unknown)
/** A page envelope `{count, next, previous, results}`; results checked loosely. */
const Env = Schema.Struct(
  { results: Schema.Unknown, next: Schema.optional(Schema.NullOr(Schema.String)), previous: Schema.optional(Schema.NullOr(Schema.String)) },
  Obj
)
/**
 * Renewals of the token a single request may trigger before giving up (`StillUnauthorized`):
 * enough that tokens expiring again and again (other requests renewing meanwhile) never end a
 * run, few enough that a host refusing every fresh token stops it quickly.
 */
const MAX_RENEWALS = 8
const oneLine = (s: string) => s.split("\n").join("; ")
const seg = (s: string | number) => encodeURIComponent(String(s))

export const makeTokenClient = Effect.gen(function* () {
  const settings = yield* ServiceSettings
  const budget = yield* RetryBudget
  const client = yield* HttpClient.HttpClient
  const pacer = yield* makePacer({ ratePerSecond: settings.apiRate, headroom: settings.pacingHeadroom })
  const transport = yield* makeHostTransport({
    client,
    pacer,
    budget,
    policy: retryPolicyOf(settings),
    timeoutMs: settings.timeoutMs,
    toError: tokenError
  })
  const session = yield* makeTokenSession(transport, settings)
  const origin = new URL(settings.apiUrl).origin

  const decode = <A>(
    operation: string,
    res: RawResponse,
    options: RequestOptions<A>
  ): Effect.Effect<TokenResponse<A>, TransportError | UnexpectedShape> => {
    if ((res.status === 204 || res.text === "") && options.empty !== undefined) {
      return Effect.succeed({ body: options.empty, raw: res.text, status: res.status })
    }
    let json: unknown
    try {
      // integers beyond 2^53 keep every digit (`shared/ExactJson.ts`)
      json = res.text === "" ? null : parseJson(res.text)
    } catch {
      if (options.write)
        return Effect.succeed({ body: undefined as A, raw: res.text, status: res.status, unreadable: "the body is not JSON" })
      return Effect.fail(new TransportError({ reason: "InvalidBody", operation, status: res.status, detail: "the body is not valid JSON" }))
    }
    const schema = (options.response ?? Schema.Unknown) as Schema.Schema<A, any, never>
    if (options.write) {
      return Effect.succeed(
        Either.match(Schema.decodeUnknownEither(schema, { onExcessProperty: "preserve" })(json), {
          onRight: (body) => ({ body, raw: res.text, status: res.status }),
          onLeft: () => ({ body: json as A, raw: res.text, status: res.status, unreadable: "the body is not the documented shape" })
        })
      )
    }
    // JSON of another shape than the operation's: the same named stop as a list of the wrong shape (exit 7)
    return Schema.decodeUnknown(schema, { onExcessProperty: "preserve" })(json).pipe(
      Effect.mapError((e) =>
        shapeError(
          operation,
          { body: json, raw: res.text, status: res.status },
          `the body is not the documented shape (${firstLine(String(e.message)).slice(0, 160)})`
        )
      ),
      Effect.map((body) => ({ body, raw: res.text, status: res.status }))
    )
  }

  /**
   * Any token-host call. `target` is a path (`/api/v1/...`) or an absolute `next` link, which
   * must point at the token host (the bearer token is never sent elsewhere).
   */
  const request = <A = unknown>(
    method: HttpMethod,
    target: string,
    options: RequestOptions<A> = {}
  ): Effect.Effect<TokenResponse<A>, ServiceError> => {
    const operation = options.operation ?? `${method} ${target.replace(/^https?:\/\/[^/]+/, "").split("?")[0]}`
    return Effect.gen(function* () {
      if (options.bodySchema) {
        const v = validateRequest(options.bodySchema, options.body)
        if (v._tag === "Left") return yield* new InvalidRequest({ reason: "Body", operation, detail: oneLine(v.left.message) })
      }
      if (options.querySchema) {
        const v = validateRequest(options.querySchema, options.query ?? {})
        if (v._tag === "Left") return yield* new InvalidRequest({ reason: "Query", operation, detail: oneLine(v.left.message) })
      }
      const url = /^https?:\/\//i.test(target) ? new URL(target) : new URL(settings.apiUrl + target)
      if (url.origin !== origin) {
        return yield* new InvalidRequest({ reason: "Url", operation, detail: `refusing to follow a link to another host (${url.origin})` })
      }
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
      const send = (access: Redacted.Redacted<string>) =>
        transport.send({
          operation,
          method,
          url: url.toString(),
          headers: { authorization: `Bearer ${Redacted.value(access)}` },
          ...(options.body !== undefined ? { body: options.body } : {})
        })
      // On 401: renew (one refresh for all concurrent callers of a generation) and replay; a token
      // that expires again right away is renewed again, up to MAX_RENEWALS times per request.
      const attempt = (renewals: number): Effect.Effect<RawResponse, ServiceError> =>
        Effect.flatMap(session.current, (current) =>
          send(current.access).pipe(
            Effect.catchIf(
              (e) => e._tag === "AuthenticationFailed",
              (e) =>
                renewals >= MAX_RENEWALS
                  ? Effect.fail(
                      new AuthenticationFailed({
                        reason: "StillUnauthorized",
                        host: "token",
                        operation,
                        detail: (e as AuthenticationFailed).detail
                      })
                    )
                  : Effect.zipRight(session.renew(current.generation), attempt(renewals + 1))
            )
          )
        )
      const res = yield* attempt(0)
      return yield* decode(operation, res, options)
    }).pipe(Effect.withSpan(`TokenClient.request`, { attributes: { operation }, captureStackTrace: false }))
  }

  // A body (query) and the schema that checks it agree by type: the method's request is what its schema reads.
  const post = <B, A>(
    path: string,
    body: B,
    bodySchema: Schema.Schema<any, B, never> | undefined,
    response: Schema.Schema<A, any, never>,
    extra: Partial<RequestOptions<A>> = {}
  ) => request<A>("POST", path, { body, ...(bodySchema ? { bodySchema } : {}), response, ...extra })
  const get = <A, Q extends Query = Query>(
    path: string,
    response: Schema.Schema<A, any, never>,
    query?: Q,
    querySchema?: Schema.Schema<any, Q, never>
  ) => request<A>("GET", path, { response, ...(query ? { query } : {}), ...(querySchema ? { querySchema } : {}) })

  /** The start of a body for an error line, with anything like a JWT and the password taken out (a proxy may echo a request). */
  const scrub = (text: string) =>
    Option.match(settings.password, {
      onNone: () => text,
      onSome: (p) => (Redacted.value(p).length >= 6 ? text.split(Redacted.value(p)).join("<redacted>") : text)
    }).replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, "<redacted>")
  const shapeError = (operation: string, r: TokenResponse<unknown>, detail: string) =>
    new UnexpectedShape({
      operation,
      host: "token",
      detail,
      bodyStart: scrub(bodyStart(r.raw, 400)).slice(0, 200),
      status: r.status,
      raw: r.raw
    })

  /** A list answer read through the operation's response shape (`service.shapes`); 204 is an empty list. */
  const list = (
    operation: TokenOperation,
    call: Effect.Effect<TokenResponse<unknown>, ServiceError>
  ): Effect.Effect<TokenResponse<unknown> & { readonly page: ListPage; readonly operation: TokenOperation }, ServiceError> =>
    Effect.flatMap(call, (r) =>
      r.status === 204 || r.raw === ""
        ? Effect.succeed({ ...r, page: { records: [] } as ListPage, operation })
        : Either.match(readList(r.body, shapeOf(operation, settings.shapes)), {
            onRight: (page) => Effect.succeed({ ...r, page: withRelativeNext(settings.apiUrl, page), operation }),
            onLeft: (detail) => Effect.fail(shapeError(operation, r, detail))
          })
    )

  /** One object answer (a not-shown record) at its shape's `results` path. */
  const record = (
    operation: TokenOperation,
    call: Effect.Effect<TokenResponse<unknown>, ServiceError>
  ): Effect.Effect<TokenResponse<Record<string, unknown>> & { readonly operation: TokenOperation }, ServiceError> =>
    Effect.flatMap(call, (r) => {
      const path = shapeOf(operation, settings.shapes).results
      let v: unknown = r.body
      if (path !== "." && path !== "")
        for (const part of path.split(".")) v = typeof v === "object" && v !== null ? (v as Record<string, unknown>)[part] : undefined
      return typeof v === "object" && v !== null && !Array.isArray(v)
        ? Effect.succeed({ ...r, body: v as Record<string, unknown>, operation })
        : Effect.fail(
            shapeError(
              operation,
              r,
              `expected an object at "${path}", found ${Array.isArray(v) ? "a list" : v === null ? "null" : typeof v}`
            )
          )
    })

  /** An answer a pipeline reads, named by its operation. */
  const named = <A>(operation: TokenOperation, call: Effect.Effect<TokenResponse<A>, ServiceError>) =>
    Effect.map(call, (r) => ({ ...r, operation }))

  const R = TokenRequests
  return {
    /** Low-level: any token-host call, its body and query unchecked by type (tests, and operations before they get a method). */
    request,
    /** GET a `next`/`previous` link of an envelope (alerts, property pages, feed lists). */
    next: (url: string) => get(url, Env),
    /** GET a `next` link of a list, read through `operation`'s shape. */
    nextPage: (url: string, operation: TokenOperation) => list(operation, get(url, Schema.Unknown)),
    // Properties
    matchByListings: (body: TokenBody<"matchByListings">) =>
      named("match_by_listings", post("/api/v1/properties/match-by-listings", body, R.matchByListings, List)),
    propertyById: (propertyId: string | number, query: TokenBody<"propertyByIdQuery"> = {}) =>
      named("property_by_id", get(`/api/v1/properties/search/${seg(propertyId)}`, Env, query, R.propertyByIdQuery)),
    propertiesSearchV1: (body: TokenBody<"propertiesSearchV1">) =>
      list("properties_search", post("/api/v1/properties/search", body, R.propertiesSearchV1, Schema.Unknown)),
    propertiesSearchV2: (body: TokenBody<"propertiesSearchV2">) =>
      list("properties_search", post("/api/v2/properties/search", body, R.propertiesSearchV2, Schema.Unknown)),
    /** Follows a properties-search `next` link: the same body is POSTed to it (Assumed, docs/ASSUMPTIONS.md). */
    propertiesSearchNext: (nextUrl: string, body: TokenBody<"propertiesSearchV1"> | TokenBody<"propertiesSearchV2">) =>
      list("properties_search", post(nextUrl, body, undefined, Schema.Unknown, { operation: "POST /api/properties/search (next)" })),
    smartLink: (body: TokenBody<"smartLink">) => post("/api/v1/properties/smart-links", body, R.smartLink, Obj),
    // Comparables & valuation
    comparablesV1: (body: TokenBody<"comparablesV1">) => post("/api/v1/comparables/search", body, R.comparablesV1, Obj),
    comparablesV2: (body: TokenBody<"comparablesV2">) =>
      named("comparables_v2", post("/api/v2/comparables/search", body, R.comparablesV2, Obj)),
    /** Not shown by the spec: any keys, sent unchecked. */
    comparablesAiBuilder: (body: TokenBody<"comparablesAiBuilder">) => post("/api/v2/comparables/ai-builder", body, undefined, Obj),
    valuationPrices: (body: TokenBody<"valuationPrices">) => post("/api/v1/valuation/comparables-prices", body, R.valuationPrices, Obj),
    // Area insights
    /** 204 (no data) gives an empty list. */
    timeSeries: (body: TokenBody<"timeSeries">) =>
      list("market_time_series", post("/market-analytics-api/time-series", body, R.timeSeries, Schema.Unknown, { empty: [] })),
    distributionBedrooms: (body: TokenBody<"marketFilter">) =>
      list(
        "market_distribution_bedrooms",
        post("/market-analytics-api/distributions/bedrooms", body, R.marketFilter, Schema.Unknown, { empty: [] })
      ),
    distributionPrices: (body: TokenBody<"marketFilter">) =>
      list(
        "market_distribution_prices",
        post("/market-analytics-api/distributions/prices", body, R.marketFilter, Schema.Unknown, { empty: [] })
      ),
    distributionProperties: (body: TokenBody<"marketFilter">) =>
      record(
        "market_distribution_properties",
        post("/market-analytics-api/distributions/properties", body, R.marketFilter, Schema.Unknown)
      ),
    distributionTimeOnMarket: (body: TokenBody<"marketFilter">) =>
      list(
        "market_distribution_time_on_market",
        post("/market-analytics-api/distributions/time-on-market", body, R.marketFilter, Schema.Unknown, { empty: [] })
      ),
    analysis: (body: TokenBody<"marketFilter">) =>
      record("market_analysis", post("/market-analytics-api/analysis", body, R.marketFilter, Schema.Unknown)),
    // Alerts, legacy family
    legacyFeeds: () => list("legacy_feeds", get("/api/v1/listing-alerts/feeds", Schema.Unknown)),
    legacyFeedCreate: (body: TokenBody<"feed">) => post("/api/v1/listing-alerts/feeds", body, R.feed, Obj, { write: true }),
    legacyFeedAlerts: (feedId: string | number, query: TokenBody<"feedAlertsQuery"> = {}) =>
      list("alerts_feed", get(`/api/v1/listing-alerts/feeds/${seg(feedId)}`, Schema.Unknown, query, R.feedAlertsQuery)),
    legacyFeedDelete: (feedId: string | number) => request("DELETE", `/api/v1/listing-alerts/feeds/${seg(feedId)}`, { response: Obj }),
    legacyFeedUpdate: (feedId: string | number, body: TokenBody<"feed">) =>
      request("PUT", `/api/v1/listing-alerts/feeds/${seg(feedId)}/update`, { body, bodySchema: R.feed, response: Obj, write: true }),
    alertsSearch: (body: TokenBody<"alertsSearch">) =>
      list("alerts_search", post("/api/v1/listing-alerts/search", body, R.alertsSearch, Schema.Unknown)),
    /** Follows an alerts-search `next` link: the body POSTed to it (as properties search; Assumed, docs/ASSUMPTIONS.md). */
    alertsSearchNext: (nextUrl: string, body: TokenBody<"alertsSearch">) =>
      list("alerts_search", post(nextUrl, body, undefined, Schema.Unknown, { operation: "POST /api/v1/listing-alerts/search (next)" })),
    // Alerts, webhook family
    alertsApiFeeds: (query: TokenBody<"alertsApiFeedsQuery"> = {}) =>
      list("alerts_api_feeds", get("/alerts-api/feeds", Schema.Unknown, query, R.alertsApiFeedsQuery)),
    alertsApiFeedCreate: (body: TokenBody<"feed">) => post("/alerts-api/feeds", body, R.feed, Obj, { write: true }),
    alertsApiFeed: (feedId: string) => get(`/alerts-api/feeds/${seg(feedId)}`, Obj),
    alertsApiFeedDelete: (feedId: string) =>
      request("DELETE", `/alerts-api/feeds/${seg(feedId)}`, { response: Schema.Unknown, empty: null }),
    setWebhook: (body: TokenBody<"webhookUrl">) =>
      request("PUT", "/alerts-api/webhooks", { body, bodySchema: R.webhookUrl, response: Obj, write: true }),
    rotateSecret: (body: TokenBody<"rotateSecret"> = {}) =>
      post("/alerts-api/webhooks/rotate-secret", body, R.rotateSecret, S.RotatedSecret, { write: true }),
    // References
    referenceFeatures: () => named("references", get("/api/v1/references/features", List)),
    referenceSources: (locationId: TokenBody<"sourcesQuery">["locationId"]) =>
      named("references", get("/api/v1/references/sources", Obj, { locationId }, R.sourcesQuery)),
    referenceAgencies: () => named("references", get("/api/v1/references/agencies", List)),
    referenceAgents: () => named("references", get("/api/v1/references/agents", List)),
    referenceConditions: () => named("references", get("/api/v1/references/conditions", List)),
    referenceTypes: () => named("references", get("/api/v1/references/types", List)),
    referenceLocations: (body: TokenBody<"locations"> = {}) =>
      named("references", post("/api/v1/references/locations", body, R.locations, List)),
    locationByCoordinates: (latitude: number, longitude: number) =>
      named("references", get("/api/v1/references/locations/by-coordinates", Obj, { latitude, longitude }, R.byCoordinatesQuery)),
    typeahead: (body: TokenBody<"typeahead">) =>
      named("references", post("/api/v1/references/locations/typeahead", body, R.typeahead, List)),
    zipcodeBoundary: (body: TokenBody<"zipcodeBoundary">) =>
      named("references", post("/api/v1/references/zipcode-boundary", body, R.zipcodeBoundary, Obj)),
    /** HTTP attempts and retries; logins and refreshes. */
    stats: Effect.zipWith(transport.stats, session.stats, (t, s) => ({ ...t, ...s })),
    pacer: pacer.snapshot,
    logout: session.logout
  }
})

/** Needs an `HttpClient`, `ServiceSettings` and `RetryBudget` (wired in `ServiceLayer.clients`). */
export class TokenClient extends Effect.Service<TokenClient>()("service/TokenClient", {
  effect: makeTokenClient
}) {}
