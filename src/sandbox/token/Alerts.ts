/**
 * The legacy alerts family, `/api/v1/listing-alerts/...`: feeds of the current user (kept in
 * memory per sandbox instance) and paginated alert reads over the world's alerts up to the
 * sandbox clock's now.
 *
 * Assumed (docs/ASSUMPTIONS.md "Legacy feed"): create/update body `{name, filter}`; a feed is
 * `{id, name, filter, created_at}`; list answers an array. Update takes the create body with
 * every member optional; an absent member keeps its value. Create answers 200 (the spec's one
 * 201 is given to the webhook family's create). Unknown feed ids, also non-numeric ones, are
 * 404 `{errors: {id: [...]}}` on read, update and delete.
 */
import { Effect } from "effect"
import { AlertOrderBy } from "../../service/schema/Enums.js"
import { activeDialect, capLimit, shapeList, withBigAlertId } from "../Dialect.js"
import { queryKey, readPage } from "../Paging.js"
import type { SandboxContext } from "../SandboxContext.js"
import { notFound } from "./Errors.js"
import { type FeedFilter, applyOverrides, checkFeedFilter, checkFilterFields, toAlertQuery } from "./FeedFilter.js"
import type { AlertRecord } from "../world/Records.js"
import { type Handler, MAX_OFFSET, jsonBody, offsetLinks, ok, okExact, pathParam, query, readPage as readLimitOffset } from "./Http.js"
import { Checker } from "./Validate.js"
import type { Page } from "./Http.js"

export interface LegacyFeed {
  readonly id: number
  readonly name: string
  readonly filter: FeedFilter
  readonly created_at: string
}

const READ_PARAMS = [
  "order_by",
  "alert_date_from",
  "alert_date_to",
  "created_at_from",
  "created_at_to",
  "created_at_with_photos_from",
  "created_at_with_photos_to",
  "alert_subtype"
] as const

