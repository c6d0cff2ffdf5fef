/**
 * Request plumbing shared by the token host's route families: reading JSON bodies and query
 * parameters, turning `TokenHostError`s into the spec's bodies, paging envelopes and links.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { activeDialect, capLimit, type ListKind, shapeList, stringifyWithBigInts } from "../Dialect.js"
import type { SandboxContext } from "../SandboxContext.js"
import { type TokenHostError, toResponse, unprocessableOne } from "./Errors.js"

export type Request = HttpServerRequest.HttpServerRequest | HttpServerRequest.ParsedSearchParams | HttpRouter.RouteContext

/** A route body: the JSON it answers with (200 unless a response is returned). */
export type Handler = Effect.Effect<HttpServerResponse.HttpServerResponse, TokenHostError, Request>

export const ok = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status })

/** `ok` for bodies that hold `bigint`s: written as exact JSON integers (`stringifyWithBigInts`). */
export const okExact = (body: unknown, status = 200) =>
  HttpServerResponse.text(stringifyWithBigInts(body), { status, contentType: "application/json" })

export const noContent = HttpServerResponse.empty({ status: 204 })

/** Turns the host's errors into their bodies; nothing else is expected to fail. */
export const respond = (h: Handler) => h.pipe(Effect.catchTag("TokenHostError", (e) => Effect.succeed(toResponse(e))))

/**
 * The JSON body, `undefined` when empty. Invalid JSON is a 422 `json_invalid` (FastAPI style);
 * `required` makes an empty body a 422 `missing` at `["body"]`.
 */
export const jsonBody = (required = true): Effect.Effect<unknown, TokenHostError, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const text = yield* req.text.pipe(Effect.orElseSucceed(() => ""))
    if (text.trim() === "") {
      if (required) return yield* unprocessableOne(["body"], "missing", "Field required", null)
      return undefined
    }
    try {
      return JSON.parse(text) as unknown
    } catch (e) {
      return yield* unprocessableOne(["body", 0], "json_invalid", "JSON decode error", {}, { error: String(e) })
    }
  })

/** Query parameters, first value of each. */
export const query: Effect.Effect<Record<string, string>, never, HttpServerRequest.ParsedSearchParams> = Effect.map(
  HttpServerRequest.ParsedSearchParams,
  (p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? "") : v]))
)

export const pathParam = (name: string): Effect.Effect<string, never, HttpRouter.RouteContext> =>
  Effect.map(HttpRouter.params, (p) => p[name] ?? "")

/** Assumed (docs/ASSUMPTIONS.md): list pages default to 50 records, at most 500. */
export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500
/** Spec: alert reads and property by id cap `offset` at 50000. */
export const MAX_OFFSET = 50000

export interface Page {
  readonly limit: number
  readonly offset: number
}

const intParam = (raw: string | undefined, name: string, min: number, max: number, dflt: number, loc: "query" | "body") => {
  if (raw === undefined || raw === "") return Effect.succeed(dflt)
  const n = Number(raw)
  if (!Number.isInteger(n)) {
    return Effect.fail(
      unprocessableOne([loc, name], "int_parsing", "Input should be a valid integer, unable to parse string as an integer", raw)
    )
  }
  if (n < min)
    return Effect.fail(
      unprocessableOne([loc, name], "greater_than_equal", `Input should be greater than or equal to ${min}`, raw, { ge: min })
    )
  if (n > max)
    return Effect.fail(unprocessableOne([loc, name], "less_than_equal", `Input should be less than or equal to ${max}`, raw, { le: max }))
  return Effect.succeed(n)
}

/**
 * `limit` and `offset` from query or body values. Out-of-range values are 422 (they are each a
 * field's own rule); `offset` above `maxOffset` is refused the same way.
 */
export const readPage = (
  values: { readonly limit?: unknown; readonly offset?: unknown },
  loc: "query" | "body",
  maxOffset = MAX_OFFSET
): Effect.Effect<Page, TokenHostError> =>
  Effect.all({
    limit: intParam(values.limit === undefined ? undefined : String(values.limit), "limit", 1, MAX_LIMIT, DEFAULT_LIMIT, loc),
    offset: intParam(values.offset === undefined ? undefined : String(values.offset), "offset", 0, maxOffset, 0, loc)
  })

/** A URL on the token host with the given query (values `undefined` left out). */
export const apiLink = (ctx: SandboxContext, path: string, params: Record<string, string | number | undefined>) => {
  const url = new URL(`${ctx.apiUrl().replace(/\/$/, "")}${path}`)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v))
  return url.toString()
}

/**
 * `next` and `previous` of an offset page that holds `returned` records: `next` resumes at
 * `offset + returned` (a dialect's `pageCap` may return fewer than `limit`), `previous` steps back
 * one page of the size actually served. Both carry the requested `limit` (plus `keep`).
 */
export const offsetLinks = (
  ctx: SandboxContext,
  path: string,
  page: Page,
  returned: number,
  total: number,
  keep: Record<string, string | number | undefined> = {},
  maxOffset = Number.MAX_SAFE_INTEGER
) => {
  const { limit, offset } = page
  const nextOffset = offset + returned
  const step = capLimit(activeDialect(ctx), limit)
  return {
    next: returned > 0 && nextOffset < total && nextOffset <= maxOffset ? apiLink(ctx, path, { ...keep, limit, offset: nextOffset }) : null,
    previous: offset > 0 ? apiLink(ctx, path, { ...keep, limit, offset: Math.max(0, offset - step) }) : null
  }
}

/**
 * The spec's `{count, next, previous, results}` envelope over an already filtered list, with
 * `next`/`previous` carrying `limit` and `offset` (plus `keep`, the other query parameters),
 * written in the active dialect (`kind`: whether the spec shows the payload, see `shapeList`).
 */
export const envelope = <A>(
  ctx: SandboxContext,
  path: string,
  all: ReadonlyArray<A>,
  page: Page,
  keep: Record<string, string | number | undefined> = {},
  kind: ListKind = "unshown"
) => {
  const dialect = activeDialect(ctx)
  const { limit, offset } = page
  const results = all.slice(offset, offset + capLimit(dialect, limit))
  const { next, previous } = offsetLinks(ctx, path, page, results.length, all.length, keep)
  return shapeList(dialect, { count: all.length, next, previous, results }, kind)
}
