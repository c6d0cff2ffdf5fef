/**
 * alerts: incremental sync of legacy alert feeds (`GET /api/v1/listing-alerts/feeds/{id}`).
 * One slice per feed (`feed=<id>`; the feeds of the parameters, else every feed of the user),
 * each read through `created_at_from`/`created_at_to` windows (sent as the spec writes them,
 * `YYYY-MM-DDTHH:mm:ss` in UTC). A run reads [watermark - overlap, until) where the watermark is
 * the newest `created_at` landed so far (the slice's checkpoint), never this machine's clock: a
 * client clock ahead of or behind the service's skips nothing, and alerts stamped late within the
 * overlap are read again and merge by `alert_id` (a request on the unmetered host, no more). A
 * window whose count would need an offset past `max_offset` (the host's cap is 50000) is split in
 * halves until each fits. Lands `alerts` (merged by `alert_id`) and `alert_feed_links`.
 */
import { Effect, Schema } from "effect"
import { windows } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fanOut } from "../src/extract/Sources.js"
import { alertFeedLinksTable, alertRows, alertsTable, feedSliceKey } from "../src/normalize/records/AlertRows.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { Alert } from "../src/service/schema/Alert.js"
import { DateTime, intBetween, toSpecDateTime } from "../src/service/schema/Rules.js"
import { TokenClient } from "../src/service/TokenClient.js"
import { legacyFeedId } from "../src/service/schema/Feeds.js"
import { UnexpectedShape } from "../src/service/ServiceError.js"
import { bodyStart } from "../src/service/ResponseShape.js"

const Params = Schema.Struct({
  /** Legacy feed ids to sync. Default: every feed of the user (`GET .../feeds`). */
  feed_ids: Schema.optionalWith(Schema.Array(intBetween(1, 2147483647)), { default: () => [] }),
  /** Where a feed's very first run starts (`created_at`, UTC). Default 2000-01-01T00:00:00Z. */
  since: Schema.optionalWith(DateTime, { default: () => "2000-01-01T00:00:00Z" }),
  /**
   * The end of this run's range (`created_at`, UTC, exclusive). Default: this machine's clock
   * plus `lag_seconds`, only to bound the range; the next run starts from the newest alert
   * landed, not from here.
   */
  until: Schema.optional(DateTime),
  /** Seconds added to this machine's clock for the range's end (a service clock ahead of ours). 0..86400, default 60. */
  lag_seconds: Schema.optionalWith(intBetween(0, 86_400), { default: () => 60 }),
  /**
   * Assumed (the spec does not say how soon an alert is readable after its `created_at`): each run
   * starts this many seconds before the newest `created_at` landed, so alerts committed late are
   * not skipped; they merge by `alert_id`. 0..86400 s, default 600 (10 minutes).
   */
  overlap_seconds: Schema.optionalWith(intBetween(0, 86_400), { default: () => 600 }),
  /** Page size, 1..500 (Assumed maximum). Default 500. */
  page_size: Schema.optionalWith(intBetween(1, 500), { default: () => 500 }),
  /** Deepest offset a read may use; the host refuses offsets above 50000 (spec). Default 50000. */
  max_offset: Schema.optionalWith(intBetween(0, 50_000), { default: () => 50_000 })
})
type Params = typeof Params.Type

/** A UTC instant as `toISOString` writes it (a date-time without zone is read as UTC). */
const utc = (s: string) => `${toSpecDateTime(s)}.000Z`

/**
 * Feed ids of the parameters, else of the user's feed list: integers or strings holding one
 * (spec); a feed whose id is neither stops the run (`UnexpectedShape`), never a silent skip.
 */
const feedIds = (p: Params) =>
  p.feed_ids.length > 0
    ? Effect.succeed(p.feed_ids)
    : Effect.flatMap(TokenClient, (c) => c.legacyFeeds()).pipe(
        Effect.flatMap((r) => {
          const feeds = r.page.records as ReadonlyArray<{ id?: unknown } | null>
          const ids = feeds.map((f) => legacyFeedId(f?.id))
          const bad = feeds.filter((_, i) => ids[i] === undefined)
          return bad.length === 0
            ? Effect.succeed(ids as ReadonlyArray<number>)
            : Effect.fail(
                new UnexpectedShape({
                  operation: "legacy_feeds",
                  host: "token",
                  detail: `${bad.length} of ${feeds.length} feed(s) have no integer id (e.g. ${JSON.stringify(bad[0]?.id ?? null)}); name the feeds with feed_ids`,
                  bodyStart: bodyStart(r.raw)
                })
              )
        })
      )

export default definePipeline({
  name: "alerts",
  description: "Incremental sync of legacy alert feeds by created_at windows (alerts, alert_feed_links)",
  host: "token",
  params: Params,
  source: fanOut({
    keys: feedIds,
    key: feedSliceKey,
    pager: (feedId, p: Params) =>
      windows({
        limit: p.page_size,
        maxOffset: p.max_offset,
        initialFrom: utc(p.since),
        overlapMs: p.overlap_seconds * 1000,
        now: () => (p.until !== undefined ? utc(p.until) : new Date(Date.now() + p.lag_seconds * 1000).toISOString()),
        stampOf: (alert) => {
          const c = (alert as { created_at?: unknown } | null)?.created_at
          return typeof c === "string" ? utc(c) : undefined
        },
        fetch: ({ from, to, offset, limit }) =>
          Effect.flatMap(TokenClient, (c) =>
            // alert_id ascending: a stable order, so offset pages of a closed window never shift.
            c.legacyFeedAlerts(feedId, {
              limit,
              offset,
              order_by: "alert_id",
              created_at_from: toSpecDateTime(from),
              created_at_to: toSpecDateTime(to)
            })
          ).pipe(Effect.map((r) => pageOf(r))),
        follow: (next) => Effect.flatMap(TokenClient, (c) => c.nextPage(next, "alerts_feed")).pipe(Effect.map((r) => pageOf(r)))
      }),
    concurrency: 4
  }),
  cost: {
    operation: "alerts_feed",
    // Free on the token host. Pages depend on how many alerts arrived since the watermark.
    estimate: (p) =>
      Effect.map(feedIds(p), (ids) => ({
        requests: ids.length,
        exact: false,
        note: `at least one request per feed (${ids.length}); one more per ${p.page_size} new alerts, plus window splits`
      }))
  },
  tables: [alertsTable.spec, alertFeedLinksTable.spec],
  records: { table: "alerts", schema: Alert, toRows: alertRows },
  shardable: true
})