export const makeAlertsHandlers = (ctx: SandboxContext) => {
  const feeds = new Map<string, Map<number, LegacyFeed>>()
  let serial = 0
  const feedsOf = (owner: string) => {
    let m = feeds.get(owner)
    if (m === undefined) {
      feeds.set(owner, (m = new Map()))
      for (const f of ctx.initialFeeds ?? []) {
        serial += 1
        m.set(serial, { id: serial, name: f.name, filter: f.filter as FeedFilter, created_at: new Date(ctx.clock.now()).toISOString() })
      }
    }
    return m
  }
  const feedParam = (owner: string) =>
    Effect.flatMap(pathParam("id"), (raw) => {
      const feed = /^\d+$/.test(raw) ? feedsOf(owner).get(Number(raw)) : undefined
      return feed === undefined ? Effect.fail(notFound("id", `Feed ${raw} not found.`)) : Effect.succeed(feed)
    })

  /** Dialect `stringIds`: a feed record with `id` as a string of digits. */
  const present = (feed: LegacyFeed) => (activeDialect(ctx).stringIds ? { ...feed, id: String(feed.id) } : feed)

  /**
   * One page of the world's alerts under a filter, as the spec's envelope (in the active
   * dialect), answered. `key`: the query, for `repeatPage` and `removeAfterFirstPage`
   * (Paging.ts); under `bigIds` the alert ids are exact integers beyond 2^53.
   */
  const alertPage = (
    path: string,
    filter: FeedFilter,
    page: Page,
    orderBy: string | undefined,
    keep: Record<string, string>,
    key: string
  ) => {
    const dialect = activeDialect(ctx)
    const now = ctx.clock.now()
    const fetch = (offset: number, limit: number) =>
      ctx.world.alerts(toAlertQuery(filter, now, { limit, offset }, orderBy, dialect.strictDateTime))
    const served = { key, offset: page.offset, limit: capLimit(dialect, page.limit), idOf: (a: AlertRecord) => String(a.alert_id) }
    const { count, results } = readPage(ctx, fetch, served)
    const drifted = ctx.driftRate.token > 0 ? results.map((a) => ctx.world.drift(a, "alert", ctx.driftRate.token)) : results
    const { next, previous } = offsetLinks(ctx, path, page, results.length, count, keep, MAX_OFFSET)
    if (!dialect.bigIds) return ok(shapeList(dialect, { count, next, previous, results: drifted }, "shown"))
    return okExact(shapeList(dialect, { count, next, previous, results: drifted.map(withBigAlertId) }, "shown"))
  }

  const checkFeedBody = (partial: boolean) =>
    Effect.gen(function* () {
      const body = yield* jsonBody()
      const c = new Checker()
      const obj = c.body(body)
      const name = c.string(obj, "name", ["body"], { required: !partial, minLength: 1 })
      const filter = checkFeedFilter(c, obj, ["body"])
      yield* c.result
      return { name, filter }
    })

  return {
    list: (owner: string): Handler => Effect.sync(() => ok([...feedsOf(owner).values()].map(present))),
    create: (owner: string): Handler =>
      Effect.gen(function* () {
        const { name, filter } = yield* checkFeedBody(false)
        serial += 1
        const feed: LegacyFeed = { id: serial, name: name!, filter: filter ?? {}, created_at: new Date(ctx.clock.now()).toISOString() }
        feedsOf(owner).set(feed.id, feed)
        return ok(present(feed))
      }),
    update: (owner: string): Handler =>
      Effect.gen(function* () {
        const feed = yield* feedParam(owner)
        const { name, filter } = yield* checkFeedBody(true)
        const updated: LegacyFeed = { ...feed, name: name ?? feed.name, filter: filter ?? feed.filter }
        feedsOf(owner).set(feed.id, updated)
        return ok(present(updated))
      }),
    remove: (owner: string): Handler =>
      Effect.gen(function* () {
        const feed = yield* feedParam(owner)
        feedsOf(owner).delete(feed.id)
        return ok({ success: true })
      }),
    /**
     * Alerts of a feed. `limit`/`offset` out of range (offset above 50000) are 422; the window
     * parameters and `alert_subtype` override the feed filter, invalid values ignored (spec).
     * Assumed: an unknown `order_by` is ignored too (default `-alert_date`).
     */
    read: (owner: string): Handler =>
      Effect.gen(function* () {
        const feed = yield* feedParam(owner)
        const q = yield* query
        const page = yield* readLimitOffset(q, "query")
        const orderBy = (AlertOrderBy.values as ReadonlyArray<string>).includes(q.order_by ?? "") ? q.order_by : "-alert_date"
        const keep = Object.fromEntries(READ_PARAMS.filter((k) => q[k] !== undefined).map((k) => [k, q[k]!]))
        const filter = applyOverrides(feed.filter, q, activeDialect(ctx).strictDateTime)
        const key = queryKey("GET /api/v1/listing-alerts/feeds/{id}", { ...q, feed: feed.id })
        return alertPage(`/api/v1/listing-alerts/feeds/${feed.id}`, filter, page, orderBy, keep, key)
      }),
    /**
     * Assumed (docs/ASSUMPTIONS.md): body `{location_ids?, alert_subtypes?, alert_date_from?,
     * alert_date_to?, created_at_from?, created_at_to?, limit?, offset?}` (also the other filter
     * members); `next` carries `?limit=&offset=`, which win over the body's when present.
     */
    search: (_owner: string): Handler =>
      Effect.gen(function* () {
        const body = yield* jsonBody(false)
        const c = new Checker()
        const obj = c.body(body, {})
        const filter = checkFilterFields(c, obj ?? {}, ["body"])
        yield* c.result
        const q = yield* query
        const page = yield* readLimitOffset(
          { limit: q.limit ?? obj?.limit, offset: q.offset ?? obj?.offset },
          q.limit !== undefined || q.offset !== undefined ? "query" : "body"
        )
        const key = queryKey("POST /api/v1/listing-alerts/search", { ...obj, ...q })
        return alertPage("/api/v1/listing-alerts/search", filter, page, "-alert_date", {}, key)
      })
  }
}
