/**
 * premises-search: premises search (`POST /v1/ai/search`), the paid one: 40 units a successful
 * call (spec). The request body comes from the parameters as is (the spec: any keys), with
 * `limit` (1 to 200, spec; refused locally above) as the page size and `offset` set per page.
 * Lands `premises`: the known fields (docs/ASSUMPTIONS.md) plus `raw`, the whole result object
 * as JSON, merged by `id`.
 *
 * The cost guard reserves 40 units before each call, so a run capped at `maxUnits` stops before
 * the call that would cross it, paused (exit code 3) and resumable from its last page.
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fullReadPlan, paged, pagesOf } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { Premises, PremisesRequest } from "../src/service/schema/Premises.js"
import { MONEY } from "../src/normalize/records/NestedTypes.js"

/** Assumed (docs/ASSUMPTIONS.md): the server's default page size. */
const DEFAULT_LIMIT = 20

const Params = Schema.Struct({
  /**
   * The request body, any keys (e.g. `query`, `province`, `operation`); `limit` is the page size
   * (1 to 200, default 20). `offset` is the pipeline's to set.
   */
  body: Schema.optionalWith(
    PremisesRequest.pipe(
      Schema.filter((b) => b.offset === undefined || { path: ["offset"], message: "is set by the pipeline for each page; leave it out" })
    ),
    { default: () => ({}) }
  ),
  /**
   * At most this many pages (calls of 40 units): a sample; a run cut by it is incomplete unless
   * it is a sample (`--sample`). Default none: the count, next link or page depth ends the read.
   */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 1000)))
})
type Params = typeof Params.Type

const limitOf = (p: Params) => p.body.limit ?? DEFAULT_LIMIT

const premises = flatTable.of<Premises, PageContext>()(
  "premises",
  {
    id: "VARCHAR",
    title: "VARCHAR",
    operation: "VARCHAR",
    municipality: "VARCHAR",
    province: "VARCHAR",
    price_eur: MONEY,
    /** The currency of `price_eur`: EUR, as its name says. */
    currency: ["VARCHAR", () => "EUR"],
    area_m2: "DOUBLE",
    latitude: "DOUBLE",
    longitude: "DOUBLE",
    /** The whole result object as received (the answer accepts any keys). */
    raw: ["JSON", (r) => r],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: ["id"], disposition: "merge" }
)

export default definePipeline({
  name: "premises-search",
  description: "Premises search (40 units a call): the body from the parameters, offset pages, results kept whole",
  host: "platform",
  params: Params,
  source: paged((p: Params) =>
    offset({
      limit: limitOf(p),
      maxPages: p.maxPages,
      fetch: ({ offset, limit }) =>
        Effect.flatMap(PlatformClient, (c) => c.premisesSearch({ ...p.body, limit, offset })).pipe(Effect.map((r) => pageOf(r))),
      follow: (next) =>
        Effect.flatMap(PlatformClient, (c) => c.premisesSearchNext(next, { ...p.body, limit: limitOf(p) })).pipe(
          Effect.map((r) => pageOf(r))
        )
    })
  ),
  cost: {
    operation: "ai_search_premises",
    // No free count: the pages of the last full read (at most maxPages), else one page until the
    // first page's count says the rest; the service's count, link or page depth ends the read
    estimate: (p) =>
      Effect.map(fullReadPlan(["*"], { maxPages: p.maxPages, pageSize: limitOf(p) }), (last) => ({
        requests: last.pages,
        exact: false,
        note:
          p.maxPages !== undefined
            ? `at most ${pagesOf(last.pages, limitOf(p))}`
            : last.known > 0
              ? `${pagesOf(last.pages, limitOf(p))}, as the last full read`
              : `at least 1 page of ${limitOf(p)}: the first page's count says the rest (--max-units bounds the spend)`
      }))
  },
  tables: [premises.spec],
  records: {
    table: premises.spec.name,
    schema: Premises,
    toRows: (r, ctx) => ({ [premises.spec.name]: [premises.row(r, ctx)] })
  },
  shardable: false
})
