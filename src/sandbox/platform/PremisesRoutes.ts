/**
 * Premises search, `POST /v1/ai/search` (40 units per successful call; scope `ai:read` for
 * OAuth tokens). Other methods on the path answer 405 `method_not_allowed`.
 */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { activeDialect, capLimit, shapeList } from "../Dialect.js"
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

/** The body accepts any keys; the ones the sandbox filters on are checked for type. */
const parsePremises = (body: unknown, pageDepth: number) =>
  Effect.gen(function* () {
    if (body !== undefined && !isObject(body)) return yield* invalid("The body must be a JSON object")
    const b = body ?? {}
    const limit = yield* intField(b["limit"], "limit", 1, PREMISES_MAX_LIMIT, PREMISES_DEFAULT_LIMIT)
    const offset = yield* intField(b["offset"], "offset", 0, Number.MAX_SAFE_INTEGER, 0)
    if (offset + limit > pageDepth) {
      return yield* new PlatformError({
        code: "page_depth_exceeded",
        detail: `offset + limit may not exceed ${pageDepth} on this plan (got ${offset + limit})`
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
    return { query: query as PremisesQuery, limit, offset }
  })

export const premisesRoutes = (state: SandboxState) => {
  const notAllowed = methodNotAllowed(state, "POST")
  return HttpRouter.empty.pipe(
    HttpRouter.post(
      "/v1/ai/search",
      operation(state, { cost: PREMISES_COST, specCost: true, scope: "ai:read" }, () =>
        Effect.flatMap(jsonBody, (body) =>
          Effect.map(parsePremises(body, state.config.premisesPageDepth), ({ query, limit, offset }) => {
            const { world, driftRate } = state.ctx
            const dialect = activeDialect(state.ctx)
            const all = world.searchPremises(query)
            const page = all.slice(offset, offset + capLimit(dialect, limit))
            const results = driftRate.platform > 0 ? page.map((r) => world.drift(r, "premises", driftRate.platform)) : page
            return shapeList(dialect, { query, count: all.length, returned: results.length, offset, results }, "unshown")
          })
        )
      )
    ),
    HttpRouter.get("/v1/ai/search", notAllowed),
    HttpRouter.put("/v1/ai/search", notAllowed),
    HttpRouter.patch("/v1/ai/search", notAllowed),
    HttpRouter.del("/v1/ai/search", notAllowed)
  )
}
