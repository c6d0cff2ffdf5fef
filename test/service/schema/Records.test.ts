import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  Agencies,
  AlertEnvelope,
  AlertEvent,
  AlertsApiFeedPage,
  BadRequestBody,
  BedroomsDistribution,
  ComparablesEnvelope,
  DeleteFeedResult,
  DescribeResponse,
  DetailBody,
  FeatureGroups,
  LegacyFeeds,
  LocationByCoordinates,
  LocationReferences,
  LoginTokens,
  MarketAnalysis,
  NotFoundBody,
  nullOr,
  PlotError,
  PlotSearchResponse,
  PremisesResponse,
  PricesDistribution,
  Problem,
  PropertiesDistribution,
  Property,
  PropertyEnvelope,
  PropertyMatches,
  RefreshedToken,
  ResolveResponse,
  RotatedSecret,
  SellerLeadsPage,
  SmartLink,
  Sources,
  SourcingSearchResponse,
  splitExtra,
  TimeOnMarketDistribution,
  TimeSeriesPoints,
  TokenHostErrorBody,
  TypeaheadSuggestions,
  TypeReferences,
  UnprocessableBody,
  ZipcodeBoundary
} from "../../../src/service/schema/index.js"
import { alert, plotResult, property, propertyEnvelope, sourcingProperty } from "./fixtures.js"

const decode = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): A => Schema.decodeUnknownSync(schema)(input)

describe("property record", () => {
  it("decodes the spec's shape with every nested part", () => {
    const env = decode(PropertyEnvelope, propertyEnvelope(7))
    expect(env.results.property_id).toBe(7)
    expect(env.results.listings?.[1]?.companies?.[0]?.name).toBe("Agency One")
    expect(env.results.sale_time_on_market?.days_on_market).toBe(92)
    expect(env.results.locations_structure?.map((l) => l.administrative_level)).toEqual(["municipality", "region", "country"])
    expect(env.results.features?.views).toEqual(["city", "park"])
  })

  it("keeps unknown fields at every level, and splitExtra separates them", () => {
    const p = property(1)
    const input = {
      ...p,
      energy_index: 42,
      location: { ...p.location, population: 3_000_000 },
      listings: [{ ...p.listings[0], video_url: "https://v.example/1" }]
    }
    const out = decode(Property, input) as Record<string, unknown>
    expect(out["energy_index"]).toBe(42)
    expect((out["location"] as Record<string, unknown>)["population"]).toBe(3_000_000)
    expect((out["listings"] as Array<Record<string, unknown>>)[0]!["video_url"]).toBe("https://v.example/1")
    const { extra, known } = splitExtra(Property.fields, out)
    expect(extra).toEqual({ energy_index: 42 })
    expect(Object.keys(known)).toHaveLength(Object.keys(p).length)
    expect(known["property_id"]).toBe(1)
  })

  it("accepts null and absent for fields not marked required", () => {
    const { listings: _l, features: _f, ...rest } = property(2)
    const out = decode(Property, { ...rest, sale_price: null, location: null, condition: null })
    expect(out.sale_price).toBeNull()
    expect(out.listings).toBeUndefined()
  })

  it("is strict on types: a drifted record fails and names the field", () => {
    const drifted = { ...property(3), total_area: "90" }
    const r = Schema.decodeUnknownEither(Property)(drifted)
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isLeft(r)) expect(r.left.message).toContain("total_area")
    expect(Either.isLeft(Schema.decodeUnknownEither(Property)({ ...property(3), type: "castle" }))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(Property)({ ...property(3), bedrooms: 2.5 }))).toBe(true)
    const { property_id: _id, ...noId } = property(3)
    expect(Either.isLeft(Schema.decodeUnknownEither(Property)(noId))).toBe(true)
  })

  it("match-by-listings answer", () => {
    expect(decode(PropertyMatches, [{ property_id: 1, listing_ids: [10, 11] }])[0]!.listing_ids).toEqual([10, 11])
  })
})

