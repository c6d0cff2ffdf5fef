/**
 * POST /api/v2/comparables/search (also the valuation prices body): the request with every
 * rule of the spec, so a bad request fails locally with the field and what is allowed.
 *
 * Deprecated request fields (`coordinates`, `target_point`, `distance` at top level,
 * `business_type`, `comparables_type`, `property_type`, `floor`, `view`, `direction`,
 * `energy_certificate(s)`) are not checked; like any unknown key they pass through.
 */
import { Schema } from "effect"
import {
  Characteristic,
  Condition,
  Direction,
  EnergyRating,
  FloorType,
  Operation,
  Orientation,
  PLOT_AREA_REQUIRED_TYPES,
  PROPERTY_TYPES,
  TOTAL_AREA_REQUIRED_TYPES,
  TYPE_GROUPS,
  View
} from "./Enums.js"
import { atMostOne, ClosedPolygon, DateOnly, exactlyOne, intBetween, LatLon, numberBetween, oneOf, show, typesOfOneGroup } from "./Rules.js"

const MAX_INT = 2147483647

/** A cadastral reference; the service takes them for Spain only. */
export const CadastralReference = Schema.Struct({
  country_code: Schema.String.pipe(
    Schema.filter((c) => /^[A-Z]{2}$/.test(c) || `must be an ISO 3166-1 alpha-2 code (got ${show(c)})`),
    Schema.filter((c) => c === "ES" || `cadastral references are accepted for Spain only (ES) (got ${show(c)})`)
  ),
  cadastral_reference: Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || "must not be empty")),
  province: Schema.optional(Schema.String),
  municipality: Schema.optional(Schema.String)
})

/** Exactly one of `coordinates`, `address`, `cadastral_reference`. */
export const TargetPoint = Schema.Struct({
  coordinates: Schema.optional(LatLon),
  address: Schema.optional(Schema.String),
  cadastral_reference: Schema.optional(CadastralReference)
}).pipe(Schema.filter((t) => exactlyOne(t, ["coordinates", "address", "cadastral_reference"], [])))

/** A circle: `distance` in kilometres 0.05..50 (server default 5) around `target_point`. */
export const ComparablesCircle = Schema.Struct({
  distance: Schema.optional(numberBetween(0.05, 50)),
  target_point: TargetPoint
})

/** Exactly one of `polygon` or `circle`. */
export const ComparablesBoundary = Schema.Struct({
  polygon: Schema.optional(ClosedPolygon),
  circle: Schema.optional(ComparablesCircle)
}).pipe(Schema.filter((b) => exactlyOne(b, ["polygon", "circle"], [])))

/** `must_have` (all), `nice_to_have` (any), `exclude` (none). */
export const CharacteristicsFilter = Schema.Struct({
  must_have: Schema.optional(Schema.Array(oneOf(Characteristic.values))),
  nice_to_have: Schema.optional(Schema.Array(oneOf(Characteristic.values))),
  exclude: Schema.optional(Schema.Array(oneOf(Characteristic.values)))
})

const requiresArea = (
  types: ReadonlyArray<string>,
  needing: ReadonlyArray<string>,
  field: "total_area" | "plot_area",
  given: number | undefined,
  hasCadastral: boolean
): Schema.FilterIssue | undefined => {
  if (given !== undefined || hasCadastral) return undefined
  const hit = types.filter((t) => needing.includes(t))
  if (hit.length === 0) return undefined
  return {
    path: [field],
    message:
      `is required for ${hit.join(", ")} (types ${needing.join(", ")}) unless ` +
      `location_boundary.circle.target_point.cadastral_reference is given`
  }
}

export const ComparablesRequest = Schema.Struct({
  comparables_count: intBetween(1, 50),
  location_boundary: ComparablesBoundary,
  /** Default 9 months before today; null means active properties only. */
  sold_or_rented_after: Schema.optional(Schema.NullOr(DateOnly)),
  operation: oneOf(Operation.values),
  comparables_types: typesOfOneGroup(oneOf(PROPERTY_TYPES), TYPE_GROUPS, 1),
  min_price: Schema.optional(intBetween(0, MAX_INT)),
  max_price: Schema.optional(intBetween(1, MAX_INT)),
  condition: Schema.optional(oneOf(Condition.values)),
  bedrooms: Schema.optional(intBetween(0, 15000)),
  rooms: Schema.optional(intBetween(0, 15000)),
  bathrooms: Schema.optional(intBetween(1, 15000)),
  construction_year: Schema.optional(intBetween(1, 3000)),
  total_area: Schema.optional(intBetween(5, 10_000_000)),
  plot_area: Schema.optional(intBetween(20, 10_000_000)),
  floors: Schema.optional(Schema.Array(oneOf(FloorType.values))),
  floor_number: Schema.optional(Schema.Array(intBetween(-250, 250))),
  orientation: Schema.optional(oneOf(Orientation.values)),
  views: Schema.optional(Schema.Array(oneOf(View.values))),
  directions: Schema.optional(Schema.Array(oneOf(Direction.values))),
  characteristics: Schema.optional(CharacteristicsFilter),
  energy_ratings: Schema.optional(Schema.Array(oneOf(EnergyRating.values))),
  days_on_market_from: Schema.optional(intBetween(1, 10000)),
  days_on_market_to: Schema.optional(intBetween(1, 10000)),
  with_agencies: Schema.optional(Schema.Array(Schema.String)),
  without_agencies: Schema.optional(Schema.Array(Schema.String)),
  /** Default true: drops significantly under- or overpriced properties. */
  exclude_outliers: Schema.optional(Schema.Boolean)
}).pipe(
  Schema.filter((r) => {
    const cadastral = r.location_boundary.circle?.target_point.cadastral_reference !== undefined
    const issues: Array<Schema.FilterIssue> = []
    const both = atMostOne(r, ["bedrooms", "rooms"], [])
    if (both) issues.push(both)
    const ta = requiresArea(r.comparables_types, TOTAL_AREA_REQUIRED_TYPES, "total_area", r.total_area, cadastral)
    if (ta) issues.push(ta)
    const pa = requiresArea(r.comparables_types, PLOT_AREA_REQUIRED_TYPES, "plot_area", r.plot_area, cadastral)
    if (pa) issues.push(pa)
    if (r.min_price !== undefined && r.max_price !== undefined && r.min_price > r.max_price) {
      issues.push({ path: ["max_price"], message: `must not be below min_price (got ${r.max_price} < ${r.min_price})` })
    }
    if (r.days_on_market_from !== undefined && r.days_on_market_to !== undefined && r.days_on_market_from > r.days_on_market_to) {
      issues.push({ path: ["days_on_market_to"], message: "must not be below days_on_market_from" })
    }
    return issues
  })
)
export type ComparablesRequest = typeof ComparablesRequest.Type
