/**
 * seller-leads: High Potential Seller Leads (`GET /v1/seller-leads`) around points: homes for
 * sale whose asking price was cut at least `min_price_cuts` times by at least
 * `min_price_cut_pct` percent in all (over the time on the market, or since `since`). One slice
 * per point, offset pages (1 unit each, Assumed). Lands `seller_leads` (a history table by lead
 * id, `seller_leads_current` the latest version, with the home's fields and the name of the point
 * it was found around: the point a version was first seen at, as finding a lead near another
 * point is no change of the lead), `seller_lead_price_history` and `seller_lead_status_history`.
 *
 * Incremental: without `since`, a point read before is read "since" the newest history date its
 * leads carried, less `sinceOverlapDays` (the service's own dates: a client clock ahead of or
 * behind the service's skips nothing); its first read, and any after `--full-refresh`, reads
 * every lead. A since read returns the leads whose cuts *since that date* meet the criteria, and
 * counts `price_cuts`/`price_cut_pct`/`first_price` over that window: `cuts_since` says so on
 * each row (null: over the time on the market). A lead cut once since, whose earlier cuts made
 * it qualify, is not in a since read: the weekly full pull (`--full-refresh`) brings it.
 *
 * Since reads are made only where they can match (`incremental`): a rule asking for two cuts or
 * more, counted over a window of a day or two, matched nothing on 7 of 7 sandbox nights (issue
 * 32) while the new leads and price changes waited a week. Such a rule reads every point in full
 * each run instead: one page a point whose leads fit a page, the units a since read costs.
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { sinceWatermark } from "../src/extract/Incremental.js"
import { fanOut, fullReadPlan, pagesOf, plannedSlicesReadBefore } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { columnsVia, sourcingPropertyColumns } from "../src/normalize/records/SourcingRows.js"
import { extra } from "../src/normalize/Values.js"
import type { Row } from "../src/normalize/Table.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { numberBetween } from "../src/service/schema/Rules.js"
import { Lead, SellerLeadsQuery } from "../src/service/schema/SellerLeads.js"
import { MONEY } from "../src/normalize/records/NestedTypes.js"

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
  /**
   * Count cuts since this date (YYYY-MM-DD) instead of over the time on the market, in every read.
   * Default: a point's first read counts over the time on the market, later ones since its watermark.
   */
  since: q.since,
  /**
   * Days before a point's watermark (the newest history date its leads carried) a later read
   * starts. Assumed (the spec does not say how soon a cut shows in the lead search): a cut is
   * listed within a day of its date. 0..365, default 1.
   */
  sinceOverlapDays: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 365)), { default: () => 1 }),
  /**
   * Read a point read before only "since" its watermark. Default: only when the rule can match a
   * window of a day, i.e. `min_price_cuts` is 1 or unset; false reads every point in full each run.
   * Assumed (the spec counts cuts "over the whole time on the market or since a date", as the
   * sandbox does): a since read counts only the window's cuts, so two since yesterday are all but
   * never seen.
   */
  incremental: Schema.optional(Schema.Boolean),
  /** Page size, 1 to 200. Default 200. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 200)), { default: () => 200 }),
  /**
   * At most this many pages per point: a sample (a point cut by it is incomplete unless the run is
   * a sample, `--sample`). Default none: the count or next link ends a point's read.
   */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_000))),
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

/** Whether a point read before is read since its watermark (see `incremental`). */
export const readsSince = (p: { readonly incremental?: boolean | undefined; readonly min_price_cuts?: number | undefined }) =>
  p.incremental ?? (p.min_price_cuts ?? 1) <= 1

/** Stable slice key: `lat,lon,radius`. */
export const pointKey = (point: Point, radius: number) => `${point.latitude},${point.longitude},${point.radius_km ?? radius}`

/** A lead with the point it was found around and the date its cuts are counted since (null: the time on the market). */
const Found = Schema.Struct({
  point: Schema.NullOr(Schema.String),
  since: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  lead: Lead
})
type Found = typeof Found.Type

/**
 * Assumed: a lead's prices (`first_price`, `current_price`, its price history and the home's
 * `price_eur`) are EUR: the spec shows no currency, and the lead countries (Spain, France, Italy,
 * Germany, Greece, Andorra) all use the euro.
 */
const LEAD_CURRENCY = "EUR"

