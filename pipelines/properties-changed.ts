/**
 * properties-changed: the change-driven refresh of properties. The alerts landed since this
 * pipeline's last done run (`alerts.extracted_at` after that run's start: new listings, price
 * rises and cuts, reservations, delistings, sales) name the properties that changed or are new;
 * each is read again from the token host (`GET /api/v1/properties/search/{id}`, unmetered), so a
 * night's refresh costs no units however large the inventory. Lands what `properties-by-id`
 * lands (`properties` and its listings and histories). An id the token host does not know (404)
 * lands a `_missing` row: `sourcing-changed` buys those from Property Sourcing.
 *
 * What it covers is what the alert feeds watch: a feed per tracked place with every subtype
 * (see docs/SCHEDULING.md). Run it after `alerts`; its first run reads every alerted property.
 * It stands in for the nightly full re-pull of `sourcing-search` (weekly instead).
 */
import { Effect, Schema } from "effect"
import { keysFromTable } from "../src/extract/Sources.js"
import { propertyByIdSource } from "./properties-by-id.js"
import { propertyRows } from "../src/normalize/records/PropertyRows.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { Property } from "../src/service/schema/Property.js"

export const PROPERTIES_CHANGED = "properties-changed"

const Identifier = Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "must be a plain SQL identifier" }))

const Params = Schema.Struct({
  /** Property ids to refresh (e.g. from the alerts webhook spool). When empty, the changed ids come from `fromTable`. */
  ids: Schema.optionalWith(Schema.Array(Schema.Int.pipe(Schema.positive())), { default: () => [] }),
  /**
   * Where the changed ids come from: `column` of the rows of `table` whose `stamp` (a time this
   * machine wrote when the row landed) is after the start of this pipeline's last done run.
   * Default `alerts.property_id` by `extracted_at`.
   */
  fromTable: Schema.optionalWith(Schema.Struct({ table: Identifier, column: Identifier, stamp: Identifier }), {
    default: () => ({ table: "alerts", column: "property_id", stamp: "extracted_at" })
  }),
  /** Requests in flight. Default 4. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 4 })
})
type Params = typeof Params.Type

const rows = propertyRows()
const keysOf = (p: Params) =>
  p.ids.length > 0
    ? Effect.succeed(p.ids.map(String))
    : keysFromTable(p.fromTable.table, p.fromTable.column, { since: { column: p.fromTable.stamp, lastDoneRunOf: PROPERTIES_CHANGED } })

export default definePipeline({
  name: PROPERTIES_CHANGED,
  description: "Change-driven refresh: the properties alerted since its last done run, read again from the token host",
  host: "token",
  readsFrom: ["alerts"],
  params: Params,
  source: propertyByIdSource(keysOf),
  cost: {
    operation: "property_by_id",
    estimate: (p) =>
      Effect.map(keysOf(p), (ids) => ({
        requests: ids.length,
        exact: true,
        note: "unmetered; the properties alerted since its last done run (alerts synced after the plan add to them)"
      }))
  },
  tables: rows.tables,
  records: { table: rows.mainTable, schema: Property, toRows: rows.toRows },
  standsInFor: "sourcing-search"
})
