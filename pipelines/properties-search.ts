/**
 * properties-search: property search v1 or v2 (`POST /api/v{1,2}/properties/search`), following
 * `next` (the same body POSTed to it). Lands `properties` with listings and histories.
 */
import { Effect, Schema } from "effect"
import { cursor } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fullReadPlan, paged } from "../src/extract/Sources.js"
import { propertyRows } from "../src/normalize/records/PropertyRows.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { Property } from "../src/service/schema/Property.js"
import { PropertyType } from "../src/service/schema/Enums.js"
import { TokenClient } from "../src/service/TokenClient.js"

const Params = Schema.Struct({
  /** Search version, 1 (offset links) or 2 (cursor links). Default 2. */
  version: Schema.optionalWith(Schema.Literal(1, 2), { default: () => 2 as const }),
  /** Assumed body (docs/ASSUMPTIONS.md): location ids, types, operation, price bounds. */
  location_ids: Schema.optional(Schema.Array(Schema.Int.pipe(Schema.positive()))),
  types: Schema.optional(Schema.Array(PropertyType)),
  operation: Schema.optional(Schema.Literal("sale", "rent")),
  min_price: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  max_price: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** Page size, 1 to 500 (Assumed token-host maximum). Default 200. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 500)), { default: () => 200 }),
  /** At most this many pages: a sample (`--sample`; otherwise a cut read is incomplete). Default none. */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
type Params = typeof Params.Type

const rows = propertyRows()
const bodyOf = (p: Params) => {
  const { version: _v, pageSize, maxPages: _m, ...filters } = p
  return { ...filters, limit: pageSize }
}

export default definePipeline({
  name: "properties-search",
  description: "Property search (v1 or v2) following next links, with listings and histories",
  host: "token",
  params: Params,
  source: paged((p: Params) =>
    cursor({
      maxPages: p.maxPages,
      first: () =>
        Effect.flatMap(TokenClient, (c) => (p.version === 1 ? c.propertiesSearchV1(bodyOf(p)) : c.propertiesSearchV2(bodyOf(p)))).pipe(
          Effect.map((r) => pageOf(r))
        ),
      follow: (next) => Effect.flatMap(TokenClient, (c) => c.propertiesSearchNext(next, bodyOf(p))).pipe(Effect.map((r) => pageOf(r)))
    })
  ),
  cost: {
    operation: "properties_search",
    estimate: (p) =>
      Effect.map(fullReadPlan(["*"], { maxPages: p.maxPages, pageSize: p.pageSize }), (last) => {
        const pages = last.pages
        return {
          requests: pages,
          exact: false,
          note: `${pages} page(s) of ${p.pageSize}${last.known > 0 ? ", as the last full read" : ""}`
        }
      })
  },
  tables: rows.tables,
  records: { table: rows.mainTable, schema: Property, toRows: rows.toRows }
})
