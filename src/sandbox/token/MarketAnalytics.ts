/**
 * Area Insights on the token host: time series, the four distributions and the analysis.
 * Bodies are checked in `MarketRules.ts`; numbers come from the world as of the sandbox clock.
 */
import { Effect } from "effect"
import { DataPoint, DateInterval } from "../../service/schema/Enums.js"
import type { SandboxContext } from "../SandboxContext.js"
import { isoDate, previousMonday, previousSunday } from "../world/Dates.js"
import type { MarketFilter, TimeSeriesRequest } from "../world/Queries.js"
import type { TokenHostError } from "./Errors.js"
import { checkFilter, checkMarketFilter, startBody } from "./MarketRules.js"
import { type Handler, jsonBody, noContent, ok } from "./Http.js"

/**
 * Time-series body. `date_range.min` moves to the Monday on or before it, `max` to the Sunday on
 * or before it (spec). Assumed: a null or absent `max` is today on the sandbox clock, snapped the
 * same way; a `max` before `min` after snapping is an empty range (the host answers 204).
 */
export const checkTimeSeries = (raw: unknown, nowMs: number): Effect.Effect<TimeSeriesRequest, TokenHostError> =>
  Effect.suspend(() => {
    const { c, body } = startBody(raw)
    const filter = checkFilter(c, body)
    const data_point = c.literal(body, "data_point", ["body"], DataPoint.values, { required: true })
    const date_interval = c.literal(body, "date_interval", ["body"], DateInterval.values, { required: true })
    const dr = c.object(body, "date_range", ["body"], { required: true })
    let date_range: TimeSeriesRequest["date_range"] | undefined
    if (dr !== undefined) {
      const min = c.date(dr, "min", ["body", "date_range"], { required: true })
      const max = c.date(dr, "max", ["body", "date_range"], { nullable: true })
      if (typeof min === "string") {
        const snappedMin = previousMonday(min)
        const snappedMax = previousSunday(typeof max === "string" ? max : isoDate(nowMs))
        date_range = { min: snappedMin, max: snappedMax }
      }
    }
    return Effect.as(c.result, { ...filter, data_point: data_point!, date_interval: date_interval!, date_range: date_range! })
  })

export const makeMarketAnalyticsHandlers = (ctx: SandboxContext) => {
  const withFilter = (f: (filter: MarketFilter, nowMs: number) => unknown): Handler =>
    Effect.gen(function* () {
      const filter = yield* Effect.flatMap(jsonBody(), checkMarketFilter)
      return ok(f(filter, ctx.clock.now()))
    })
  return {
    /** Spec: 200 list of `{date_start, value}`; 204 when there is no data. */
    timeSeries: (): Handler =>
      Effect.gen(function* () {
        const now = ctx.clock.now()
        const req = yield* Effect.flatMap(jsonBody(), (b) => checkTimeSeries(b, now))
        const max = req.date_range.max
        if (typeof max === "string" && max < req.date_range.min) return noContent
        const points = ctx.world.timeSeries(req, now)
        return points.length === 0 ? noContent : ok(points)
      }),
    bedrooms: (): Handler => withFilter((f, now) => ctx.world.bedroomsDistribution(f, now)),
    prices: (): Handler => withFilter((f, now) => ctx.world.pricesDistribution(f, now)),
    properties: (): Handler => withFilter((f, now) => ctx.world.propertiesDistribution(f, now)),
    timeOnMarket: (): Handler => withFilter((f, now) => ctx.world.timeOnMarketDistribution(f, now)),
    analysis: (): Handler => withFilter((f, now) => ctx.world.analysis(f, now))
  }
}
