/**
 * comparables: for each target (coordinates, an address, or a Spanish cadastral reference; from
 * the settings or a CSV file), comparables v2 (at most 50) and the valuation prices, two calls
 * per target. Lands `comparables` (per target and property) and `valuations` (per target); both
 * keep the target id. Every target's request is checked before the first call.
 */
import { Effect, Either, Schema } from "effect"
import { readCsv } from "../src/extract/Csv.js"
import { single } from "../src/extract/Pagers.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { ComparableResult, ValuationPrices } from "../src/service/schema/Comparables.js"
import { ComparablesRequest } from "../src/service/schema/ComparablesRequest.js"
import { PropertyType } from "../src/service/schema/Enums.js"
import { validateRequest } from "../src/service/schema/Validation.js"
import { TokenClient } from "../src/service/TokenClient.js"
import type { TokenBody } from "../src/service/TokenRequests.js"
import { BASE_CURRENCY, MONEY } from "../src/normalize/records/NestedTypes.js"

const Target = Schema.Struct({
  id: Schema.String,
  latitude: Schema.optional(Schema.Number),
  longitude: Schema.optional(Schema.Number),
  address: Schema.optional(Schema.String),
  /** Spanish cadastral reference (Spain only, spec). */
  cadastral_reference: Schema.optional(Schema.String)
})
type Target = typeof Target.Type

/** The comparables v2 body less the members a target and the other parameters set. */
const {
  comparables_count: _count,
  location_boundary: _boundary,
  operation: _operation,
  comparables_types: _types,
  ...filterFields
} = ComparablesRequest.from.fields
const Filters = Schema.Struct(filterFields)

const ParamsFields = Schema.Struct({
  /** Targets inline; or `csv`, a file with columns id, latitude, longitude, address, cadastral_reference. */
  targets: Schema.optionalWith(Schema.Array(Target), { default: () => [] }),
  csv: Schema.optional(Schema.String),
  operation: Schema.optionalWith(Schema.Literal("sale", "rent"), { default: () => "sale" as const }),
  comparables_types: Schema.optionalWith(Schema.Array(PropertyType), { default: () => ["apartment", "penthouse", "duplex"] as const }),
  /** 1 to 50 (spec). Default 20. */
  comparables_count: Schema.optionalWith(Schema.Int, { default: () => 20 }),
  /** Circle radius in km, 0.05 to 50 (spec). Default 2. */
  distance: Schema.optionalWith(Schema.Number, { default: () => 2 }),
  /**
   * The other members of the comparables v2 body (bedrooms, total_area, price bounds, ...), typed
   * and checked as the body's: a misspelt one is refused, not sent. Default none.
   */
  filters: Schema.optionalWith(Filters, { default: () => ({}) }),
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 16)), { default: () => 4 })
})
type Params = typeof ParamsFields.Type

const targetsOf = (p: Params): ReadonlyArray<Target> =>
  p.targets.length > 0 || p.csv === undefined
    ? p.targets
    : readCsv(p.csv).map((r) => ({
        id: r.id ?? "",
        ...(r.latitude ? { latitude: Number(r.latitude) } : {}),
        ...(r.longitude ? { longitude: Number(r.longitude) } : {}),
        ...(r.address ? { address: r.address } : {}),
        ...(r.cadastral_reference ? { cadastral_reference: r.cadastral_reference } : {})
      }))

/**
 * The comparables v2 (and valuation) body of one target. A target without its coordinates sends
 * them undefined: the request rules (`Params` below) name the missing one before any call.
 */
const bodyOf = (p: Params, t: Target): TokenBody<"comparablesV2"> => ({
  ...p.filters,
  comparables_count: p.comparables_count,
  operation: p.operation,
  comparables_types: p.comparables_types,
  location_boundary: {
    circle: {
      distance: p.distance,
      target_point: t.cadastral_reference
        ? { cadastral_reference: { country_code: "ES", cadastral_reference: t.cadastral_reference } }
        : t.address
          ? { address: t.address }
          : { coordinates: { latitude: t.latitude!, longitude: t.longitude! } }
    }
  }
})

/** Every target's body must pass the request rules before anything is sent. */
const Params = ParamsFields.pipe(
  Schema.filter((p) => {
    let targets: ReadonlyArray<Target>
    try {
      targets = targetsOf(p)
    } catch (e) {
      return { path: ["csv"], message: `cannot read the targets file: ${(e as Error).message}` }
    }
    if (targets.length === 0) return { path: ["targets"], message: "give at least one target (targets, or csv)" }
    for (const [i, t] of targets.entries()) {
      if (!t.id) return { path: ["targets", i, "id"], message: "every target needs an id" }
      const checked = validateRequest(ComparablesRequest, bodyOf(p, t))
      if (Either.isLeft(checked)) return { path: ["targets", i], message: `target ${t.id}: ${checked.left.message}` }
    }
    return true
  })
)

/** A page holds the target's comparables (with their rank) and its valuation. */
const Record = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("comparable"), target: Schema.String, rank: Schema.Int, item: ComparableResult }),
  Schema.Struct({ kind: Schema.Literal("valuation"), target: Schema.String, item: ValuationPrices })
)

