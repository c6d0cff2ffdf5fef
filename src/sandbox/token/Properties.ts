/**
 * Properties on the token host: get by id, match by listings, searches v1 (offset) and v2
 * (cursor), smart links.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { Operation, PROPERTY_TYPES, SmartLinkComponent, SmartLinkLanguage, TYPE_GROUPS, commonGroup } from "../../service/schema/Enums.js"
import { activeDialect, capLimit, isMissingKey, shapeList } from "../Dialect.js"
import { queryKey, staleOnce } from "../Paging.js"
import type { SandboxContext } from "../SandboxContext.js"
import type { PropertyRecord } from "../world/Records.js"
import { notFoundDetail, unprocessableOne } from "./Errors.js"
import { type Handler, MAX_LIMIT, MAX_OFFSET, apiLink, jsonBody, offsetLinks, ok, pathParam, query, readPage } from "./Http.js"
import { Checker, type Json } from "./Validate.js"

const INT32 = 2147483647

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const URI_RE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i

/** v2 cursor: an opaque base64url of the scan position. Assumed: positions never expire. */
const encodeCursor = (position: number) => Buffer.from(`pos:${position}`).toString("base64url")
const decodeCursor = (cursor: string) => {
  const m = /^pos:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  return m === null ? undefined : Number(m[1])
}

/** Whether a page at `position` is the one right after a first page of `size` records, inside the list. */
const isSecond = (position: number, size: number, count: number) => position > 0 && position === size && position < count

