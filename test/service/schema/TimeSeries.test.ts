import { describe, expect, it } from "vitest"
import { MarketFilterRequest, snapDateRange, TimeSeriesRequest } from "../../../src/service/schema/index.js"
import { accepted, refusedLine } from "./helpers.js"

const valid = {
  types: ["apartment", "penthouse"],
  business_type: "sale",
  custom_location_boundary: { location_ids: [1, 2] },
  data_point: "avg_price",
  date_interval: "month",
  date_range: { min: "2025-01-06", max: null }
}

describe("TimeSeriesRequest", () => {
  it("accepts valid bodies (location ids, polygon, circle, ranges)", () => {
    accepted(TimeSeriesRequest, valid)
    accepted(TimeSeriesRequest, {
      ...valid,
      custom_location_boundary: {
        polygon: [
          { latitude: 1, longitude: 1 },
          { latitude: 1, longitude: 2 },
          { latitude: 2, longitude: 2 },
          { latitude: 1, longitude: 1 }
        ]
      },
      price_range: { min: 1, max: null },
      bedrooms_range: { min: 0, max: 3 },
      characteristics: null,
      conditions: ["new"],
      auction: false
    })
    accepted(TimeSeriesRequest, {
      ...valid,
      custom_location_boundary: { circle: { distance: 500, target_point: { latitude: 40, longitude: -3 } } }
    })
    // the time-series extra types and their groups
    accepted(TimeSeriesRequest, { ...valid, types: ["apartment_development", "house_development"] })
    accepted(TimeSeriesRequest, { ...valid, types: ["building", "office"] })
    accepted(TimeSeriesRequest, { ...valid, types: ["building", "apartment_building"] })
  })

  it("refuses location_ids beyond 10 items and out-of-range ids", () => {
    expect(
      refusedLine(TimeSeriesRequest, {
        ...valid,
        custom_location_boundary: { location_ids: Array.from({ length: 11 }, (_, i) => i + 1) }
      })
    ).toBe("custom_location_boundary.location_ids: 1 to 10 items allowed (got 11)")
    expect(refusedLine(TimeSeriesRequest, { ...valid, custom_location_boundary: { location_ids: [] } })).toBe(
      "custom_location_boundary.location_ids: 1 to 10 items allowed (got 0)"
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, custom_location_boundary: { location_ids: [0] } })).toBe(
      "custom_location_boundary.location_ids[0]: must be between 1 and 2147483647 (got 0)"
    )
  })

  it("needs exactly one boundary kind", () => {
    expect(
      refusedLine(TimeSeriesRequest, {
        ...valid,
        custom_location_boundary: { location_ids: [1], circle: { distance: 100, target_point: { latitude: 1, longitude: 1 } } }
      })
    ).toBe("custom_location_boundary: exactly one of location_ids, polygon, circle is allowed (got location_ids and circle)")
  })

  it("refuses a circle outside 50..50000 metres or without target_point", () => {
    expect(
      refusedLine(TimeSeriesRequest, {
        ...valid,
        custom_location_boundary: { circle: { distance: 60000, target_point: { latitude: 1, longitude: 1 } } }
      })
    ).toBe("custom_location_boundary.circle.distance: must be between 50 and 50000 (got 60000)")
    expect(refusedLine(TimeSeriesRequest, { ...valid, custom_location_boundary: { circle: { distance: 100 } } })).toBe(
      "custom_location_boundary.circle.target_point: is required"
    )
  })

  it("refuses plot and types of two groups", () => {
    expect(refusedLine(TimeSeriesRequest, { ...valid, types: ["plot"] })).toBe(
      'types[0]: plot is not accepted by time series (use urban_plot or rural_plot) (got "plot")'
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, types: ["apartment", "villa"] })).toBe(
      "types: property types must come from one group (apartment, house, room, building, investment, plot, other, development); got apartment, villa"
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, types: [] })).toBe("types: at least 1 property type required (got 0)")
  })

  it("checks enumerations, ranges and dates", () => {
    expect(refusedLine(TimeSeriesRequest, { ...valid, data_point: "median" })).toBe(
      'data_point: must be one of avg_price, avg_price_psqm, available_on_market, new, sold_or_rented, price_up, price_down (got "median")'
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, date_interval: "day" })).toBe(
      'date_interval: must be one of week, month, quarter, year (got "day")'
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, price_range: { min: 0 } })).toBe(
      "price_range.min: must be between 1 and 2147483647 (got 0)"
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, total_area_range: { min: 10, max: 5 } })).toBe(
      "total_area_range: min must not exceed max (got min 10, max 5)"
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, construction_year_range: { max: 3001 } })).toBe(
      "construction_year_range.max: must be between 1 and 3000 (got 3001)"
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, conditions: [] })).toBe("conditions: at least 1 item required (got 0)")
    expect(refusedLine(TimeSeriesRequest, { ...valid, date_range: { max: "2025-01-05" } })).toBe("date_range.min: is required")
    expect(refusedLine(TimeSeriesRequest, { ...valid, date_range: { min: "2025-13-01" } })).toBe(
      'date_range.min: must be a date YYYY-MM-DD (got "2025-13-01")'
    )
    expect(refusedLine(TimeSeriesRequest, { ...valid, date_range: { min: "2025-02-01", max: "2025-01-01" } })).toBe(
      "date_range.max: must not be before min (got min 2025-02-01, max 2025-01-01)"
    )
  })
})

