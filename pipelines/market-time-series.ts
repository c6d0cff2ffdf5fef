/**
 * market-time-series: Area Insights time series (`POST /market-analytics-api/time-series`) for
 * areas (location ids one by one or grouped by up to 10, circles, polygons) x data points, for one
 * group of property types, one business type, one interval and one date range. A fan-out with one
 * slice per request (`loc=123|dp=avg_price`), landing `market_time_series` (one row per point) and
 * `market_time_series_requests` (one row per request and run, `empty` true when the host answered
 * 204, i.e. no data).
 */
import { Effect, Either, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import { batches, fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { DataPoint, DateInterval } from "../src/service/schema/Enums.js"
import { ClosedPolygon, intBetween, items, oneOf } from "../src/service/schema/Rules.js"
import { DateRange, MetresCircle, snapDateRange, TimeSeriesPoint, TimeSeriesRequest } from "../src/service/schema/TimeSeries.js"
import { validateRequest } from "../src/service/schema/Validation.js"
import { TokenClient } from "../src/service/TokenClient.js"
import type { TokenBody } from "../src/service/TokenRequests.js"
import { filterKey, fingerprint, marketScopeFields, typesKey } from "../src/normalize/records/MarketScope.js"
import { IDS } from "../src/normalize/records/NestedTypes.js"

/** One area of a request: a stable key and its `custom_location_boundary`. */
export interface Area {
  readonly key: string
  readonly boundary: TokenBody<"timeSeries">["custom_location_boundary"]
  readonly locationIds: ReadonlyArray<number> | null
}

const Base = Schema.Struct({
  /** Location ids; one request each, or groups of up to 10 with `aggregate: true`. Default none. */
  location_ids: Schema.optionalWith(Schema.Array(intBetween(1, 2147483647)), { default: () => [] }),
  /** Group location ids by 10 per request (one aggregated series per group). Default false. */
  aggregate: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Circles (`distance` metres 50..50000 around `target_point`), one request each. Default none. */
  circles: Schema.optionalWith(Schema.Array(MetresCircle), { default: () => [] }),
  /** Closed polygons, one request each. Default none. */
  polygons: Schema.optionalWith(Schema.Array(ClosedPolygon), { default: () => [] }),
  /** Data points, at least one; each is its own request per area. */
  data_points: items(oneOf(DataPoint.values), 1),
  date_interval: oneOf(DateInterval.values),
  /** `{min, max?}`; the server snaps min to its Monday and max to its Sunday (rows use the snapped dates). */
  date_range: DateRange,
  ...marketScopeFields
})
type Base = typeof Base.Type

const Params = Base.pipe(
  Schema.filter((p) => areasOf(p).length > 0 || "give at least one of location_ids, circles, polygons"),
  Schema.filter((p) => {
    // Every request the run will send, checked with the request schema before any call.
    for (const r of requestsOf(p)) {
      const v = validateRequest(TimeSeriesRequest, r.body)
      if (Either.isLeft(v)) return `request ${r.key}: ${v.left.message.split("\n").join("; ")}`
    }
    return true
  })
)
type Params = typeof Params.Type

type AreaParams = {
  readonly location_ids: ReadonlyArray<number>
  readonly aggregate: boolean
  readonly circles: ReadonlyArray<typeof MetresCircle.Type>
  readonly polygons: ReadonlyArray<typeof ClosedPolygon.Type>
}

/** The areas of the parameters, in a stable order. */
export const areasOf = (p: AreaParams): Array<Area> => [
  ...(p.aggregate
    ? batches(p.location_ids, 10).map((ids) => ({ key: `locs=${ids.join(",")}`, boundary: { location_ids: ids }, locationIds: ids }))
    : p.location_ids.map((id) => ({ key: `loc=${id}`, boundary: { location_ids: [id] }, locationIds: [id] }))),
  ...p.circles.map((c) => ({
    key: `circle=${c.target_point.latitude},${c.target_point.longitude},${c.distance}`,
    boundary: { circle: c },
    locationIds: null
  })),
  ...p.polygons.map((poly) => ({ key: `polygon=${fingerprint(poly)}`, boundary: { polygon: poly }, locationIds: null }))
]

interface Request {
  readonly key: string
  readonly area: Area
  readonly dataPoint: string
  readonly body: TokenBody<"timeSeries">
}

const requestsOf = (p: Base): Array<Request> =>
  areasOf(p).flatMap((area) =>
    p.data_points.map((dp) => ({
      key: `${area.key}|dp=${dp}`,
      area,
      dataPoint: dp,
      body: {
        ...p.filter,
        types: p.types,
        business_type: p.business_type,
        custom_location_boundary: area.boundary,
        data_point: dp,
        date_interval: p.date_interval,
        date_range: p.date_range
      }
    }))
  )

/** What a row knows about its request (built by the pipeline, not by the service). */
const RequestInfo = Schema.Struct({
  request_key: Schema.String,
  area_key: Schema.String,
  location_ids: Schema.NullOr(Schema.Array(Schema.Number)),
  types: Schema.String,
  business_type: Schema.String,
  data_point: Schema.String,
  date_interval: Schema.String,
  filter_key: Schema.String,
  date_range_min: Schema.String,
  date_range_max: Schema.NullOr(Schema.String)
})
type RequestInfo = typeof RequestInfo.Type

/** A page's records: one `request` record (points count, 204 or not) and one `point` record per point. */
const SeriesRecord = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("request"), request: RequestInfo, points: Schema.Number, empty: Schema.Boolean }),
  Schema.Struct({ kind: Schema.Literal("point"), request: RequestInfo, point: TimeSeriesPoint })
)
type SeriesRecord = typeof SeriesRecord.Type
type PointRecord = Extract<SeriesRecord, { kind: "point" }>
type RequestRecord = Extract<SeriesRecord, { kind: "request" }>

