/**
 * Premises search, `POST /v1/ai/search` (40 units per successful call; scope `ai:read` for
 * OAuth tokens). Other methods on the path answer 405 `method_not_allowed`.
 */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { activeDialect, capLimit, shapeList } from "../Dialect.js"
import { decodePageCursor, encodePageCursor, listOf, nextPosition, pagingMode, queryKey, readPage } from "../Paging.js"
import type { SandboxState } from "../SandboxState.js"
import type { PremisesQuery } from "../world/World.js"
import { intField, invalid, isObject, jsonBody, methodNotAllowed, operation, PlatformError } from "./PlatformRoute.js"

/** Spec: 40 units per successful call; `limit` at most 200. */
export const PREMISES_COST = 40
export const PREMISES_MAX_LIMIT = 200
/** Assumed (docs/ASSUMPTIONS.md): default page size 20. */
export const PREMISES_DEFAULT_LIMIT = 20
/** Spec: premises search interface version (the spec names no header that carries it). */
export const PREMISES_VERSION = "2026-10-15.6"

const optString = (v: unknown, name: string) =>
  v === undefined || typeof v === "string" ? Effect.succeed(v) : Effect.fail(invalid(`${name} must be a string`))
const optNumber = (v: unknown, name: string) =>
  v === undefined || (typeof v === "number" && Number.isFinite(v)) ? Effect.succeed(v) : Effect.fail(invalid(`${name} must be a number`))

/**
 * The body accepts any keys; the ones the sandbox filters on are checked for type. `position`:
 * where the page starts when the dialect does not page by `offset` (`offset` is then ignored).
 */
const parsePremises = (body: unknown, pageDepth: number, position: number | undefined) =>
  Effect.gen(function* () {
    if (body !== undefined && !isObject(body)) return yield* invalid("The body must be a JSON object")
    const b = body ?? {}
    const limit = yield* intField(b["limit"], "limit", 1, PREMISES_MAX_LIMIT, PREMISES_DEFAULT_LIMIT)
    const offset = yield* intField(b["offset"], "offset", 0, Number.MAX_SAFE_INTEGER, 0)
    const at = position ?? offset
    if (at + limit > pageDepth) {
      return yield* new PlatformError({
        code: "page_depth_exceeded",
        detail: `${position === undefined ? "offset" : "The page's position"} + limit may not exceed ${pageDepth} on this plan (got ${at + limit})`
      })
    }
    const op = b["operation"]
    if (op !== undefined && op !== "sale" && op !== "rent") return yield* invalid("operation must be sale or rent")
    const types = b["premises_types"]
    if (types !== undefined && !(Array.isArray(types) && types.every((t) => typeof t === "string"))) {
      return yield* invalid("premises_types must be a list of strings")
    }
    const query: Record<string, unknown> = {
      query: yield* optString(b["query"], "query"),
      municipality: yield* optString(b["municipality"], "municipality"),
      province: yield* optString(b["province"], "province"),
      operation: op,
      premises_types: types,
      min_price: yield* optNumber(b["min_price"], "min_price"),
      max_price: yield* optNumber(b["max_price"], "max_price"),
      min_area: yield* optNumber(b["min_area"], "min_area"),
      max_area: yield* optNumber(b["max_area"], "max_area")
    }
    for (const k of Object.keys(query)) if (query[k] === undefined) delete query[k]
    return { query: query as PremisesQuery, limit, offset, at }
  })

/** Dialect `linkPaging`: the position of the request's `?cursor=` (0 without one). */
const cursorPosition = Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) => {
  const raw = new URL(req.url, "http://sandbox").searchParams.get("cursor")
  const position = raw === null ? 0 : decodePageCursor(raw)
  return position === undefined ? Effect.fail(invalid("cursor is not a cursor of this service")) : Effect.succeed(position)
})

const ROUTE = "POST /v1/ai/search"

/**
 * One page. Default: by `offset`, echoed. Dialects (Paging.ts): `linkPaging` pages by `next`
 * links (`?cursor=`, POSTed with the same body) and drops `offset`; `noPaging` answers the first
 * page every time, without `offset`; `repeatPage` and `removeAfterFirstPage` apply.
 */
const search = (state: SandboxState) =>
  Effect.gen(function* () {
    const body = yield* jsonBody
    const dialect = activeDialect(state.ctx)
    const mode = pagingMode(dialect)
    const position = mode === "link" ? yield* cursorPosition : mode === "none" ? 0 : undefined
    const { query, limit, offset, at } = yield* parsePremises(body, dialect.pageDepth ?? state.config.premisesPageDepth, position)
    const { world, driftRate } = state.ctx
    const key = queryKey(ROUTE, body)
    const all = world.searchPremises(query)
    const page = readPage(state.ctx, listOf(all), { key, offset: at, limit: capLimit(dialect, limit), idOf: (r) => r.id })
    const results = driftRate.platform > 0 ? page.results.map((r) => world.drift(r, "premises", driftRate.platform)) : page.results
    const head = { query, count: page.count, returned: results.length }
    if (mode === "offset") return shapeList(dialect, { ...head, offset, results }, "unshown")
    if (mode === "none") return shapeList(dialect, { ...head, results }, "unshown")
    const next = nextPosition(at, results.length, page.count)
    const link = next === null ? null : `${state.ctx.platformUrl()}/v1/ai/search?cursor=${encodePageCursor(next, key)}`
    return shapeList(dialect, { ...head, results, next: link }, "unshown")
  })

export const premisesRoutes = (state: SandboxState) => {
  const notAllowed = methodNotAllowed(state, "POST")
  return HttpRouter.empty.pipe(
    HttpRouter.post(
      "/v1/ai/search",
      operation(state, { cost: PREMISES_COST, specCost: true, scope: "ai:read" }, () => search(state))
    ),
    HttpRouter.get("/v1/ai/search", notAllowed),
    HttpRouter.put("/v1/ai/search", notAllowed),
    HttpRouter.patch("/v1/ai/search", notAllowed),
    HttpRouter.del("/v1/ai/search", notAllowed)
  )
}