describe("MarketFilterRequest (distributions, analysis)", () => {
  it("is the time-series body less data_point, date_interval and date_range", () => {
    const { data_point: _d, date_interval: _i, date_range: _r, ...filter } = valid
    accepted(MarketFilterRequest, filter)
    expect(refusedLine(MarketFilterRequest, { ...filter, business_type: "both" })).toBe(
      'business_type: must be one of sale, rent (got "both")'
    )
  })
})

describe("snapDateRange", () => {
  // 2026-11-16 is a Monday, 2026-11-22 a Sunday.
  it("moves min back to Monday and max back to Sunday", () => {
    expect(snapDateRange({ min: "2026-11-19", max: "2026-11-19" })).toEqual({ min: "2026-11-16", max: "2026-11-15" })
    expect(snapDateRange({ min: "2026-11-22", max: "2026-11-21" })).toEqual({ min: "2026-11-16", max: "2026-11-15" })
  })
  it("keeps a Monday min and a Sunday max", () => {
    expect(snapDateRange({ min: "2026-11-16", max: "2026-11-22" })).toEqual({ min: "2026-11-16", max: "2026-11-22" })
  })
  it("crosses month and year boundaries", () => {
    // 2026-01-01 is a Thursday: Monday before is 2025-12-29, Sunday before 2025-12-28.
    expect(snapDateRange({ min: "2026-01-01", max: "2026-01-01" })).toEqual({ min: "2025-12-29", max: "2025-12-28" })
    // 2024-03-01 is a Friday (leap year): Monday 2024-02-26, Sunday 2024-02-25.
    expect(snapDateRange({ min: "2024-03-01", max: "2024-03-01" })).toEqual({ min: "2024-02-26", max: "2024-02-25" })
  })
  it("leaves a null or absent max alone", () => {
    expect(snapDateRange({ min: "2026-11-17", max: null })).toEqual({ min: "2026-11-16", max: null })
    expect(snapDateRange({ min: "2026-11-17" })).toEqual({ min: "2026-11-16", max: undefined })
  })
  it("agrees with weekday arithmetic over a whole year", () => {
    for (let d = Date.UTC(2025, 0, 1); d < Date.UTC(2026, 0, 1); d += 86_400_000) {
      const iso = new Date(d).toISOString().slice(0, 10)
      const { max, min } = snapDateRange({ min: iso, max: iso })
      expect(new Date(`${min}T00:00:00Z`).getUTCDay()).toBe(1)
      expect(new Date(`${max}T00:00:00Z`).getUTCDay()).toBe(0)
      const back = (d - Date.parse(`${min}T00:00:00Z`)) / 86_400_000
      expect(back).toBeGreaterThanOrEqual(0)
      expect(back).toBeLessThan(7)
    }
  })
})