const single1 = (r: RequestInfo) => (r.location_ids && r.location_ids.length === 1 ? r.location_ids[0] : null)

// Assumed (docs/ASSUMPTIONS.md is silent): merge keeps the latest value of a point. The service
// recomputes a series on every call and the last interval is partial until it ends, so the newest
// extraction is the best value; revisions are not history worth keeping (the requests table has
// one row per run for that). The key includes the filter fingerprint: other filters, other series.
const series = flatTable.of<PointRecord, PageContext>()(
  "market_time_series",
  {
    area_key: ["VARCHAR", (r) => r.request.area_key],
    location_ids: [IDS, (r) => r.request.location_ids],
    location_id: ["BIGINT", (r) => single1(r.request)],
    types: ["VARCHAR", (r) => r.request.types],
    business_type: ["VARCHAR", (r) => r.request.business_type],
    data_point: ["VARCHAR", (r) => r.request.data_point],
    date_interval: ["VARCHAR", (r) => r.request.date_interval],
    filter_key: ["VARCHAR", (r) => r.request.filter_key],
    date_start: ["DATE", (r) => r.point.date_start],
    value: ["DOUBLE", (r) => r.point.value],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  {
    primaryKey: ["area_key", "types", "business_type", "data_point", "date_interval", "filter_key", "date_start"],
    disposition: "merge",
    partitionBy: ["data_point"]
  }
)

const requests = flatTable.of<RequestRecord, PageContext>()(
  "market_time_series_requests",
  {
    request_key: ["VARCHAR", (r) => r.request.request_key],
    area_key: ["VARCHAR", (r) => r.request.area_key],
    location_ids: [IDS, (r) => r.request.location_ids],
    types: ["VARCHAR", (r) => r.request.types],
    business_type: ["VARCHAR", (r) => r.request.business_type],
    data_point: ["VARCHAR", (r) => r.request.data_point],
    date_interval: ["VARCHAR", (r) => r.request.date_interval],
    filter_key: ["VARCHAR", (r) => r.request.filter_key],
    date_range_min: ["DATE", (r) => r.request.date_range_min],
    date_range_max: ["DATE", (r) => r.request.date_range_max],
    points: "INTEGER",
    /** True when the host answered 204 (no data for this request). */
    empty: "BOOLEAN"
  },
  { disposition: "append" }
)

const infoOf = (p: Params, r: Request): RequestInfo => {
  const snapped = snapDateRange(p.date_range)
  return {
    request_key: r.key,
    area_key: r.area.key,
    location_ids: r.area.locationIds,
    types: typesKey(p.types),
    business_type: p.business_type,
    data_point: r.dataPoint,
    date_interval: p.date_interval,
    filter_key: filterKey(p.filter),
    date_range_min: snapped.min,
    date_range_max: snapped.max ?? null
  }
}

export default definePipeline({
  name: "market-time-series",
  description: "Area Insights time series per area and data point (one request each), 204s recorded",
  host: "token",
  params: Params,
  source: fanOut({
    keys: (p: Params) => requestsOf(p),
    key: (r) => r.key,
    pager: (r, p) =>
      single(() =>
        Effect.flatMap(TokenClient, (c) => c.timeSeries(r.body)).pipe(
          Effect.map((res) => {
            const request = infoOf(p, r)
            const empty = res.status === 204 || res.raw === ""
            const points = res.page.records
            const records: Array<unknown> = [
              { kind: "request", request, points: points.length, empty },
              ...points.map((point) => ({ kind: "point", request, point }))
            ]
            return fetchedOf(res, records, { empty })
          })
        )
      ),
    concurrency: 4
  }),
  cost: {
    operation: "market_time_series",
    estimate: (p) => {
      const n = requestsOf(p).length
      return Effect.succeed({ requests: n, exact: true, note: `${areasOf(p).length} areas x ${p.data_points.length} data points` })
    }
  },
  tables: [series.spec, requests.spec],
  records: {
    table: "market_time_series",
    schema: SeriesRecord,
    toRows: (rec, ctx) =>
      rec.kind === "point" ? { market_time_series: [series.row(rec, ctx)] } : { market_time_series_requests: [requests.row(rec, ctx)] }
  },
  shardable: true
})
