/**
 * sourcing-changed: the paid half of the change-driven refresh. The properties `properties-changed`
 * could not read from the token host (its `_missing` rows since this pipeline's last done run) are
 * read from Property Sourcing (`GET /v1/property-sourcing/properties/{prop_id}`, 1 unit each,
 * Assumed), so a night pays only for what the free host lacks. Lands `sourcing_property_details`,
 * as `sourcing-properties` does. An id Property Sourcing does not know either lands a `_missing`
 * row of this pipeline.
 *
 * Assumed (the spec shows neither id's form): a Property Sourcing id is `prop_` followed by the
 * token host's property id, as the client's schema already assumes (`SourcingProperty.id` =
 * `prop_<property_id>`, and a search result carries its `property_id`). The sandbox answers so:
 * both hosts read one property graph, and `prop_<n>` is the property `n` of the token host.
 * Another form is a setting: `sourcingId`.
 */
import { Effect, Schema } from "effect"
import { keysFromTable } from "../src/extract/Sources.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { PROPERTIES_CHANGED } from "./properties-changed.js"
import { PropId, sourcingDetails, sourcingDetailsSource } from "./sourcing-properties.js"

const NAME = "sourcing-changed"

const Params = Schema.Struct({
  /** Token-host property ids to read from Property Sourcing. When empty, those `properties-changed` could not read. */
  ids: Schema.optionalWith(Schema.Array(Schema.Int.pipe(Schema.positive())), { default: () => [] }),
  /** The Property Sourcing id of a token-host property id `{id}`. Default `prop_{id}` (Assumed, see the module comment). */
  sourcingId: Schema.optionalWith(
    Schema.String.pipe(Schema.filter((s) => s.includes("{id}") || "must hold {id}, where the property id goes")),
    { default: () => "prop_{id}" }
  ),
  /** Calls in flight at once. Default 8. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 8 })
})
type Params = typeof Params.Type

/** `_missing` keys of `properties-changed` are `id=<property id>`. */
const idOfKey = (key: string) => /^id=(\d+)$/.exec(key)?.[1]

/** The Property Sourcing ids of a run, distinct, each checked like a given `prop_` id. */
const idsOf = (p: Params) =>
  Effect.flatMap(
    p.ids.length > 0
      ? Effect.succeed(p.ids.map(String))
      : Effect.map(
          keysFromTable("_missing", "key", { equals: { pipeline: PROPERTIES_CHANGED }, since: { column: "at", lastDoneRunOf: NAME } }),
          (keys) => keys.flatMap((k) => idOfKey(k) ?? [])
        ),
    (ids) =>
      Effect.forEach([...new Set(ids)], (id) =>
        Schema.decodeUnknown(PropId)(p.sourcingId.replaceAll("{id}", id)).pipe(
          Effect.mapError((e) => new Error(`sourcingId ${JSON.stringify(p.sourcingId)} of ${id}: ${e.message}`))
        )
      )
  )

export default definePipeline({
  name: NAME,
  description: "Change-driven refresh, paid half: Property Sourcing details of the changed properties the token host lacked",
  host: "platform",
  readsFrom: [PROPERTIES_CHANGED],
  params: Params,
  source: sourcingDetailsSource(idsOf),
  cost: {
    operation: "sourcing_property",
    estimate: (p) =>
      Effect.map(idsOf(p), (ids) => ({
        requests: ids.length,
        records: ids.length,
        exact: true,
        note: "the changed properties the token host lacked (those of tonight's properties-changed are known after it runs)"
      }))
  },
  ...sourcingDetails,
  shardable: true
})
