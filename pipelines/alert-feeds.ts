/**
 * alert-feeds: the user's alert feeds of both families into `alert_feeds` (replaced each run):
 * the legacy feeds (`GET /api/v1/listing-alerts/feeds`, one list) and the webhook family's
 * (`GET /alerts-api/feeds`, envelope pages followed by `next`). `family` tells them apart;
 * `feed_id` is the legacy integer id as text or the `feed_<n>` id.
 */
import { Effect, Schema } from "effect"
import { cursor, single } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { AlertsApiFeed, LegacyFeed } from "../src/service/schema/Feeds.js"
import { intBetween } from "../src/service/schema/Rules.js"
import { TokenClient } from "../src/service/TokenClient.js"
import { IDS, STRINGS } from "../src/normalize/records/NestedTypes.js"

const Params = Schema.Struct({
  /** Page size of the webhook family's list, 1..500. Default 100. */
  page_size: Schema.optionalWith(intBetween(1, 500), { default: () => 100 })
})
type Params = typeof Params.Type

const FeedRecord = Schema.Union(
  Schema.Struct({ family: Schema.Literal("legacy"), feed: LegacyFeed }),
  Schema.Struct({ family: Schema.Literal("alerts_api"), feed: AlertsApiFeed })
)
type FeedRecord = typeof FeedRecord.Type

const KNOWN = new Set(["id", "feed_id", "name", "filter", "created_at"])
const feeds = flatTable.of<FeedRecord, PageContext>()(
  "alert_feeds",
  {
    family: "VARCHAR",
    feed_id: ["VARCHAR", (r) => (r.family === "legacy" ? String(r.feed.id) : r.feed.feed_id)],
    name: ["VARCHAR", (r) => r.feed.name],
    filter: ["JSON", (r) => r.feed.filter],
    location_ids: [IDS, (r) => r.feed.filter?.location_ids],
    alert_subtypes: [STRINGS, (r) => r.feed.filter?.alert_subtypes],
    created_at: ["TIMESTAMPTZ", (r) => r.feed.created_at],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt],
    extra: [
      "JSON",
      (r) => {
        const rest = Object.fromEntries(Object.entries(r.feed).filter(([k]) => !KNOWN.has(k)))
        return Object.keys(rest).length > 0 ? rest : null
      }
    ]
  },
  { primaryKey: ["family", "feed_id"], disposition: "replace" }
)

const tag = (family: FeedRecord["family"]) => (feed: unknown) => ({ family, feed })

export default definePipeline({
  name: "alert-feeds",
  description: "Alert feeds of both families (legacy and alerts-api) into alert_feeds",
  host: "token",
  params: Params,
  source: fanOut({
    keys: () => ["legacy", "alerts-api"] as const,
    key: (k) => k,
    pager: (k, p: Params) =>
      k === "legacy"
        ? single(() => Effect.flatMap(TokenClient, (c) => c.legacyFeeds()).pipe(Effect.map((r) => pageOf(r, tag("legacy")))))
        : cursor({
            first: () =>
              Effect.flatMap(TokenClient, (c) => c.alertsApiFeeds({ limit: p.page_size })).pipe(
                Effect.map((r) => pageOf(r, tag("alerts_api")))
              ),
            follow: (next) =>
              Effect.flatMap(TokenClient, (c) => c.nextPage(next, "alerts_api_feeds")).pipe(Effect.map((r) => pageOf(r, tag("alerts_api"))))
          }),
    concurrency: 2
  }),
  cost: {
    operation: "alert_feeds",
    estimate: (p) =>
      Effect.succeed({ requests: 2, exact: false, note: `one legacy list, then one page per ${p.page_size} alerts-api feeds` })
  },
  tables: [feeds.spec],
  records: { table: "alert_feeds", schema: FeedRecord, toRows: (r, ctx) => ({ alert_feeds: [feeds.row(r, ctx)] }) },
  shardable: false
})
