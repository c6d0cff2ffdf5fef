/**
 * sourcing-describe: Property Sourcing plain-language search
 * (`POST /v1/property-sourcing/searches/describe`, then each `next` cursor page). Either up to
 * 20 phrases (`tags`) or one `description` (split by the service at commas, semicolons and
 * " and "). Lands `sourcing_describe_results`: one row per (search, property), where the search
 * is named by the phrases the service used (`search_key`: lower-cased, sorted, ` | `-joined), so
 * the same tags sent twice, or as a description, merge into the same rows.
 */
import { Effect, Schema } from "effect"
import { cursor } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fullReadPlan, paged } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { extra } from "../src/normalize/Values.js"
import { columnsVia, sourcingPropertyColumns } from "../src/normalize/records/SourcingRows.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import type { PlatformBody } from "../src/service/PlatformRequests.js"
import { exactlyOne } from "../src/service/schema/Rules.js"
import { DescribeRequest, SourcingProperty } from "../src/service/schema/Sourcing.js"
import { STRINGS } from "../src/normalize/records/NestedTypes.js"

const fields = DescribeRequest.from.fields

const Params = Schema.Struct({
  /** 1 to 20 phrases, e.g. `["apartment", "3 bedrooms", "under 400k"]`; or use `description`. */
  tags: fields.tags,
  /** One plain-language description; the service splits it into phrases. */
  description: fields.description,
  country: fields.country,
  location_ids: fields.location_ids,
  /** Page size, 1 to 200. Default 200. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 200)), { default: () => 200 }),
  /**
   * At most this many pages: a sample (a run cut by it is incomplete unless it is a sample,
   * `--sample`). Default none: the service's next link ends the read.
   */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 100_000)))
}).pipe(Schema.filter((p) => exactlyOne(p, ["tags", "description"], [])))
type Params = typeof Params.Type

/** One result with the search it came from (the phrases used are on the first page only). */
const Hit = Schema.Struct({ tags: Schema.Array(Schema.String), search_id: Schema.String, property: SourcingProperty })
type Hit = typeof Hit.Type

/** The phrases as a key: trimmed, lower case, distinct, sorted. */
export const searchKeyOf = (tags: ReadonlyArray<string>): string => [...new Set(tags.map((t) => t.trim().toLowerCase()))].sort().join(" | ")

const knownFields = new Set(Object.keys(SourcingProperty.fields))

const results = flatTable.of<Hit, PageContext>()(
  "sourcing_describe_results",
  {
    search_key: ["VARCHAR", (h) => searchKeyOf(h.tags)],
    id: ["VARCHAR", (h) => h.property.id],
    tags: STRINGS,
    search_id: "VARCHAR",
    ...columnsVia(sourcingPropertyColumns, (h: Hit) => h.property),
    extracted_at: ["TIMESTAMPTZ", (_h, c) => c.extractedAt],
    /** The property's fields the schema does not know, as JSON. */
    extra: ["JSON", (h) => extra(h.property, knownFields)]
  },
  { primaryKey: ["search_key", "id"], disposition: "merge", partitionBy: ["country"] }
)

/** What the first page says of its search, carried to the cursor pages (which do not repeat it). */
interface Search {
  readonly tags: ReadonlyArray<string>
  readonly searchId: string
}

const describePager = (p: Params) => {
  const body: PlatformBody<"sourcingDescribe"> = {
    country: p.country,
    limit: p.pageSize,
    ...(p.tags ? { tags: p.tags } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
    ...(p.location_ids ? { location_ids: p.location_ids } : {})
  }
  const hits = (search: Search) => (property: unknown) => ({ tags: search.tags, search_id: search.searchId, property })
  return cursor({
    maxPages: p.maxPages,
    first: () =>
      Effect.flatMap(PlatformClient, (c) => c.sourcingDescribe(body)).pipe(
        Effect.map((r) => {
          const b = r.body as { tags?: unknown; search_id?: unknown } | null
          const search: Search = {
            tags: Array.isArray(b?.tags) ? (b.tags as Array<string>) : (p.tags ?? []),
            searchId: typeof b?.search_id === "string" ? b.search_id : ""
          }
          return { ...pageOf(r, hits(search)), context: search }
        })
      ),
    follow: (next, context) =>
      Effect.flatMap(PlatformClient, (c) => c.sourcingNext(next)).pipe(
        Effect.map((r) => pageOf(r, hits((context as Search | undefined) ?? { tags: p.tags ?? [], searchId: "" })))
      )
  })
}

export default definePipeline({
  name: "sourcing-describe",
  description: "Property Sourcing plain-language search (tags or a description), cursor pages",
  host: "platform",
  notReloadable: "each record carries the tags and search id of its search's first page, which cursor pages do not",
  params: Params,
  source: paged(describePager),
  cost: {
    // Assumed: the describe call is 2 units, each cursor page 1; the plan prices every page at 2.
    operation: "sourcing_describe",
    estimate: (p) =>
      Effect.map(fullReadPlan(["*"], { maxPages: p.maxPages, pageSize: p.pageSize }), (last) => {
        const pages = last.pages
        return {
          requests: pages,
          exact: false,
          note: `${p.maxPages !== undefined ? "at most " : ""}${pages} page(s) of ${p.pageSize}${last.known > 0 ? " as the last full read" : ""} (cursor pages cost 1 unit, not 2)`
        }
      })
  },
  tables: [results.spec],
  records: {
    table: results.spec.name,
    schema: Hit,
    key: (hit) => (hit as { property?: { id?: string } } | null)?.property?.id,
    toRows: (hit, ctx) => ({ [results.spec.name]: [results.row(hit, ctx)] })
  },
  shardable: false
})