describe("nullOr fast path", () => {
  it("accepts exactly what Schema.NullOr accepts", () => {
    const values: Array<unknown> = [null, undefined, 1, 1.5, NaN, "a", true, [], ["a"], [1], ["a", 1], {}, "sale", "x"]
    const cases: Array<Schema.Schema.Any> = [
      Schema.Number,
      Schema.Int,
      Schema.String,
      Schema.Boolean,
      Schema.Literal("sale", "rent"),
      Schema.Literal("sale"),
      Schema.Array(Schema.String),
      Schema.Array(Schema.Int)
    ]
    for (const s of cases) {
      for (const v of values) {
        const slow = Schema.is(Schema.NullOr(s as Schema.Schema<unknown>))(v)
        const fast = Schema.is(nullOr(s as Schema.Schema<unknown>))(v)
        expect([String(s.ast), v, fast]).toEqual([String(s.ast), v, slow])
      }
    }
  })
})

describe("token host records", () => {
  it("alert envelope, with extras kept", () => {
    const env = decode(AlertEnvelope, {
      count: 2,
      next: "https://api.example/x?offset=2",
      previous: null,
      results: [alert(1), { ...alert(2), score: 1 }]
    })
    expect(env.results[1]!.alert_subtype).toBe("price_down")
    expect((env.results[1] as Record<string, unknown>)["score"]).toBe(1)
  })
  it("comparables envelope (extras of the 60 members kept)", () => {
    const { listings: _l, ...p } = property(5)
    const env = decode(ComparablesEnvelope, { results: [{ ...p, distance: 1.2, similarity: 0.9 }] })
    expect(env.results[0]!.distance).toBe(1.2)
    expect((env.results[0] as Record<string, unknown>)["similarity"]).toBe(0.9)
  })
  it("time series, distributions, analysis", () => {
    expect(decode(TimeSeriesPoints, [{ date_start: "2025-01-06", value: 3100.5 }])[0]!.value).toBe(3100.5)
    decode(BedroomsDistribution, [{ bedrooms: 2, count: 10 }])
    decode(PricesDistribution, [{ min: 0, max: 100000, count: 4 }])
    decode(PropertiesDistribution, {
      quartiles: { q1: 1, q2: 2, q3: 3 },
      properties: [{ property_id: 1, price: 1, price_per_sqm: 1, total_area: 1, bedrooms: 1 }]
    })
    decode(TimeOnMarketDistribution, [{ min_price: 0, max_price: 1, days: 30, months: 1 }])
    decode(MarketAnalysis, {
      avg_price: 1,
      avg_price_psqm: 1,
      median_price: 1,
      available_on_market: 3,
      avg_days_on_market: 4,
      price_trend_pct: -1.5
    })
  })
  it("references", () => {
    decode(FeatureGroups, [{ group: "floor", names: ["ground", "top"] }])
    decode(Sources, { domains: ["portal.example"] })
    decode(Agencies, [{ agency_id: 1, name: "A", country: "ES" }])
    decode(TypeReferences, [{ name: "apartment", group: "apartment", countries: ["ES"] }])
    decode(LocationReferences, [
      { location_id: 1, name: "Spain", administrative_level: "country", zip_codes: [], parent_id: null, country: "ES" }
    ])
    decode(LocationByCoordinates, {
      location: { location_id: 3, name: "X", administrative_level: "district", zip_codes: [] },
      locations_structure: []
    })
    decode(TypeaheadSuggestions, [{ location_id: 3, name: "Lisboa", administrative_level: "municipality" }])
    decode(ZipcodeBoundary, { country_code: "ES", zip_code: "28001", polygon: [{ latitude: 1, longitude: 2 }] })
  })
  it("auth, smart links, feeds", () => {
    decode(LoginTokens, { access_token: "a", refresh_token: "r" })
    decode(RefreshedToken, { access_token: "a" })
    decode(SmartLink, { id: "sl_1", url: "https://s.example/sl_1" })
    decode(LegacyFeeds, [{ id: 1, name: "f", filter: { alert_subtypes: ["new"] }, created_at: "2025-01-01T00:00:00Z" }])
    decode(AlertsApiFeedPage, {
      count: 1,
      next: null,
      previous: null,
      results: [{ feed_id: "feed_1", name: "f", filter: {}, created_at: "2025-01-01T00:00:00Z" }]
    })
    decode(DeleteFeedResult, { success: true })
    decode(RotatedSecret, { secret: "whsec_abc" })
    expect(decode(AlertEvent, { type: "alert.sold", timestamp: "2025-01-01T00:00:00Z", data: alert(9) }).data.alert_id).toBe(9)
  })
  it("error bodies", () => {
    decode(BadRequestBody, { message: "bad", errors: null, details: null })
    decode(DetailBody, { detail: "Not authenticated" })
    decode(NotFoundBody, { errors: { id: "not found" } })
    const body422 = {
      detail: [{ loc: ["body", "comparables_count"], msg: "too big", type: "less_than_equal", input: 60, ctx: { le: 50 } }]
    }
    expect(decode(UnprocessableBody, body422).detail[0]!.loc).toEqual(["body", "comparables_count"])
    expect("detail" in decode(TokenHostErrorBody, body422)).toBe(true)
    expect("message" in decode(TokenHostErrorBody, { message: "bad", errors: ["x"], details: "y" })).toBe(true)
  })
})

