/**
 * High Potential Seller Leads: `GET /v1/seller-leads` (homes around a point whose asking price
 * was cut repeatedly) and `GET /v1/seller-leads/{lead_id}`.
 * Assumed (docs/ASSUMPTIONS.md): query parameters, response shapes and 1 unit per call.
 */
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { activeDialect, capLimit, isMissingKey, shapeList } from "../Dialect.js"
import { decodePageCursor, encodePageCursor, listOf, nextPosition, pagingMode, queryKey, readPage } from "../Paging.js"
import type { SandboxState } from "../SandboxState.js"
import type { SellerLeadQuery } from "../world/World.js"
import { invalid, operation, PlatformError, type PlatformError as E } from "./PlatformRoute.js"

export const LEADS_COST = { list: 1, detail: 1 } as const
export const LEADS_DEFAULT_LIMIT = 50
export const LEADS_MAX_LIMIT = 200
/** Assumed: query parameters outside this list are refused with 400 `invalid_request`. */
const KNOWN = new Set(["latitude", "longitude", "radius_km", "min_price_cuts", "min_price_cut_pct", "since", "limit", "offset"])

const numberParam = (
  q: URLSearchParams,
  name: string,
  min: number,
  max: number,
  dflt: number | undefined,
  integer = false
): Effect.Effect<number, E> => {
  const raw = q.get(name)
  if (raw === null || raw === "") {
    return dflt === undefined ? Effect.fail(invalid(`${name} is required`)) : Effect.succeed(dflt)
  }
  const n = Number(raw)
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)))
    return Effect.fail(invalid(`${name} must be ${integer ? "an integer" : "a number"}`))
  if (n < min || n > max) return Effect.fail(invalid(`${name} must be between ${min} and ${max}`))
  return Effect.succeed(n)
}

export const parseLeadQuery = (q: URLSearchParams) =>
  Effect.gen(function* () {
    const unknown = [...q.keys()].filter((k) => !KNOWN.has(k))
    if (unknown.length > 0) return yield* invalid(`Unknown parameters: ${unknown.join(", ")}`)
    const since = q.get("since") ?? undefined
    if (since !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(since)))) {
      return yield* invalid("since must be a date YYYY-MM-DD")
    }
    const query: SellerLeadQuery = {
      latitude: yield* numberParam(q, "latitude", -90, 90, undefined),
      longitude: yield* numberParam(q, "longitude", -180, 180, undefined),
      radius_km: yield* numberParam(q, "radius_km", 0.1, 50, 2),
      // Spec: at least `min_price_cuts` cuts (default 1) adding up to `min_price_cut_pct` percent (default 5).
      min_price_cuts: yield* numberParam(q, "min_price_cuts", 1, 1000, 1, true),
      min_price_cut_pct: yield* numberParam(q, "min_price_cut_pct", 0, 100, 5),
      ...(since !== undefined ? { since } : {})
    }
    const limit = yield* numberParam(q, "limit", 1, LEADS_MAX_LIMIT, LEADS_DEFAULT_LIMIT, true)
    const offset = yield* numberParam(q, "offset", 0, Number.MAX_SAFE_INTEGER, 0, true)
    return { query, limit, offset }
  })

const searchParams = Effect.map(HttpServerRequest.HttpServerRequest, (req) => {
  const i = req.url.indexOf("?")
  return new URLSearchParams(i === -1 ? "" : req.url.slice(i + 1))
})

const ROUTE = "GET /v1/seller-leads"

/**
 * One page of leads. Default: by `offset`, `next` carries the query, `limit` and the next
 * offset. Dialects (Paging.ts): `linkPaging` takes `cursor` instead (`next` carries it in place of
 * `offset`), `noPaging` answers the first page every time with `next` null; both accept and
 * drop a `cursor` parameter (the default refuses it as unknown). `repeatPage` and
 * `removeAfterFirstPage` apply.
 */
const list = (state: SandboxState, q: URLSearchParams) =>
  Effect.gen(function* () {
    const dialect = activeDialect(state.ctx)
    const mode = pagingMode(dialect)
    let position: number | undefined
    if (mode !== "offset") {
      const raw = q.get("cursor")
      q.delete("cursor")
      position = mode === "link" && raw !== null ? decodePageCursor(raw) : 0
      if (position === undefined) return yield* invalid("cursor is not a cursor of this service")
    }
    const { query, limit, offset } = yield* parseLeadQuery(q)
    const at = position ?? offset
    const { world, driftRate, clock } = state.ctx
    const all = world.sellerLeads({ ...query, nowMs: clock.now() })
    const key = queryKey(ROUTE, Object.fromEntries(q))
    const page = readPage(state.ctx, listOf(all), { key, offset: at, limit: capLimit(dialect, limit), idOf: (l) => l.id })
    const results = driftRate.platform > 0 ? page.results.map((l) => world.drift(l, "lead", driftRate.platform)) : page.results
    // `next` continues after what this page holds (a capped page holds fewer than `limit`).
    const nextAt = mode === "none" ? null : nextPosition(at, results.length, page.count)
    let next: string | null = null
    if (nextAt !== null) {
      const u = new URL(`${state.ctx.platformUrl()}/v1/seller-leads`)
      for (const [k, v] of Object.entries(query)) u.searchParams.set(k, String(v))
      u.searchParams.set("limit", String(limit))
      if (mode === "link") u.searchParams.set("cursor", encodePageCursor(nextAt, key))
      else u.searchParams.set("offset", String(nextAt))
      next = u.toString()
    }
    return shapeList(dialect, { count: page.count, returned: results.length, results, next }, "unshown")
  })

export const sellerLeadRoutes = (state: SandboxState) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/v1/seller-leads",
      operation(state, { cost: LEADS_COST.list }, () => Effect.flatMap(searchParams, (q) => list(state, q)))
    ),
    HttpRouter.get(
      "/v1/seller-leads/:lead_id",
      operation(state, { cost: LEADS_COST.detail }, () =>
        Effect.flatMap(HttpRouter.params, (params) => {
          const { world, driftRate, clock } = state.ctx
          const id = params["lead_id"] ?? ""
          const lead = isMissingKey(activeDialect(state.ctx), id) ? undefined : world.lead(id, clock.now())
          if (lead === undefined) return Effect.fail(new PlatformError({ code: "not_found", detail: `No lead ${params["lead_id"]}` }))
          return Effect.succeed(driftRate.platform > 0 ? world.drift(lead, "lead", driftRate.platform) : lead)
        })
      )
    )
  )
