/**
 * The webhook alerts family, `/alerts-api/...`: feeds that deliver matching events to the
 * account's webhook URL, the URL itself, and signing-secret rotation.
 *
 * Assumed (docs/ASSUMPTIONS.md): create `{name, filter}` -> 201 `{feed_id: "feed_<n>", name,
 * filter, created_at}` (the spec counts one 201 on the host; a create is the natural one); list
 * `{count, next, previous, results}` newest first; read answers the feed as created; delete
 * answers 204 (no body); an unknown feed is 404 `{detail}`; `PUT /alerts-api/webhooks` `{url}` ->
 * `{url}`.
 */
import { Effect } from "effect"
import type { SandboxContext } from "../SandboxContext.js"
import { notFoundDetail } from "./Errors.js"
import { type FeedFilter, checkFeedFilter } from "./FeedFilter.js"
import { type Handler, envelope, jsonBody, noContent, ok, pathParam, query, readPage } from "./Http.js"
import { Checker } from "./Validate.js"
import { webhookSecretStore } from "./WebhookSecrets.js"

/** A feed of the webhook family, as stored. */
export interface AlertsApiFeed {
  readonly feed_id: string
  readonly owner: string
  readonly name: string
  readonly filter: FeedFilter
  /** ISO date-time (UTC) on the sandbox clock. */
  readonly created_at: string
  readonly createdAtMs: number
}

export interface AlertsApiFeedStore {
  /** Feeds of an account, newest first. */
  readonly list: (owner: string) => ReadonlyArray<AlertsApiFeed>
  /** Every feed of every account (for webhook delivery). */
  readonly all: () => ReadonlyArray<AlertsApiFeed>
  readonly add: (owner: string, name: string, filter: FeedFilter) => AlertsApiFeed
  readonly get: (owner: string, feedId: string) => AlertsApiFeed | undefined
  readonly remove: (owner: string, feedId: string) => boolean
}

const feedStores = new WeakMap<object, AlertsApiFeedStore>()

/** The webhook-family feeds of one sandbox instance. */
export const alertsApiFeedStore = (ctx: SandboxContext): AlertsApiFeedStore => {
  const existing = feedStores.get(ctx)
  if (existing !== undefined) return existing
  const feeds: Array<AlertsApiFeed> = []
  let serial = 0
  const store: AlertsApiFeedStore = {
    list: (owner) => feeds.filter((f) => f.owner === owner).reverse(),
    all: () => [...feeds],
    add: (owner, name, filter) => {
      serial += 1
      const now = ctx.clock.now()
      const feed = { feed_id: `feed_${serial}`, owner, name, filter, created_at: new Date(now).toISOString(), createdAtMs: now }
      feeds.push(feed)
      return feed
    },
    get: (owner, feedId) => feeds.find((f) => f.owner === owner && f.feed_id === feedId),
    remove: (owner, feedId) => {
      const i = feeds.findIndex((f) => f.owner === owner && f.feed_id === feedId)
      if (i >= 0) feeds.splice(i, 1)
      return i >= 0
    }
  }
  feedStores.set(ctx, store)
  return store
}

const view = (f: AlertsApiFeed) => ({ feed_id: f.feed_id, name: f.name, filter: f.filter, created_at: f.created_at })

const feedNotFound = (id: string) => notFoundDetail(`Feed ${id} not found`)

export const makeAlertsApiHandlers = (ctx: SandboxContext) => {
  const store = alertsApiFeedStore(ctx)
  const secrets = webhookSecretStore(ctx)
  return {
    list: (owner: string): Handler =>
      Effect.gen(function* () {
        const q = yield* query
        const page = yield* readPage(q, "query")
        return ok(envelope(ctx, "/alerts-api/feeds", store.list(owner).map(view), page))
      }),
    create: (owner: string): Handler =>
      Effect.gen(function* () {
        const body = yield* jsonBody()
        const c = new Checker()
        const obj = c.body(body)
        const name = c.string(obj, "name", ["body"], { required: true, minLength: 1 })
        const filter = checkFeedFilter(c, obj, ["body"])
        yield* c.result
        return ok(view(store.add(owner, name!, filter ?? {})), 201)
      }),
    read: (owner: string): Handler =>
      Effect.gen(function* () {
        const id = yield* pathParam("feed_id")
        const feed = store.get(owner, id)
        if (feed === undefined) return yield* feedNotFound(id)
        return ok(view(feed))
      }),
    remove: (owner: string): Handler =>
      Effect.gen(function* () {
        const id = yield* pathParam("feed_id")
        if (!store.remove(owner, id)) return yield* feedNotFound(id)
        return noContent
      }),
    setWebhook: (owner: string): Handler =>
      Effect.gen(function* () {
        const body = yield* jsonBody()
        const c = new Checker()
        const obj = c.body(body)
        const url = c.string(obj, "url", ["body"], { required: true, maxLength: 2083 })
        if (url !== undefined && !/^https?:\/\/[^\s/]+/.test(url)) {
          c.add(["body", "url"], "url_parsing", "Input should be a valid URL", url, { error: "relative URL without a base" })
        }
        yield* c.result
        secrets.setUrl(owner, url!)
        return ok({ url })
      }),
    /** Spec: body required `{immediate: boolean = false}`; 200 `{secret}`; 422 on a bad body. */
    rotateSecret: (owner: string): Handler =>
      Effect.gen(function* () {
        const body = yield* jsonBody()
        const c = new Checker()
        const obj = c.body(body)
        const immediate = c.bool(obj, "immediate", ["body"])
        yield* c.result
        return ok({ secret: secrets.rotate(owner, immediate ?? false) })
      })
  }
}
