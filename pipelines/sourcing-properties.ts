/**
 * sourcing-properties: Property Sourcing details (`GET /v1/property-sourcing/properties/{prop_id}`)
 * for a list of `prop_` ids, one call each, fanned out with bounded concurrency. The ids come
 * from the parameters (`ids`) or from a column of an earlier table (`fromTable`, by default
 * `sourcing_properties.id`, i.e. after `sourcing-search`). Lands `sourcing_property_details`
 * (merged by `id`, partitioned by country, unknown fields in `extra`).
 *
 * Decided: an id the service does not know (404 `not_found`, not charged) lands a `_missing` row
 * and does not fail the run, so one vanished property does not stop a long enrichment.
 */
import { Effect, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import type { Fetched } from "../src/extract/Source.js"
import { fanOut, keysFromTable } from "../src/extract/Sources.js"
import { sourcingDetailsTable } from "../src/normalize/records/SourcingRows.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { SourcingPropertyDetail } from "../src/service/schema/Sourcing.js"

/** A Property Sourcing id, `prop_<property_id>` (the client's path rule: no path characters). */
export const PropId = Schema.String.pipe(
  Schema.filter(
    (s) => (/^prop_[^/?#\\]+$/.test(s) && !s.includes("..")) || `must look like prop_<id> (got ${JSON.stringify(s.slice(0, 40))})`
  )
)

const Identifier = Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "must be a plain SQL identifier" }))

const Params = Schema.Struct({
  /** The ids to enrich; or use `fromTable`. */
  ids: Schema.optional(Schema.Array(PropId).pipe(Schema.minItems(1))),
  /** A table column holding the ids. Default (when `ids` is absent): `sourcing_properties.id`. */
  fromTable: Schema.optional(Schema.Struct({ table: Identifier, column: Identifier })),
  /** Calls in flight at once. Default 8. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 8 })
}).pipe(
  Schema.filter(
    (p) => p.ids === undefined || p.fromTable === undefined || { path: ["fromTable"], message: "give ids or fromTable, not both" }
  )
)
type Params = typeof Params.Type

/** The ids of a run, distinct, in their given (or table) order. */
const idsOf = (p: Params) =>
  p.ids !== undefined
    ? Effect.succeed([...new Set(p.ids)])
    : keysFromTable(p.fromTable?.table ?? "sourcing_properties", p.fromTable?.column ?? "id")

const details = sourcingDetailsTable()

/** One `GET` of Property Sourcing details per id `idsOf` gives; a 404 lands a `_missing` row (also sourcing-changed's). */
export const sourcingDetailsSource = <P extends { readonly concurrency: number }, E, R>(
  idsOf: (p: P) => Effect.Effect<ReadonlyArray<string>, E, R>
) =>
  fanOut({
    keys: idsOf,
    key: (id: string) => id,
    concurrency: (p: P) => p.concurrency,
    missing: true,
    pager: (id: string) =>
      single(() =>
        Effect.flatMap(PlatformClient, (c) => c.sourcingProperty(id)).pipe(Effect.map((r): Fetched<unknown> => fetchedOf(r, [r.body])))
      )
  })

/** The details' table and how a detail becomes its row. */
export const sourcingDetails = {
  tables: [details.spec],
  records: {
    table: details.spec.name,
    schema: SourcingPropertyDetail,
    toRows: (d: SourcingPropertyDetail, ctx: PageContext) => ({ [details.spec.name]: [details.row(d, ctx)] })
  }
}

export default definePipeline({
  name: "sourcing-properties",
  description: "Property Sourcing details of prop_ ids (given, or read from sourcing_properties.id)",
  host: "platform",
  params: Params,
  source: sourcingDetailsSource(idsOf),
  cost: {
    operation: "sourcing_property",
    // One call per distinct id, known before the run (an unknown id is not charged).
    estimate: (p) => Effect.map(idsOf(p), (ids) => ({ requests: ids.length, records: ids.length, exact: true }))
  },
  ...sourcingDetails,
  shardable: true
})
