/**
 * Every rule of the comparables v2 table, over HTTP: field rules answer 422 with the item at the
 * field's `loc`, rules across fields answer 400 `{message, errors, details}`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TokenHostFixture, hasIssue, startTokenHost } from "./serveTokenHost.js"

const PATH = "/api/v2/comparables/search"
const point = (latitude: number, longitude: number) => ({ latitude, longitude })
const square = [point(40.41, -3.71), point(40.41, -3.69), point(40.43, -3.69), point(40.43, -3.71), point(40.41, -3.71)]

const base = () => ({
  comparables_count: 10,
  location_boundary: { circle: { distance: 5, target_point: { coordinates: point(40.4168, -3.7038) } } },
  operation: "sale",
  comparables_types: ["apartment", "penthouse"]
})
type Body = Record<string, any>
const withBody = (f: (b: Body) => void) => {
  const b: Body = base()
  f(b)
  return b
}

/** [rule, body, field loc, 422 type] */
const FIELD_RULES: ReadonlyArray<readonly [string, Body, string, string]> = [
  ["comparables_count required", withBody((b) => delete b.comparables_count), "body.comparables_count", "missing"],
  ["comparables_count at least 1", withBody((b) => (b.comparables_count = 0)), "body.comparables_count", "greater_than_equal"],
  ["comparables_count at most 50", withBody((b) => (b.comparables_count = 51)), "body.comparables_count", "less_than_equal"],
  ["comparables_count integer", withBody((b) => (b.comparables_count = 2.5)), "body.comparables_count", "int_from_float"],
  ["location_boundary required", withBody((b) => delete b.location_boundary), "body.location_boundary", "missing"],
  [
    "polygon at least 4 points",
    withBody((b) => (b.location_boundary = { polygon: square.slice(0, 3) })),
    "body.location_boundary.polygon",
    "too_short"
  ],
  [
    "polygon latitude -90..90",
    withBody((b) => (b.location_boundary = { polygon: [point(91, 0), ...square.slice(1, 4), point(91, 0)] })),
    "body.location_boundary.polygon.0.latitude",
    "less_than_equal"
  ],
  [
    "polygon longitude -180..180",
    withBody((b) => (b.location_boundary = { polygon: [point(0, -181), ...square.slice(1, 4), point(0, -181)] })),
    "body.location_boundary.polygon.0.longitude",
    "greater_than_equal"
  ],
  [
    "circle distance at least 0.05 km",
    withBody((b) => (b.location_boundary.circle.distance = 0.04)),
    "body.location_boundary.circle.distance",
    "greater_than_equal"
  ],
  [
    "circle distance at most 50 km",
    withBody((b) => (b.location_boundary.circle.distance = 50.5)),
    "body.location_boundary.circle.distance",
    "less_than_equal"
  ],
  [
    "circle target_point required",
    withBody((b) => delete b.location_boundary.circle.target_point),
    "body.location_boundary.circle.target_point",
    "missing"
  ],
  [
    "target latitude range",
    withBody((b) => (b.location_boundary.circle.target_point.coordinates.latitude = -91)),
    "body.location_boundary.circle.target_point.coordinates.latitude",
    "greater_than_equal"
  ],
  [
    "cadastral country_code required",
    withBody((b) => (b.location_boundary.circle.target_point = { cadastral_reference: { cadastral_reference: "9872023VH5797S0001WX" } })),
    "body.location_boundary.circle.target_point.cadastral_reference.country_code",
    "missing"
  ],
  [
    "cadastral reference required",
    withBody((b) => (b.location_boundary.circle.target_point = { cadastral_reference: { country_code: "ES" } })),
    "body.location_boundary.circle.target_point.cadastral_reference.cadastral_reference",
    "missing"
  ],
  [
    "sold_or_rented_after a date",
    withBody((b) => (b.sold_or_rented_after = "yesterday")),
    "body.sold_or_rented_after",
    "date_from_datetime_parsing"
  ],
  ["operation required", withBody((b) => delete b.operation), "body.operation", "missing"],
  ["operation sale or rent", withBody((b) => (b.operation = "lease")), "body.operation", "literal_error"],
  ["comparables_types required", withBody((b) => delete b.comparables_types), "body.comparables_types", "missing"],
  ["comparables_types property types", withBody((b) => (b.comparables_types = ["castle"])), "body.comparables_types.0", "literal_error"],
  ["min_price at least 0", withBody((b) => (b.min_price = -1)), "body.min_price", "greater_than_equal"],
  ["min_price at most 2147483647", withBody((b) => (b.min_price = 2147483648)), "body.min_price", "less_than_equal"],
  ["max_price at least 1", withBody((b) => (b.max_price = 0)), "body.max_price", "greater_than_equal"],
  ["condition values", withBody((b) => (b.condition = "mint")), "body.condition", "literal_error"],
  ["bedrooms 0..15000", withBody((b) => (b.bedrooms = 15001)), "body.bedrooms", "less_than_equal"],
  ["rooms 0..15000", withBody((b) => (b.rooms = -1)), "body.rooms", "greater_than_equal"],
  ["bathrooms at least 1", withBody((b) => (b.bathrooms = 0)), "body.bathrooms", "greater_than_equal"],
  ["construction_year 1..3000", withBody((b) => (b.construction_year = 3001)), "body.construction_year", "less_than_equal"],
  ["total_area at least 5", withBody((b) => (b.total_area = 4)), "body.total_area", "greater_than_equal"],
  ["total_area at most 10000000", withBody((b) => (b.total_area = 10000001)), "body.total_area", "less_than_equal"],
  ["plot_area at least 20", withBody((b) => (b.plot_area = 19)), "body.plot_area", "greater_than_equal"],
  ["floors values", withBody((b) => (b.floors = ["basement"])), "body.floors.0", "literal_error"],
  ["floor_number -250..250", withBody((b) => (b.floor_number = [1, 251])), "body.floor_number.1", "less_than_equal"],
  ["orientation values", withBody((b) => (b.orientation = "north")), "body.orientation", "literal_error"],
  ["views values", withBody((b) => (b.views = ["sea"])), "body.views.0", "literal_error"],
  ["directions values", withBody((b) => (b.directions = ["up"])), "body.directions.0", "literal_error"],
  [
    "characteristics.must_have values",
    withBody((b) => (b.characteristics = { must_have: ["sauna"] })),
    "body.characteristics.must_have.0",
    "literal_error"
  ],
  [
    "characteristics.exclude values",
    withBody((b) => (b.characteristics = { exclude: ["pool"] })),
    "body.characteristics.exclude.0",
    "literal_error"
  ],
  ["energy_ratings values", withBody((b) => (b.energy_ratings = ["Z"])), "body.energy_ratings.0", "literal_error"],
  ["days_on_market_from 1..10000", withBody((b) => (b.days_on_market_from = 0)), "body.days_on_market_from", "greater_than_equal"],
  ["days_on_market_to 1..10000", withBody((b) => (b.days_on_market_to = 10001)), "body.days_on_market_to", "less_than_equal"],
  ["with_agencies strings", withBody((b) => (b.with_agencies = [3])), "body.with_agencies.0", "string_type"],
  ["exclude_outliers boolean", withBody((b) => (b.exclude_outliers = "yes")), "body.exclude_outliers", "bool_type"]
]