const knownLead = new Set(Object.keys(Lead.fields))
const leads = flatTable.of<Found, PageContext>()(
  "seller_leads",
  {
    id: ["VARCHAR", (f) => f.lead.id],
    point_name: ["VARCHAR", (f) => f.point],
    point_key: ["VARCHAR", (_f, c) => c.slice],
    /** The date `price_cuts`, `price_cut_pct` and `first_price` count from; null: over the time on the market. */
    cuts_since: ["DATE", (f) => f.since],
    price_cuts: ["INTEGER", (f) => f.lead.price_cuts],
    price_cut_pct: ["DOUBLE", (f) => f.lead.price_cut_pct],
    first_price: [MONEY, (f) => f.lead.first_price],
    current_price: [MONEY, (f) => f.lead.current_price],
    ...columnsVia(sourcingPropertyColumns, (f: Found) => f.lead.home),
    currency: ["VARCHAR", () => LEAD_CURRENCY],
    /** The home's Property Sourcing id (`prop_...`). */
    property_id: ["VARCHAR", (f) => f.lead.property_id],
    extracted_at: ["TIMESTAMPTZ", (_f, c) => c.extractedAt],
    extra: ["JSON", (f) => extra(f.lead, knownLead)]
  },
  // every version of a lead; the point it was found around is no change of the lead
  { primaryKey: ["id"], disposition: "history", partitionBy: ["country"], volatile: ["point_name", "point_key"] }
)

const prices = flatTable.of<Row, unknown>()(
  "seller_lead_price_history",
  { lead_id: "VARCHAR", seq: "INTEGER", date: "DATE", price: MONEY, currency: ["VARCHAR", () => LEAD_CURRENCY] },
  {
    primaryKey: ["lead_id", "seq"],
    disposition: "merge"
  }
)
const statuses = flatTable.of<Row, unknown>()(
  "seller_lead_status_history",
  { lead_id: "VARCHAR", seq: "INTEGER", date: "DATE", status: "VARCHAR" },
  {
    primaryKey: ["lead_id", "seq"],
    disposition: "merge"
  }
)

const queryOf = (p: Params, point: Point, since: string | null) => ({
  latitude: point.latitude,
  longitude: point.longitude,
  radius_km: point.radius_km ?? p.radius_km,
  ...(p.min_price_cuts !== undefined ? { min_price_cuts: p.min_price_cuts } : {}),
  ...(p.min_price_cut_pct !== undefined ? { min_price_cut_pct: p.min_price_cut_pct } : {}),
  ...(since !== null ? { since } : {})
})

/** The service's dates a lead carries: its price and status history. */
const datesOf = (found: unknown): Array<unknown> => {
  const lead = (found as { lead?: { price_history?: unknown; status_history?: unknown } } | null)?.lead
  const dates = (h: unknown) => (Array.isArray(h) ? h.map((x) => (x as { date?: unknown } | null)?.date) : [])
  return [...dates(lead?.price_history), ...dates(lead?.status_history)]
}

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
      sinceWatermark({
        fixed: p.since,
        overlapDays: p.sinceOverlapDays,
        datesOf,
        // a rule that cannot match a window reads in full, whatever the watermark says
        read: (watermark) => {
          const since = p.since !== undefined || readsSince(p) ? watermark : null
          return offset({
            limit: p.pageSize,
            maxPages: p.maxPages,
            fetch: ({ offset, limit }) =>
              Effect.flatMap(PlatformClient, (c) => c.sellerLeads({ ...queryOf(p, point, since), limit, offset })).pipe(
                Effect.map((r) => pageOf(r, (lead) => ({ point: point.name ?? null, since, lead })))
              ),
            follow: (next) =>
              Effect.flatMap(PlatformClient, (c) => c.sellerLeadsNext(next)).pipe(
                Effect.map((r) => pageOf(r, (lead) => ({ point: point.name ?? null, since, lead })))
              )
          })
        }
      })
  }),
  cost: {
    operation: "seller_leads",
    // a point's full read as its last full read took (at most maxPages); a point read before
    // reads since its watermark: one page expected
    estimate: (p) =>
      Effect.gen(function* () {
        const keys = p.points.map((point) => pointKey(point, p.radius_km))
        const before = yield* plannedSlicesReadBefore
        const last = yield* fullReadPlan(keys, { maxPages: p.maxPages, pageSize: p.pageSize })
        const full = last.pages
        const since = p.since === undefined && readsSince(p) ? keys.filter((k) => before.has(k)).length : 0
        const note =
          p.maxPages !== undefined
            ? `at most ${pagesOf(p.maxPages, p.pageSize)} for each of ${p.points.length} point(s)`
            : `${pagesOf(full, p.pageSize)} for ${p.points.length} point(s)${last.known < keys.length ? ` (${keys.length - last.known} never read in full: one page each until their count says more)` : ", as the last full read"}`
        if (since === 0) return { requests: full, exact: false, note }
        return {
          requests: Math.min(full, p.points.length),
          exact: false,
          fullRequests: full,
          note: `${since} point(s) read since their last read: one page each expected (a full pull: ${note})`
        }
      })
  },
  tables: [leads.spec, prices.spec, statuses.spec],
  records: {
    table: leads.spec.name,
    schema: Found,
    key: (found) => (found as { lead?: { id?: string } } | null)?.lead?.id,
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
  // each point is a slice (its key: latitude, longitude, radius): another list of points closes
  // nothing of the points it keeps
  scopeIgnores: ["points"],
  shardable: true
})