describe("platform records", () => {
  it("problem with payment_url and open extensions", () => {
    const p = decode(Problem, {
      type: "https://platform.example/errors/payment-required",
      title: "Payment required",
      status: 402,
      detail: "Units exhausted",
      instance: "/v1/ai/search",
      code: "payment_required",
      request_id: "req_1",
      payment_url: "https://pay.example/x",
      balance: 0
    })
    expect(p.payment_url).toBe("https://pay.example/x")
    expect((p as Record<string, unknown>)["balance"]).toBe(0)
  })
  it("plot search response, result objects and error body", () => {
    const r = decode(PlotSearchResponse, {
      scope: "plots",
      country: "de",
      count: 1,
      returned: 1,
      offset: 0,
      criteria: { limit: 20 },
      note: "approximate",
      results: [{ ...plotResult, facts_from_text: { zoning_class: "GE", serviced: true, grz: 0.8 } }]
    })
    expect(r.results[0]!.commercial_use?.level).toBe("zoned_commercial")
    expect((r.results[0]!.facts_from_text as Record<string, unknown>)["grz"]).toBe(0.8)
    expect(decode(PlotError, { error: { code: "quota_reached", message: "Daily quota reached" } }).error.code).toBe("quota_reached")
  })
  it("premises answer keeps any keys", () => {
    const r = decode(PremisesResponse, {
      query: {},
      count: 1,
      returned: 1,
      offset: 0,
      results: [{ id: "prem_1", title: "Local", rooms: 3 }],
      brief: "x"
    })
    expect((r as Record<string, unknown>)["brief"]).toBe("x")
    expect((r.results![0] as Record<string, unknown>)["rooms"]).toBe(3)
  })
  it("sourcing search, describe, resolve; seller leads", () => {
    decode(SourcingSearchResponse, { search_id: "srch_1", count: 1, returned: 1, results: [sourcingProperty], next: null })
    expect(
      decode(DescribeResponse, { search_id: "srch_1", count: 0, returned: 0, results: [], next: null, tags: ["terrace"] }).tags
    ).toEqual(["terrace"])
    const detail = {
      ...sourcingProperty,
      bathrooms: 1,
      plot_area_m2: 0,
      living_area_m2: 80,
      construction_year: 1990,
      energy_rating: "C",
      condition: "used",
      features: { floor: "top", orientation: null, views: [], directions: [], characteristics: [] },
      address: "Calle 1",
      description: "x",
      status: "active"
    }
    expect(decode(ResolveResponse, { matched_by: "url", property: detail }).property.status).toBe("active")
    const lead = {
      id: "lead_1",
      property_id: "prop_1",
      home: sourcingProperty,
      price_cuts: 2,
      price_cut_pct: 8.5,
      first_price: 300000,
      current_price: 274500,
      price_history: [{ date: "2025-01-01", price: 300000 }],
      status_history: [{ date: "2025-01-01", status: "active" }]
    }
    expect(decode(SellerLeadsPage, { count: 1, returned: 1, results: [lead], next: null }).results[0]!.price_cuts).toBe(2)
  })
})