/** [rule, body, pattern of one of `errors`] */
const CROSS_RULES: ReadonlyArray<readonly [string, Body, RegExp]> = [
  ["exactly one of polygon or circle (both)", withBody((b) => (b.location_boundary.polygon = square)), /exactly one of polygon or circle/],
  ["exactly one of polygon or circle (none)", withBody((b) => (b.location_boundary = {})), /exactly one of polygon or circle/],
  ["polygon closed", withBody((b) => (b.location_boundary = { polygon: [...square.slice(0, 4), point(40.42, -3.7)] })), /closed/],
  [
    "target point: exactly one member (two)",
    withBody((b) => (b.location_boundary.circle.target_point.address = "Calle Mayor 1, Madrid")),
    /exactly one of coordinates, address or cadastral_reference/
  ],
  [
    "target point: exactly one member (none)",
    withBody((b) => (b.location_boundary.circle.target_point = {})),
    /exactly one of coordinates, address or cadastral_reference/
  ],
  [
    "cadastral reference Spain only",
    withBody((b) => (b.location_boundary.circle.target_point = { cadastral_reference: { country_code: "PT", cadastral_reference: "X1" } })),
    /Spain/
  ],
  ["types of one group", withBody((b) => (b.comparables_types = ["apartment", "villa"])), /one type group/],
  ["bedrooms xor rooms", withBody((b) => Object.assign(b, { bedrooms: 2, rooms: 3 })), /bedrooms and rooms/],
  ["total_area for commercial types", withBody((b) => (b.comparables_types = ["office", "retail"])), /total_area is required/],
  ["plot_area for plot types", withBody((b) => (b.comparables_types = ["urban_plot"])), /plot_area is required/]
]

