/**
 * Property Sourcing on the platform host: structured search, plain-language describe, cursor
 * pages, property detail and resolve. Costs (Assumed, docs/ASSUMPTIONS.md): search 1, each
 * cursor page 1, describe 2, detail 1, resolve 1.
 */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { activeDialect, capLimit, isMissingKey, shapeList } from "../Dialect.js"
import { queryKey, staleOnce } from "../Paging.js"
import type { SandboxState } from "../SandboxState.js"
import type { SourcingFilter } from "../world/World.js"
import { jsonBody, operation, PlatformError, invalid, isObject } from "./PlatformRoute.js"
import { decodeCursor, encodeCursor, fnv } from "./SourcingCursor.js"
import { parseDescribe, parseSearch } from "./SourcingRequest.js"

export const SOURCING_COSTS = { search: 1, page: 1, describe: 2, detail: 1, resolve: 1 } as const

const PAGES_ROUTE = "GET /v1/property-sourcing/searches/{cursor}"

/** Assumed: an unknown id or a cursor this sandbox did not write answers 404 `not_found`. */
const notFound = (detail: string) => new PlatformError({ code: "not_found", detail })

/**
 * One page of a search from scan position `from`, with its `next` URL. The cursor keeps the
 * requested `limit`; a dialect's `pageCap` bounds each page, and `next` resumes after the last
 * result returned.
 */
export const sourcingPage = (state: SandboxState, filter: SourcingFilter, from: number, limit: number, at: number) => {
  const { world, driftRate } = state.ctx
  const dialect = activeDialect(state.ctx)
  const size = capLimit(dialect, limit)
  const page = world.searchProperties(filter, from, size, at)
  // Dialect `repeatPage` (Paging.ts): the page right after the first answers once with the first page's records.
  let first: typeof page | undefined
  const isSecond = () => {
    first = world.searchProperties(filter, 0, size, at)
    return page.results.length > 0 && first.nextFrom === from
  }
  const stale = from > 0 && staleOnce(state.ctx, queryKey(PAGES_ROUTE, filter), isSecond)
  const records = stale && first !== undefined ? first.results : page.results
  const rate = driftRate.platform
  const results = rate > 0 ? records.map((r) => world.drift(r, "sourcing", rate)) : records
  const next =
    page.nextFrom === null
      ? null
      : `${state.ctx.platformUrl()}/v1/property-sourcing/searches/${encodeCursor({ filter, from: page.nextFrom, limit, at })}`
  return shapeList(
    dialect,
    { search_id: `srch_${fnv(JSON.stringify(filter))}`, count: world.countProperties(filter, at), returned: results.length, results, next },
    "unshown"
  )
}

const detail = (state: SandboxState, index: number) => drifted(state, state.ctx.world.sourcingDetail(index, state.ctx.clock.now()))
const drifted = <A extends object>(state: SandboxState, d: A) => {
  const { world, driftRate } = state.ctx
  return driftRate.platform > 0 ? world.drift(d, "sourcing", driftRate.platform) : d
}

export const sourcingRoutes = (state: SandboxState) =>
  HttpRouter.empty.pipe(
    HttpRouter.post(
      "/v1/property-sourcing/searches",
      operation(state, { cost: SOURCING_COSTS.search }, () =>
        Effect.flatMap(Effect.flatMap(jsonBody, parseSearch), ({ filter, limit }) =>
          Effect.sync(() => sourcingPage(state, filter, 0, limit, state.ctx.clock.now()))
        )
      )
    ),
    HttpRouter.post(
      "/v1/property-sourcing/searches/describe",
      operation(state, { cost: SOURCING_COSTS.describe }, () =>
        Effect.flatMap(Effect.flatMap(jsonBody, parseDescribe), ({ filter, limit, tags }) =>
          Effect.sync(() => ({ ...sourcingPage(state, filter, 0, limit, state.ctx.clock.now()), tags }))
        )
      )
    ),
    HttpRouter.get(
      "/v1/property-sourcing/searches/:cursor",
      operation(state, { cost: SOURCING_COSTS.page }, () =>
        Effect.flatMap(HttpRouter.params, (params) => {
          const cursor = decodeCursor(params["cursor"] ?? "")
          return cursor === undefined
            ? Effect.fail(notFound("Unknown or malformed search cursor"))
            : Effect.sync(() => sourcingPage(state, cursor.filter, cursor.from, cursor.limit, cursor.at))
        })
      )
    ),
    HttpRouter.get(
      "/v1/property-sourcing/properties/:property_id",
      operation(state, { cost: SOURCING_COSTS.detail }, () =>
        Effect.flatMap(HttpRouter.params, (params) => {
          const id = params["property_id"] ?? ""
          const index = isMissingKey(activeDialect(state.ctx), id) ? undefined : state.ctx.world.indexOfSourcingId(id)
          return index === undefined
            ? Effect.fail(notFound(`No property ${params["property_id"]}`))
            : Effect.sync(() => detail(state, index))
        })
      )
    ),
    HttpRouter.post(
      "/v1/property-sourcing/properties/resolve",
      operation(state, { cost: SOURCING_COSTS.resolve }, () =>
        Effect.gen(function* () {
          const body = yield* jsonBody
          if (!isObject(body)) return yield* invalid("The body must be a JSON object")
          const given = (["url", "reference", "listing_id"] as const).filter((k) => body[k] !== undefined && body[k] !== null)
          const extra = Object.keys(body).filter((k) => k !== "url" && k !== "reference" && k !== "listing_id")
          if (extra.length > 0) return yield* invalid(`Unknown members: ${extra.join(", ")}`)
          if (given.length !== 1) return yield* invalid("Send exactly one of url, reference or listing_id")
          const by = given[0]!
          const value = body[by]
          const { world } = state.ctx
          let index: number | undefined
          if (by === "listing_id") {
            if (!Number.isInteger(value) || (value as number) < 1) return yield* invalid("listing_id must be a positive integer")
            index = world.indexOfListingId(value as number)
          } else {
            if (typeof value !== "string" || value.trim() === "") return yield* invalid(`${by} must be a non-empty string`)
            index = by === "url" ? world.resolveUrl(value) : world.resolveReference(value)
          }
          if (index === undefined) return yield* notFound(`No property matches the ${by}`)
          const property = world.sourcingDetail(index, state.ctx.clock.now())
          // Dialect `missingEvery`: a property missing by id is missing when resolved too.
          if (isMissingKey(activeDialect(state.ctx), property.id)) return yield* notFound(`No property matches the ${by}`)
          return { matched_by: by, property: drifted(state, property) }
        })
      )
    )
  )
