/**
 * properties-by-id: the token host's property record by id (`GET /api/v1/properties/search/{id}`)
 * for a list of ids or the ids of an earlier table, fanned out with bounded concurrency.
 * Lands `properties` with its listings and price/status histories. An id the service does not
 * know (404) lands a `_missing` row and the run goes on.
 */
import { Effect, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import { fanOut, keysFromTable } from "../src/extract/Sources.js"
import { propertyRows } from "../src/normalize/records/PropertyRows.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { Property } from "../src/service/schema/Property.js"
import { TokenClient } from "../src/service/TokenClient.js"

const Params = Schema.Struct({
  /** Property ids to fetch. When empty, ids come from `fromTable`. */
  ids: Schema.optionalWith(Schema.Array(Schema.Int.pipe(Schema.positive())), { default: () => [] }),
  /** Table and column holding property ids (used when `ids` is empty). Default alerts.property_id. */
  fromTable: Schema.optionalWith(Schema.Struct({ table: Schema.String, column: Schema.String }), {
    default: () => ({ table: "alerts", column: "property_id" })
  }),
  /** Requests in flight. Default 4. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 4 })
})
type Params = typeof Params.Type

const rows = propertyRows()
const keysOf = (p: Params) => (p.ids.length > 0 ? Effect.succeed(p.ids.map(String)) : keysFromTable(p.fromTable.table, p.fromTable.column))

/** The envelope's `results` is the property (or, leniently, a one-item list). */
const recordsOf = (body: { results?: unknown }): ReadonlyArray<unknown> =>
  Array.isArray(body.results) ? body.results : body.results ? [body.results] : []

/** The slice key of a property id: `_missing.key` of an id the token host lacks. */
export const propertySliceKey = (id: string | number) => `id=${id}`

/** One `GET` of a property per id `keysOf` gives; a 404 lands a `_missing` row (also properties-changed's). */
export const propertyByIdSource = <P extends { readonly concurrency: number }, E, R>(
  keysOf: (p: P) => Effect.Effect<ReadonlyArray<string>, E, R>
) =>
  fanOut({
    keys: keysOf,
    key: propertySliceKey,
    concurrency: (p: P) => p.concurrency,
    missing: true,
    pager: (id: string) =>
      single(() => Effect.flatMap(TokenClient, (c) => c.propertyById(id)).pipe(Effect.map((r) => fetchedOf(r, recordsOf(r.body)))))
  })

export default definePipeline({
  name: "properties-by-id",
  description: "Property records by id (a list, or the ids of an earlier table) with listings and histories",
  host: "token",
  params: Params,
  source: propertyByIdSource(keysOf),
  cost: {
    operation: "property_by_id",
    estimate: (p) => Effect.map(keysOf(p), (ids) => ({ requests: ids.length, exact: true }))
  },
  tables: rows.tables,
  records: { table: rows.mainTable, schema: Property, toRows: rows.toRows }
})