describe("POST /api/v2/comparables/search validation", () => {
  let h: TokenHostFixture
  let token: string
  beforeAll(async () => {
    h = await startTokenHost()
    token = (await h.login()).access_token
  })
  afterAll(() => h.close())

  it.each(FIELD_RULES)("422: %s", async (_rule, body, loc, type) => {
    const r = await h.call("POST", PATH, { token, body })
    expect(r.status).toBe(422)
    expect(hasIssue(r.body, loc, type), JSON.stringify(r.body)).toBe(true)
  })

  it.each(CROSS_RULES)("400: %s", async (_rule, body, pattern) => {
    const r = await h.call("POST", PATH, { token, body })
    expect(r.status).toBe(400)
    expect(Object.keys(r.body).sort()).toEqual(["details", "errors", "message"])
    expect(typeof r.body.message).toBe("string")
    expect(
      r.body.errors.some((e: string) => pattern.test(e)),
      JSON.stringify(r.body)
    ).toBe(true)
  })

  it("422 for a missing or malformed body", async () => {
    const empty = await h.call("POST", PATH, { token })
    expect(empty.status).toBe(422)
    expect(hasIssue(empty.body, "body", "missing")).toBe(true)
    const bad = await h.call("POST", PATH, { token, rawBody: "{not json" })
    expect(bad.status).toBe(422)
    expect(issuesOf422Type(bad.body)).toContain("json_invalid")
  })

  it("reports every field issue of a body at once", async () => {
    const r = await h.call("POST", PATH, {
      token,
      body: withBody((b) => Object.assign(b, { comparables_count: 99, bathrooms: 0, condition: "x" }))
    })
    expect(r.status).toBe(422)
    expect(r.body.detail.map((i: any) => i.loc.join("."))).toEqual(["body.comparables_count", "body.condition", "body.bathrooms"])
  })

  it("a cadastral reference lifts the area requirements; area types pass with the area", async () => {
    const cad = withBody((b) => {
      b.comparables_types = ["office"]
      b.location_boundary.circle.target_point = { cadastral_reference: { country_code: "ES", cadastral_reference: "9872023VH5797S0001WX" } }
    })
    expect([200, 404]).toContain((await h.call("POST", PATH, { token, body: cad })).status)
    const withArea = withBody((b) => Object.assign(b, { comparables_types: ["office"], total_area: 120 }))
    expect((await h.call("POST", PATH, { token, body: withArea })).status).toBe(200)
  })

  it("answers {results} with at most comparables_count comparables within the circle", async () => {
    const r = await h.call("POST", PATH, { token, body: withBody((b) => (b.comparables_count = 5)) })
    expect(r.status).toBe(200)
    expect(Array.isArray(r.body.results)).toBe(true)
    expect(r.body.results.length).toBeGreaterThan(0)
    expect(r.body.results.length).toBeLessThanOrEqual(5)
    for (const c of r.body.results) {
      expect(["apartment", "penthouse"]).toContain(c.type)
      expect(c.distance).toBeLessThanOrEqual(5)
    }
  })

  it("accepts the deprecated top-level fields", async () => {
    const r = await h.call("POST", PATH, {
      token,
      body: { comparables_count: 3, coordinates: point(40.4168, -3.7038), distance: 2, business_type: "sale", property_type: "apartment" }
    })
    expect(r.status).toBe(200)
  })
})

const issuesOf422Type = (body: any): Array<string> => body.detail.map((i: any) => i.type)
