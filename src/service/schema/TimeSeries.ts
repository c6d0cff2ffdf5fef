/**
 * Area Insights time series, POST /market-analytics-api/time-series: the request with its
 * rules, the points of the answer, and `snapDateRange`, the server's week snapping of
 * `date_range`. The market filter fields are shared with the distributions and the analysis.
 */
import { Schema } from "effect"
import { Characteristic, Condition, DataPoint, DateInterval, Operation, TIME_SERIES_TYPE_GROUPS, TIME_SERIES_TYPES } from "./Enums.js"
import { DateString, open } from "./Open.js"
import { ClosedPolygon, DateOnly, exactlyOne, intBetween, items, numberBetween, oneOf, range, show, typesOfOneGroup } from "./Rules.js"
import { BARE_LIST, type ResponseShape } from "../ResponseShape.js"

const MAX_INT = 2147483647

/** A time-series type: the 42 of Enums.ts; `plot` is refused with a pointer to the plot types. */
export const TimeSeriesTypeValue = Schema.String.pipe(
  Schema.filter((s): s is (typeof TIME_SERIES_TYPES)[number] => (TIME_SERIES_TYPES as ReadonlyArray<string>).includes(s), {
    message: (i) =>
      i.actual === "plot"
        ? `plot is not accepted by time series (use urban_plot or rural_plot) (got "plot")`
        : `must be a time-series property type (${TIME_SERIES_TYPES.join(", ")}) (got ${show(i.actual)})`
  })
)

/** A circle: `distance` in metres 50..50000 around a `{latitude, longitude}` point, both required. */
export const MetresCircle = Schema.Struct({
  distance: intBetween(50, 50000),
  target_point: Schema.Struct({ latitude: numberBetween(-90, 90), longitude: numberBetween(-180, 180) })
})

/** Exactly one of `location_ids` (1..10 ids), `polygon` (closed) or `circle`. */
export const CustomLocationBoundary = Schema.Struct({
  location_ids: Schema.optional(items(intBetween(1, MAX_INT), 1, 10)),
  polygon: Schema.optional(ClosedPolygon),
  circle: Schema.optional(MetresCircle)
}).pipe(Schema.filter((b) => exactlyOne(b, ["location_ids", "polygon", "circle"], [])))

/**
 * The market filter: every time-series field except `data_point`, `date_interval` and
 * `date_range`. Assumed (docs/ASSUMPTIONS.md): the distribution and analysis bodies are exactly this.
 */
export const marketFilterFields = {
  types: typesOfOneGroup(TimeSeriesTypeValue, TIME_SERIES_TYPE_GROUPS, 1),
  business_type: oneOf(Operation.values),
  custom_location_boundary: CustomLocationBoundary,
  price_range: Schema.optional(range(1, MAX_INT)),
  price_per_sqm_range: Schema.optional(range(1, MAX_INT)),
  rooms_range: Schema.optional(range(1, 15000)),
  bathrooms_range: Schema.optional(range(1, 15000)),
  bedrooms_range: Schema.optional(range(0, 15000)),
  total_area_range: Schema.optional(range(1, 1_000_000)),
  plot_area_range: Schema.optional(range(1, 1_000_000)),
  construction_year_range: Schema.optional(range(1, 3000)),
  characteristics: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        must_have: Schema.optional(Schema.Array(oneOf(Characteristic.values))),
        exclude: Schema.optional(Schema.Array(oneOf(Characteristic.values)))
      })
    )
  ),
  conditions: Schema.optional(items(oneOf(Condition.values), 1)),
  /** Private seller. */
  private: Schema.optional(Schema.Boolean),
  /** Bank-owned. */
  bank: Schema.optional(Schema.Boolean),
  /** Default false. */
  auction: Schema.optional(Schema.Boolean),
  /** Default false. */
  exclude_outliers: Schema.optional(Schema.Boolean)
}

/** `min` required; `max` nullable. The server snaps both to whole weeks (see `snapDateRange`). */
export const DateRange = Schema.Struct({
  min: DateOnly,
  max: Schema.optional(Schema.NullOr(DateOnly))
}).pipe(
  Schema.filter(
    (r) => r.max == null || r.min <= r.max || { path: ["max"], message: `must not be before min (got min ${r.min}, max ${r.max})` }
  )
)

export const TimeSeriesRequest = Schema.Struct({
  ...marketFilterFields,
  data_point: oneOf(DataPoint.values),
  date_interval: oneOf(DateInterval.values),
  date_range: DateRange
})
export type TimeSeriesRequest = typeof TimeSeriesRequest.Type

/** One point: `date_start` (start of the interval) and `value`. */
export const TimeSeriesPoint = open({
  date_start: DateString,
  value: Schema.NullOr(Schema.Number)
})
export type TimeSeriesPoint = typeof TimeSeriesPoint.Type
/** The 200 body (a 204 means no content: no points). */
export const TimeSeriesPoints = Schema.Array(TimeSeriesPoint)

const DAY_MS = 86_400_000
const shiftToWeekday = (date: string, weekday: number): string => {
  const t = Date.parse(`${date}T00:00:00Z`)
  if (Number.isNaN(t)) throw new RangeError(`not a date YYYY-MM-DD: ${date}`)
  const back = (new Date(t).getUTCDay() - weekday + 7) % 7
  return new Date(t - back * DAY_MS).toISOString().slice(0, 10)
}

/**
 * The time-series server's snapping of `date_range`, done on the client so plans, checkpoints
 * and row keys use the dates the server will use: `min` moves back to the Monday of its week
 * (a Monday stays), `max` moves back to the previous Sunday (a Sunday stays); a null or absent
 * `max` stays as it is. Dates are `YYYY-MM-DD`, read as UTC calendar days.
 *
 *   snapDateRange({ min: "2026-11-19", max: "2026-11-19" })  // Thursday both
 *   -> { min: "2026-11-16", max: "2026-11-15" }
 */
export const snapDateRange = <R extends { readonly min: string; readonly max?: string | null | undefined }>(
  r: R
): { readonly min: string; readonly max: R["max"] } => ({
  min: shiftToWeekday(r.min, 1),
  max: (r.max == null ? r.max : shiftToWeekday(r.max, 0)) as R["max"]
})

/** Spec: the time-series 200 body is a list of `{date_start, value}`. */
export const TIME_SERIES_SHAPE: ResponseShape = BARE_LIST
