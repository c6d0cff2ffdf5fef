/**
 * The rules of the spec's `POST /market-analytics-api/time-series` table that every Area Insights
 * body shares: the time-series body less `data_point`, `date_interval` and `date_range` is the
 * body of the distributions and the analysis (docs/ASSUMPTIONS.md "Distribution bodies").
 * 422 for a field's own rule, 400 across fields (see `Validate.ts`). The three time-series
 * fields are checked in `MarketAnalytics.ts`.
 */
import { Effect } from "effect"
import {
  Characteristic,
  Condition,
  Operation,
  TIME_SERIES_TYPES,
  TIME_SERIES_TYPE_GROUPS,
  commonGroup
} from "../../service/schema/Enums.js"
import type { Boundary, MarketFilter, Range } from "../world/Queries.js"
import type { TokenHostError } from "./Errors.js"
import { checkPoint, checkPolygon } from "./ComparablesRules.js"
import { Checker, type Json, type Loc } from "./Validate.js"

const INT32 = 2147483647

/** Spec: the range filters and their bounds. */
export const RANGE_BOUNDS: Record<string, { ge: number; le: number }> = {
  price_range: { ge: 1, le: INT32 },
  price_per_sqm_range: { ge: 1, le: INT32 },
  rooms_range: { ge: 1, le: 15000 },
  bathrooms_range: { ge: 1, le: 15000 },
  bedrooms_range: { ge: 0, le: 15000 },
  total_area_range: { ge: 1, le: 1000000 },
  plot_area_range: { ge: 1, le: 1000000 },
  construction_year_range: { ge: 1, le: 3000 }
}

/** Spec: circle distance of market analytics, metres. */
export const MARKET_DISTANCE = { ge: 50, le: 50000 } as const

const checkRange = (c: Checker, body: Json, key: string, bounds: { ge: number; le: number }): Range | null | undefined => {
  const r = c.object(body, key, ["body"], { nullable: true })
  if (r === undefined) return body[key] === null ? null : undefined
  const at = ["body", key]
  const min = c.int(r, "min", at, { ...bounds, nullable: true })
  const max = c.int(r, "max", at, { ...bounds, nullable: true })
  if (typeof min === "number" && typeof max === "number" && min > max) c.rule(`${key}: min must not be greater than max`)
  return { min: min ?? null, max: max ?? null }
}

/**
 * `custom_location_boundary`: `location_ids` (1..10 items, each 1..2147483647), `polygon` (at least
 * 4 points, closed) or `circle` {distance 50..50000 m, target_point}. Assumed: exactly one of
 * the three (400 otherwise), as comparables' boundary is.
 */
const checkBoundary = (c: Checker, body: Json): Boundary | undefined => {
  const b = c.object(body, "custom_location_boundary", ["body"], { required: true })
  if (b === undefined) return undefined
  const at: Loc = ["body", "custom_location_boundary"]
  const location_ids = c.ints(b, "location_ids", at, { ge: 1, le: INT32 }, { minItems: 1, maxItems: 10 })
  const polygon = checkPolygon(c, b, "polygon", at)
  const circle = c.object(b, "circle", at)
  let circleOut: Boundary["circle"]
  if (circle !== undefined) {
    const cAt = [...at, "circle"]
    const distance = c.int(circle, "distance", cAt, { required: true, ...MARKET_DISTANCE })
    const tp = circle.target_point
    const target =
      tp === undefined || tp === null
        ? (c.add([...cAt, "target_point"], "missing", "Field required", circle), undefined)
        : checkPoint(c, tp, [...cAt, "target_point"])
    if (typeof distance === "number" && target !== undefined) circleOut = { distance, target_point: target }
  }
  const given = [b.location_ids, b.polygon, b.circle].filter((v) => v !== undefined && v !== null).length
  if (given !== 1) c.rule("custom_location_boundary: give exactly one of location_ids, polygon or circle")
  return {
    ...(location_ids !== undefined ? { location_ids } : {}),
    ...(polygon !== undefined ? { polygon } : {}),
    ...(circleOut !== undefined ? { circle: circleOut } : {})
  }
}

/** The filter fields shared by every Area Insights body. */
export const checkFilter = (c: Checker, body: Json): MarketFilter => {
  const L = ["body"]
  const types = c.literals(body, "types", L, TIME_SERIES_TYPES, { required: true, minItems: 1 })
  if (types !== undefined && types.length > 0 && commonGroup(types, TIME_SERIES_TYPE_GROUPS) === undefined) {
    c.rule("types: choose property types of one type group only")
  }
  const business_type = c.literal(body, "business_type", L, Operation.values, { required: true })
  const custom_location_boundary = checkBoundary(c, body)
  const ranges: Record<string, Range | null> = {}
  for (const [key, bounds] of Object.entries(RANGE_BOUNDS)) {
    const r = checkRange(c, body, key, bounds)
    if (r !== undefined) ranges[key] = r
  }
  const ch = c.object(body, "characteristics", L, { nullable: true })
  const characteristics =
    ch === undefined
      ? body.characteristics === null
        ? null
        : undefined
      : {
          must_have: c.literals(ch, "must_have", [...L, "characteristics"], Characteristic.values) ?? [],
          exclude: c.literals(ch, "exclude", [...L, "characteristics"], Characteristic.values) ?? []
        }
  const conditions = c.literals(body, "conditions", L, Condition.values, { minItems: 1 })
  const bools: Record<string, boolean> = {}
  for (const k of ["private", "bank", "auction", "exclude_outliers"]) {
    const v = c.bool(body, k, L)
    if (v !== undefined) bools[k] = v
  }
  return {
    types: types ?? [],
    business_type: business_type ?? "sale",
    custom_location_boundary: custom_location_boundary ?? {},
    ...ranges,
    ...(characteristics !== undefined ? { characteristics } : {}),
    ...(conditions !== undefined ? { conditions } : {}),
    ...bools,
    auction: bools.auction ?? false,
    exclude_outliers: bools.exclude_outliers ?? false
  }
}

/** A checker over a body that must be an object. */
export const startBody = (raw: unknown) => {
  const c = new Checker()
  const body = c.body(raw)
  return { c, body: body ?? {} }
}

/** Distributions and analysis body. */
export const checkMarketFilter = (raw: unknown): Effect.Effect<MarketFilter, TokenHostError> =>
  Effect.suspend(() => {
    const { c, body } = startBody(raw)
    const filter = checkFilter(c, body)
    return Effect.as(c.result, filter)
  })
