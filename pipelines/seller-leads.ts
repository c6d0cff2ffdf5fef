/**
 * seller-leads: High Potential Seller Leads (`GET /v1/seller-leads`) around points: homes for
 * sale whose asking price was cut at least `min_price_cuts` times by at least
 * `min_price_cut_pct` percent in all (over the time on the market, or since `since`). One slice
 * per point, offset pages (1 unit each, Assumed). Lands `seller_leads` (a history table by lead
 * id, `seller_leads_current` the latest version, with the home's fields and the name of the point
 * it was found around: the point a version was first seen at, as finding a lead near another
 * point is no change of the lead), `seller_lead_price_history` and `seller_lead_status_history`.
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { columnsVia, sourcingPropertyColumns } from "../src/normalize/records/SourcingRows.js"
import { extra } from "../src/normalize/Values.js"
import type { Row } from "../src/normalize/Table.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { numberBetween } from "../src/service/schema/Rules.js"
import { Lead, SellerLeadsQuery } from "../src/service/schema/SellerLeads.js"

const q = SellerLeadsQuery.fields

const Point = Schema.Struct({
  /** A label kept on the leads found around the point. */
  name: Schema.optional(Schema.String),
  latitude: q.latitude,
  longitude: q.longitude,
  /** 0.1 to 50 km; default the run's `radius_km`. */
  radius_km: q.radius_km
})
type Point = typeof Point.Type

const Params = Schema.Struct({
  points: Schema.Array(Point).pipe(Schema.minItems(1)),
  /** Radius of points that do not set one, km. Default 2 (the service's default). */
  radius_km: Schema.optionalWith(numberBetween(0.1, 50), { default: () => 2 }),
  /** At least this many cuts (service default 1). */
  min_price_cuts: q.min_price_cuts,
  /** Cuts adding up to at least this percent (service default 5). */
  min_price_cut_pct: q.min_price_cut_pct,
  /** Count cuts since this date (YYYY-MM-DD) instead of over the time on the market. */
  since: q.since,
  /** Page size, 1 to 200. Default 200. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 200)), { default: () => 200 }),
  /** At most this many pages per point. Default 20. */
  maxPages: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), { default: () => 20 }),
  /** Points fetched at once. Default 4. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 4 })
}).pipe(
  Schema.filter((p) => {
    const keys = new Set<string>()
    for (const [i, point] of p.points.entries()) {
      const key = pointKey(point, p.radius_km)
      if (keys.has(key)) return { path: ["points", i], message: `the point ${key} is listed twice` }
      keys.add(key)
    }
    return true
  })
)
type Params = typeof Params.Type

/** Stable slice key: `lat,lon,radius`. */
export const pointKey = (point: Point, radius: number) => `${point.latitude},${point.longitude},${point.radius_km ?? radius}`

/** A lead with the point it was found around. */
const Found = Schema.Struct({ point: Schema.NullOr(Schema.String), lead: Lead })
type Found = typeof Found.Type

const knownLead = new Set(Object.keys(Lead.fields))
const leads = flatTable<Found, PageContext>(
  "seller_leads",
  {
    id: ["VARCHAR", (f) => f.lead.id],
    point_name: ["VARCHAR", (f) => f.point],
    point_key: ["VARCHAR", (_f, c) => c.slice],
    price_cuts: ["INTEGER", (f) => f.lead.price_cuts],
    price_cut_pct: ["DOUBLE", (f) => f.lead.price_cut_pct],
    first_price: ["DOUBLE", (f) => f.lead.first_price],
    current_price: ["DOUBLE", (f) => f.lead.current_price],
    ...columnsVia(sourcingPropertyColumns, (f: Found) => f.lead.home),
    /** The home's Property Sourcing id (`prop_...`). */
    property_id: ["VARCHAR", (f) => f.lead.property_id],
    extracted_at: ["TIMESTAMP", (_f, c) => c.extractedAt],
    extra: ["JSON", (f) => extra(f.lead, knownLead)]
  },
  // every version of a lead; the point it was found around is no change of the lead
  { primaryKey: ["id"], disposition: "history", partitionBy: ["country"], volatile: ["point_name", "point_key"] }
)

const prices = flatTable<Row, unknown>(
  "seller_lead_price_history",
  { lead_id: "VARCHAR", seq: "INTEGER", date: "DATE", price: "DOUBLE" },
  {
    primaryKey: ["lead_id", "seq"],
    disposition: "merge"
  }
)
const statuses = flatTable<Row, unknown>(
  "seller_lead_status_history",
  { lead_id: "VARCHAR", seq: "INTEGER", date: "DATE", status: "VARCHAR" },
  {
    primaryKey: ["lead_id", "seq"],
    disposition: "merge"
  }
)

const queryOf = (p: Params, point: Point) => ({
  latitude: point.latitude,
  longitude: point.longitude,
  radius_km: point.radius_km ?? p.radius_km,
  ...(p.min_price_cuts !== undefined ? { min_price_cuts: p.min_price_cuts } : {}),
  ...(p.min_price_cut_pct !== undefined ? { min_price_cut_pct: p.min_price_cut_pct } : {}),
  ...(p.since !== undefined ? { since: p.since } : {})
})

export default definePipeline({
  name: "seller-leads",
  description: "High Potential Seller Leads around points, with price and status histories",
  host: "platform",
  notReloadable: "each record carries the name of the point it was found around, which the response does not",
  params: Params,
  source: fanOut({
    keys: (p: Params) => p.points.map((point) => ({ point, key: pointKey(point, p.radius_km) })),
    key: (k) => k.key,
    concurrency: (p) => p.concurrency,
    pager: ({ point }, p: Params) =>
      offset({
        limit: p.pageSize,
        maxPages: p.maxPages,
        fetch: ({ offset, limit }) =>
          Effect.flatMap(PlatformClient, (c) => c.sellerLeads({ ...queryOf(p, point), limit, offset })).pipe(
            Effect.map((r) => pageOf(r, "seller_leads", (lead) => ({ point: point.name ?? null, lead })))
          )
      })
  }),
  cost: {
    operation: "seller_leads",
    estimate: (p) =>
      Effect.succeed({
        requests: p.points.length * p.maxPages,
        exact: false,
        note: `at most ${p.maxPages} pages of ${p.pageSize} for each of ${p.points.length} point(s)`
      })
  },
  tables: [leads.spec, prices.spec, statuses.spec],
  records: {
    table: leads.spec.name,
    schema: Found,
    toRows: (f, ctx) => {
      const id = f.lead.id
      const priceRows: Array<Row> = []
      const statusRows: Array<Row> = []
      for (const [seq, h] of (f.lead.price_history ?? []).entries())
        priceRows.push(prices.row({ lead_id: id, seq, date: h.date, price: h.price }, undefined))
      for (const [seq, h] of (f.lead.status_history ?? []).entries())
        statusRows.push(statuses.row({ lead_id: id, seq, date: h.date, status: h.status }, undefined))
      return { [leads.spec.name]: [leads.row(f, ctx)], [prices.spec.name]: priceRows, [statuses.spec.name]: statusRows }
    }
  },
  shardable: true
})