export const makePropertiesHandlers = (ctx: SandboxContext) => {
  const drift = (p: PropertyRecord) => (ctx.driftRate.token > 0 ? ctx.world.drift(p, "property", ctx.driftRate.token) : p)

  /** The search body shared by v1 and v2 (docs/ASSUMPTIONS.md); v1 also reads `offset`. */
  const checkSearch = (raw: unknown) => {
    const c = new Checker()
    const body = c.body(raw, {})
    const L = ["body"]
    const location_ids = c.ints(body, "location_ids", L, { ge: 1, le: INT32 }, { minItems: 1 })
    const types = c.literals(body, "types", L, PROPERTY_TYPES, { minItems: 1 })
    if (types !== undefined && types.length > 0 && commonGroup(types, TYPE_GROUPS) === undefined) {
      c.rule("types: choose property types of one type group only")
    }
    const operation = c.literal(body, "operation", L, Operation.values)
    const min_price = c.int(body, "min_price", L, { ge: 0, le: INT32 })
    const max_price = c.int(body, "max_price", L, { ge: 1, le: INT32 })
    if (typeof min_price === "number" && typeof max_price === "number" && min_price > max_price) {
      c.rule("max_price must not be below min_price")
    }
    const num = (v: number | null | undefined) => (typeof v === "number" ? v : undefined)
    return Effect.as(c.result, {
      body: body ?? {},
      filter: { location_ids, types, operation, min_price: num(min_price), max_price: num(max_price) }
    })
  }

  return {
    /** Spec: the envelope with `results` = the property; `offset` at most 50000. */
    byId: (): Handler =>
      Effect.gen(function* () {
        const raw = yield* pathParam("property_id")
        yield* readPage(yield* query, "query")
        const missing = isMissingKey(activeDialect(ctx), raw)
        const p = /^\d+$/.test(raw) && !missing ? ctx.world.propertyById(Number(raw), ctx.clock.now()) : undefined
        if (p === undefined) return yield* notFoundDetail(`Property ${raw} not found`)
        return ok({ count: 1, next: null, previous: null, results: drift(p) })
      }),

    /** Spec: `listing_ids` required, at most 100 items, each 1..2147483647; unknown ids are left out. */
    matchByListings: (): Handler =>
      Effect.gen(function* () {
        const raw = yield* jsonBody()
        const c = new Checker()
        const body = c.body(raw)
        const ids = c.ints(body, "listing_ids", ["body"], { ge: 1, le: INT32 }, { required: true, maxItems: 100 })
        yield* c.result
        return ok(ctx.world.matchListings(ids!))
      }),

    /** v1: `limit`/`offset` from the query (the `next` link) or the body; offset at most 50000. */
    searchV1: (): Handler =>
      Effect.gen(function* () {
        const { body, filter } = yield* Effect.flatMap(jsonBody(false), checkSearch)
        const q = yield* query
        const fromQuery = q.limit !== undefined || q.offset !== undefined
        const page = yield* readPage({ limit: q.limit ?? body.limit, offset: q.offset ?? body.offset }, fromQuery ? "query" : "body")
        const now = ctx.clock.now()
        const dialect = activeDialect(ctx)
        const matches = ctx.world.tokenSearch(filter, now)
        const { offset } = page
        const size = capLimit(dialect, page.limit)
        // Dialect `repeatPage` (Paging.ts): the second page answers once with the first page's records.
        const stale = staleOnce(ctx, queryKey("POST /api/v1/properties/search", { ...body, ...q }), () =>
          isSecond(offset, size, matches.length)
        )
        const from = stale ? 0 : offset
        const results = Array.from(matches.subarray(from, from + size), (i) => drift(ctx.world.property(i, now)))
        const links = offsetLinks(ctx, "/api/v1/properties/search", page, results.length, matches.length, {}, MAX_OFFSET)
        return ok(shapeList(dialect, { count: matches.length, ...links, results }, "unshown"))
      }),

    /** v2: `next` carries `?cursor=` (and `limit`); no offset cap. `previous` is always null. */
    searchV2: (): Handler =>
      Effect.gen(function* () {
        const { body, filter } = yield* Effect.flatMap(jsonBody(false), checkSearch)
        const q = yield* query
        const page = yield* readPage({ limit: q.limit ?? body.limit }, q.limit !== undefined ? "query" : "body")
        let position = 0
        if (q.cursor !== undefined) {
          const p = decodeCursor(q.cursor)
          if (p === undefined)
            return yield* unprocessableOne(["query", "cursor"], "value_error", "Value error, invalid cursor", q.cursor, {
              error: "invalid cursor"
            })
          position = p
        }
        const now = ctx.clock.now()
        const dialect = activeDialect(ctx)
        const matches = ctx.world.tokenSearch(filter, now)
        const limit = Math.min(page.limit, MAX_LIMIT)
        const size = capLimit(dialect, limit)
        const key = queryKey("POST /api/v2/properties/search", { ...body, ...q })
        const from = staleOnce(ctx, key, () => isSecond(position, size, matches.length)) ? 0 : position
        const results = Array.from(matches.subarray(from, from + size), (i) => drift(ctx.world.property(i, now)))
        // The cursor resumes after the last result served (a capped page holds fewer than `limit`).
        const nextPos = position + results.length
        return ok(
          shapeList(
            dialect,
            {
              count: matches.length,
              next:
                results.length > 0 && nextPos < matches.length
                  ? apiLink(ctx, "/api/v2/properties/search", { limit, cursor: encodeCursor(nextPos) })
                  : null,
              previous: null,
              results
            },
            "unshown"
          )
        )
      }),

    /** Spec (beta): every rule of the smart-links table; 200 `{id, url}`. */
    smartLinks: (owner: string): Handler =>
      Effect.gen(function* () {
        const raw = yield* jsonBody()
        const c = new Checker()
        const body = c.body(raw)
        const L = ["body"]
        const ids = c.ints(body, "primary_listing_ids", L, { ge: 1, le: INT32 }, { required: true, minItems: 1, maxItems: 10 })
        const settings = c.object(body, "settings", L, { required: true })
        const S = [...L, "settings"]
        c.literal(settings, "language", S, SmartLinkLanguage.values, { required: settings !== undefined })
        c.bool(settings, "is_indexing_by_search_engine", S)
        c.bool(settings, "is_hide_source", S)
        c.string(settings, "brand_color", S, { maxLength: 9 })
        c.literals(settings, "components_to_include", S, SmartLinkComponent.values)
        const user = c.object(body, "user", L, { required: true })
        const U = [...L, "user"]
        for (const k of ["first_name", "last_name", "phone"]) c.string(user, k, U, { required: user !== undefined })
        const email = c.string(user, "email", U, { required: user !== undefined })
        if (email !== undefined && !EMAIL_RE.test(email)) {
          c.add([...U, "email"], "value_error", "value is not a valid email address: An email address must have an @-sign.", email, {
            reason: "invalid email"
          })
        }
        const uri = (o: Json | undefined, k: string, at: Array<string>) => {
          const v = c.string(o, k, at)
          if (v !== undefined && !URI_RE.test(v))
            c.add([...at, k], "url_parsing", "Input should be a valid URL", v, { error: "relative URL without a base" })
        }
        uri(user, "photo_url", U)
        c.string(user, "about_me", U)
        const company = c.object(body, "company", L, { nullable: true })
        const C = [...L, "company"]
        c.string(company, "name", C, { required: company !== undefined })
        uri(company, "logo_url", C)
        yield* c.result
        const id = createHash("sha256")
          .update(`smart-link:${ctx.seed}:${owner}:${JSON.stringify(ids)}:${ctx.clock.now()}`)
          .digest("hex")
          .slice(0, 16)
        // Assumed: the link's URL is `<api_url>/smart-links/<id>` (the real page host is not shown).
        return ok({ id, url: apiLink(ctx, `/smart-links/${id}`, {}) })
      })
  }
}
