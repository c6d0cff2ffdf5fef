/**
 * properties-match: maps listing ids to their properties (`POST /api/v1/properties/match-by-listings`)
 * in batches of at most 100 ids (the spec's limit). Lands `listing_matches` (listing -> property).
 */
import { Effect, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import { batches, fanOut, keysFromTable } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PropertyMatch } from "../src/service/schema/Property.js"
import { TokenClient } from "../src/service/TokenClient.js"

const Params = Schema.Struct({
  /** Listing ids; when empty they come from `fromTable`. */
  listingIds: Schema.optionalWith(Schema.Array(Schema.Int.pipe(Schema.between(1, 2147483647))), { default: () => [] }),
  /** Table and column of listing ids, used when `listingIds` is empty. Default alerts.listing_id. */
  fromTable: Schema.optionalWith(Schema.Struct({ table: Schema.String, column: Schema.String }), {
    default: () => ({ table: "alerts", column: "listing_id" })
  }),
  /** Ids per request, 1 to 100 (spec maximum). Default 100. */
  batchSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 100 })
})
type Params = typeof Params.Type

const matches = flatTable.of<{ listing_id: number | bigint; property_id: number | bigint }, PageContext>()(
  "listing_matches",
  {
    listing_id: "BIGINT",
    property_id: "BIGINT!",
    extracted_at: ["TIMESTAMPTZ", (_m, c) => c.extractedAt]
  },
  { primaryKey: ["listing_id"], disposition: "merge" }
)

const batchesOf = (p: Params) =>
  Effect.map(
    p.listingIds.length > 0 ? Effect.succeed(p.listingIds.map(String)) : keysFromTable(p.fromTable.table, p.fromTable.column),
    (ids) => batches(ids.map(Number), p.batchSize)
  )

export default definePipeline({
  name: "properties-match",
  description: "Listing ids matched to their deduplicated properties, 100 ids a request",
  host: "token",
  params: Params,
  source: fanOut({
    keys: batchesOf,
    // a batch is named by its first id and size: stable while the id list is
    key: (batch) => `from=${batch[0]}|n=${batch.length}`,
    concurrency: 2,
    pager: (batch) =>
      single(() =>
        Effect.flatMap(TokenClient, (c) => c.matchByListings({ listing_ids: batch })).pipe(Effect.map((r) => fetchedOf(r, r.body)))
      )
  }),
  cost: {
    operation: "match_by_listings",
    estimate: (p) => Effect.map(batchesOf(p), (b) => ({ requests: b.length, exact: true }))
  },
  tables: [matches.spec],
  records: {
    table: "listing_matches",
    schema: PropertyMatch,
    // one record, a property and its listings (the rows are its listings)
    key: (m) => (m as { property_id?: number | bigint } | null)?.property_id,
    toRows: (m, ctx) => ({
      listing_matches: m.listing_ids.map((listing_id) => matches.row({ listing_id, property_id: m.property_id }, ctx))
    })
  }
})
