/**
 * Every rule of the time-series table over HTTP (422 field rules, 400 rules across fields),
 * date snapping and 204.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkTimeSeries } from "../../../src/sandbox/token/MarketAnalytics.js"
import { START, type TokenHostFixture, hasIssue, startTokenHost } from "./serveTokenHost.js"

const PATH = "/market-analytics-api/time-series"
const point = (latitude: number, longitude: number) => ({ latitude, longitude })
const square = [point(40.41, -3.71), point(40.41, -3.69), point(40.43, -3.69), point(40.43, -3.71), point(40.41, -3.71)]

type Body = Record<string, any>
const base = (): Body => ({
  types: ["apartment"],
  business_type: "sale",
  custom_location_boundary: { location_ids: [1] },
  data_point: "avg_price",
  date_interval: "month",
  date_range: { min: "2026-01-05", max: "2026-06-28" }
})
const withBody = (f: (b: Body) => void) => {
  const b = base()
  f(b)
  return b
}

const RANGE_CASES: ReadonlyArray<readonly [string, "min" | "max", number, string]> = [
  ["price_range", "min", 0, "greater_than_equal"],
  ["price_range", "max", 2147483648, "less_than_equal"],
  ["price_per_sqm_range", "min", 0, "greater_than_equal"],
  ["rooms_range", "min", 0, "greater_than_equal"],
  ["bathrooms_range", "max", 15001, "less_than_equal"],
  ["bedrooms_range", "min", -1, "greater_than_equal"],
  ["bedrooms_range", "max", 15001, "less_than_equal"],
  ["total_area_range", "max", 1000001, "less_than_equal"],
  ["plot_area_range", "min", 0, "greater_than_equal"],
  ["construction_year_range", "max", 3001, "less_than_equal"]
]

const FIELD_RULES: ReadonlyArray<readonly [string, Body, string, string]> = [
  ["types required", withBody((b) => delete b.types), "body.types", "missing"],
  ["types at least 1", withBody((b) => (b.types = [])), "body.types", "too_short"],
  ["plot is not a time-series type", withBody((b) => (b.types = ["plot"])), "body.types.0", "literal_error"],
  ["business_type required", withBody((b) => delete b.business_type), "body.business_type", "missing"],
  ["business_type sale or rent", withBody((b) => (b.business_type = "both")), "body.business_type", "literal_error"],
  ["custom_location_boundary required", withBody((b) => delete b.custom_location_boundary), "body.custom_location_boundary", "missing"],
  [
    "location_ids at least 1 item",
    withBody((b) => (b.custom_location_boundary.location_ids = [])),
    "body.custom_location_boundary.location_ids",
    "too_short"
  ],
  [
    "location_ids at most 10 items",
    withBody((b) => (b.custom_location_boundary.location_ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])),
    "body.custom_location_boundary.location_ids",
    "too_long"
  ],
  [
    "location id at least 1",
    withBody((b) => (b.custom_location_boundary.location_ids = [0])),
    "body.custom_location_boundary.location_ids.0",
    "greater_than_equal"
  ],
  [
    "location id at most 2147483647",
    withBody((b) => (b.custom_location_boundary.location_ids = [2147483648])),
    "body.custom_location_boundary.location_ids.0",
    "less_than_equal"
  ],
  [
    "polygon at least 4 points",
    withBody((b) => (b.custom_location_boundary = { polygon: square.slice(0, 3) })),
    "body.custom_location_boundary.polygon",
    "too_short"
  ],
  [
    "circle distance required",
    withBody((b) => (b.custom_location_boundary = { circle: { target_point: point(40.4, -3.7) } })),
    "body.custom_location_boundary.circle.distance",
    "missing"
  ],
  [
    "circle distance at least 50 m",
    withBody((b) => (b.custom_location_boundary = { circle: { distance: 49, target_point: point(40.4, -3.7) } })),
    "body.custom_location_boundary.circle.distance",
    "greater_than_equal"
  ],
  [
    "circle distance at most 50000 m",
    withBody((b) => (b.custom_location_boundary = { circle: { distance: 50001, target_point: point(40.4, -3.7) } })),
    "body.custom_location_boundary.circle.distance",
    "less_than_equal"
  ],
  [
    "circle target_point required",
    withBody((b) => (b.custom_location_boundary = { circle: { distance: 500 } })),
    "body.custom_location_boundary.circle.target_point",
    "missing"
  ],
  ["data_point required", withBody((b) => delete b.data_point), "body.data_point", "missing"],
  ["data_point values", withBody((b) => (b.data_point = "median_price")), "body.data_point", "literal_error"],
  ["date_interval values", withBody((b) => (b.date_interval = "day")), "body.date_interval", "literal_error"],
  ["date_range required", withBody((b) => delete b.date_range), "body.date_range", "missing"],
  ["date_range.min required", withBody((b) => (b.date_range = { max: "2026-06-28" })), "body.date_range.min", "missing"],
  ["date_range.min a date", withBody((b) => (b.date_range.min = "2026-13-01")), "body.date_range.min", "date_from_datetime_parsing"],
  ...RANGE_CASES.map(
    ([key, end, value, type]) => [`${key}.${end} bounds`, withBody((b) => (b[key] = { [end]: value })), `body.${key}.${end}`, type] as const
  ),
  [
    "characteristics values",
    withBody((b) => (b.characteristics = { must_have: ["sauna"] })),
    "body.characteristics.must_have.0",
    "literal_error"
  ],
  ["conditions at least 1", withBody((b) => (b.conditions = [])), "body.conditions", "too_short"],
  ["conditions values", withBody((b) => (b.conditions = ["mint"])), "body.conditions.0", "literal_error"],
  ["private boolean", withBody((b) => (b.private = "yes")), "body.private", "bool_type"],
  ["bank boolean", withBody((b) => (b.bank = 1)), "body.bank", "bool_type"],
  ["auction boolean", withBody((b) => (b.auction = "no")), "body.auction", "bool_type"],
  ["exclude_outliers boolean", withBody((b) => (b.exclude_outliers = null)), "body.exclude_outliers", "null_not_allowed"]
]

const CROSS_RULES: ReadonlyArray<readonly [string, Body, RegExp]> = [
  ["types of one group", withBody((b) => (b.types = ["apartment", "villa"])), /one type group/],
  [
    "development and building groups do not mix",
    withBody((b) => (b.types = ["apartment_development", "building", "office"])),
    /one type group/
  ],
  [
    "one boundary kind (two)",
    withBody((b) => (b.custom_location_boundary.polygon = square)),
    /exactly one of location_ids, polygon or circle/
  ],
  ["one boundary kind (none)", withBody((b) => (b.custom_location_boundary = {})), /exactly one of location_ids, polygon or circle/],
  ["polygon closed", withBody((b) => (b.custom_location_boundary = { polygon: [...square.slice(0, 4), point(40.42, -3.7)] })), /closed/],
  [
    "range min not above max",
    withBody((b) => (b.price_range = { min: 500000, max: 100000 })),
    /price_range: min must not be greater than max/
  ]
]

describe("POST /market-analytics-api/time-series", () => {
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
    expect(
      r.body.errors.some((e: string) => pattern.test(e)),
      JSON.stringify(r.body)
    ).toBe(true)
  })

  it("accepts types of one time-series group, the extra types included", async () => {
    for (const types of [
      ["building", "office"],
      ["building", "apartment_building"],
      ["apartment_development", "house_development"],
      ["urban_plot"]
    ]) {
      const r = await h.call("POST", PATH, { token, body: withBody((b) => (b.types = types)) })
      expect([200, 204], JSON.stringify(types)).toContain(r.status)
    }
  })

  it("snaps date_range.min to the previous Monday and max to the previous Sunday", async () => {
    const snap = (min: string, max: string | null) =>
      Effect.runPromise(
        checkTimeSeries(
          withBody((b) => (b.date_range = { min, max })),
          START
        )
      ).then((r) => r.date_range)
    expect(await snap("2026-03-04", "2026-03-14")).toEqual({ min: "2026-03-02", max: "2026-03-08" }) // Wed -> Mon, Sat -> Sun
    expect(await snap("2026-03-02", "2026-03-08")).toEqual({ min: "2026-03-02", max: "2026-03-08" }) // already Mon / Sun
    expect(await snap("2026-03-08", "2026-03-09")).toEqual({ min: "2026-03-02", max: "2026-03-08" }) // Sun -> Mon before, Mon -> Sun before
    // null max: today (2026-11-01 on the sandbox clock, a Sunday)
    expect(await snap("2026-10-01", null)).toEqual({ min: "2026-09-28", max: "2026-11-01" })
  })

  it("answers weekly points from the snapped Monday to the week of the snapped Sunday", async () => {
    const r = await h.call("POST", PATH, {
      token,
      body: withBody((b) => Object.assign(b, { date_interval: "week", date_range: { min: "2026-03-04", max: "2026-05-02" } }))
    })
    expect(r.status).toBe(200)
    expect(r.body[0].date_start).toBe("2026-03-02")
    for (const p of r.body) {
      expect(Object.keys(p).sort()).toEqual(["date_start", "value"])
      expect(typeof p.value).toBe("number")
      expect(new Date(`${p.date_start}T00:00:00Z`).getUTCDay()).toBe(1)
      expect(p.date_start <= "2026-04-26").toBe(true)
    }
  })

  it("answers 204 with no body when the snapped range is empty or has no data", async () => {
    // Tue 2026-03-03 -> Mon 03-02; Sat 2026-03-07 -> Sun 03-01: nothing left
    const empty = await h.call("POST", PATH, { token, body: withBody((b) => (b.date_range = { min: "2026-03-03", max: "2026-03-07" })) })
    expect(empty.status).toBe(204)
    expect(empty.body).toBeUndefined()
    // before the world's first event
    const before = await h.call("POST", PATH, { token, body: withBody((b) => (b.date_range = { min: "2019-01-07", max: "2019-03-31" })) })
    expect(before.status).toBe(204)
  })
})
