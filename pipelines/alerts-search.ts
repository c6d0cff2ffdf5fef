/**
 * alerts-search: the legacy alerts search (`POST /api/v1/listing-alerts/search`) with a body
 * from the parameters, in offset pages. Alerts land in the same `alerts` table as the feed sync
 * (`pipelines/alerts.ts`): the record is the same, and merging by `alert_id` keeps one row per
 * alert whichever read found it (a search is not a feed, so no `alert_feed_links`).
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { paged, pagesOf } from "../src/extract/Sources.js"
import { alertRows, alertsTable } from "../src/normalize/records/AlertRows.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { Alert, AlertSearchFilter } from "../src/service/schema/Alert.js"
import { intBetween, toSpecDateTime } from "../src/service/schema/Rules.js"
import { TokenClient } from "../src/service/TokenClient.js"

/** The host refuses offsets above 50000 (spec). */
const MAX_OFFSET = 50_000

const Params = Schema.Struct({
  /** The search body less `limit`/`offset` (set per page): location ids, subtypes, date windows. */
  search: Schema.optionalWith(AlertSearchFilter, { default: () => ({}) }),
  /** Page size, 1..500 (Assumed maximum). Default 500. */
  page_size: Schema.optionalWith(intBetween(1, 500), { default: () => 500 }),
  /** At most this many pages: a sample (`--sample`; otherwise a cut read is incomplete). Default none (the 50000 offset cap bounds it). */
  max_pages: Schema.optional(intBetween(1, 10_000))
})
type Params = typeof Params.Type

const deepest = (p: Params) => Math.min(MAX_OFFSET, p.max_pages === undefined ? Infinity : (p.max_pages - 1) * p.page_size)
/** The body as sent: date-times in the spec's form (`YYYY-MM-DDTHH:mm:ss`, UTC). */
const specBody = <B extends AlertSearchFilter>(body: B) => ({
  ...body,
  ...(body.created_at_from !== undefined ? { created_at_from: toSpecDateTime(body.created_at_from) } : {}),
  ...(body.created_at_to !== undefined ? { created_at_to: toSpecDateTime(body.created_at_to) } : {})
})
const search = (body: AlertSearchFilter & { limit: number; offset: number }) =>
  Effect.flatMap(TokenClient, (c) => c.alertsSearch(specBody(body)))

export default definePipeline({
  name: "alerts-search",
  description: "Legacy alerts search by a body of filters, offset pages, into alerts",
  host: "token",
  params: Params,
  source: paged((p: Params) =>
    offset({
      limit: p.page_size,
      maxPages: p.max_pages,
      maxOffset: MAX_OFFSET,
      fetch: ({ offset, limit }) => search({ ...p.search, limit, offset }).pipe(Effect.map((r) => pageOf(r))),
      follow: (next) =>
        Effect.flatMap(TokenClient, (c) => c.alertsSearchNext(next, specBody({ ...p.search, limit: p.page_size }))).pipe(
          Effect.map((r) => pageOf(r))
        )
    })
  ),
  cost: {
    operation: "alerts_search",
    // A free count (one call of one alert) gives the pages; alerts created meanwhile may add one.
    estimate: (p) =>
      Effect.map(search({ ...p.search, limit: 1, offset: 0 }), (r) => {
        const count = r.page.total ?? 0
        const reachable = Math.min(count, deepest(p) + p.page_size)
        const pages = Math.max(1, Math.ceil(reachable / p.page_size))
        return { requests: pages, records: reachable, exact: false, note: `${count} alerts match now; ${pagesOf(pages, p.page_size)}` }
      })
  },
  tables: [alertsTable.spec],
  records: { table: "alerts", schema: Alert, toRows: alertRows },
  shardable: false
})