const comparables = flatTable.of<{ target: string; rank: number; item: ComparableResult }, PageContext>()(
  "comparables",
  {
    target_id: ["VARCHAR", (r) => r.target],
    property_id: ["BIGINT", (r) => r.item.property_id],
    rank: ["INTEGER", (r) => r.rank],
    type: ["VARCHAR", (r) => r.item.type],
    type_group: ["VARCHAR", (r) => r.item.type_group],
    distance_km: ["DOUBLE", (r) => r.item.distance],
    latitude: ["DOUBLE", (r) => r.item.coordinates?.latitude],
    longitude: ["DOUBLE", (r) => r.item.coordinates?.longitude],
    address: ["VARCHAR", (r) => r.item.address],
    zip_code: ["VARCHAR", (r) => r.item.zip_code],
    location_id: ["BIGINT", (r) => r.item.location?.location_id],
    total_area: ["BIGINT", (r) => r.item.total_area],
    living_area: ["BIGINT", (r) => r.item.living_area],
    plot_area: ["BIGINT", (r) => r.item.plot_area],
    bedrooms: ["INTEGER", (r) => r.item.bedrooms],
    bathrooms: ["INTEGER", (r) => r.item.bathrooms],
    rooms: ["INTEGER", (r) => r.item.rooms],
    construction_year: ["INTEGER", (r) => r.item.construction_year],
    condition: ["VARCHAR", (r) => r.item.condition],
    sale_status: ["VARCHAR", (r) => r.item.sale_status],
    sale_currency: ["VARCHAR", (r) => r.item.sale_currency],
    sale_price: [MONEY, (r) => r.item.sale_price],
    sale_price_base: [MONEY, (r) => r.item.sale_price_base],
    sale_price_per_sqm_base: [MONEY, (r) => r.item.sale_price_per_sqm_base],
    rent_status: ["VARCHAR", (r) => r.item.rent_status],
    rent_currency: ["VARCHAR", (r) => r.item.rent_currency],
    rent_price: [MONEY, (r) => r.item.rent_price],
    rent_price_base: [MONEY, (r) => r.item.rent_price_base],
    base_currency: ["VARCHAR", () => BASE_CURRENCY],
    property_url: ["VARCHAR", (r) => r.item.property_url],
    record: ["JSON", (r) => r.item],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: ["target_id", "property_id"], disposition: "merge" }
)

const valuations = flatTable.of<{ target: string; item: ValuationPrices }, PageContext>()(
  "valuations",
  {
    target_id: ["VARCHAR", (r) => r.target],
    currency: ["VARCHAR", (r) => r.item.currency],
    sale_min: [MONEY, (r) => r.item.sale?.min],
    sale_avg: [MONEY, (r) => r.item.sale?.avg],
    sale_max: [MONEY, (r) => r.item.sale?.max],
    sale_per_sqm: [MONEY, (r) => r.item.sale?.per_sqm],
    rent_min: [MONEY, (r) => r.item.rent?.min],
    rent_avg: [MONEY, (r) => r.item.rent?.avg],
    rent_max: [MONEY, (r) => r.item.rent?.max],
    rent_per_sqm: [MONEY, (r) => r.item.rent?.per_sqm],
    comparables_used: ["INTEGER", (r) => r.item.comparables_used],
    record: ["JSON", (r) => r.item],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: ["target_id"], disposition: "merge" }
)

export default definePipeline({
  name: "comparables",
  description: "Comparables v2 (at most 50) and valuation prices per target, keeping the target id",
  host: "token",
  params: Params,
  source: fanOut({
    keys: (p: Params) => targetsOf(p),
    key: (t) => `target=${t.id}`,
    concurrency: (p) => p.concurrency,
    pager: (t, p) =>
      single(() =>
        Effect.gen(function* () {
          const client = yield* TokenClient
          const body = bodyOf(p, t)
          const [comps, value] = yield* Effect.all([client.comparablesV2(body), client.valuationPrices(body)], { concurrency: 2 })
          const items = Array.isArray((comps.body as { results?: unknown }).results)
            ? (comps.body as { results: Array<unknown> }).results
            : []
          return {
            records: [
              ...items.map((item, rank) => ({ kind: "comparable", target: t.id, rank, item })),
              { kind: "valuation", target: t.id, item: value.body }
            ],
            raw: `{"comparables":${comps.raw || "null"},"valuation":${value.raw || "null"}}`,
            units: 0,
            charges: []
          }
        })
      )
  }),
  cost: {
    operation: "comparables_v2",
    estimate: (p) => Effect.succeed({ requests: 2 * targetsOf(p).length, pages: targetsOf(p).length, exact: true })
  },
  tables: [comparables.spec, valuations.spec],
  records: {
    table: "comparables",
    schema: Record,
    toRows: (r, ctx) => (r.kind === "comparable" ? { comparables: [comparables.row(r, ctx)] } : { valuations: [valuations.row(r, ctx)] })
  }
})
