import { describe, expect, it } from "vitest"
import { ComparablesRequest, ComparablesV1Request } from "../../../src/service/schema/index.js"
import { accepted, refused, refusedLine } from "./helpers.js"

const circle = { distance: 2, target_point: { coordinates: { latitude: 40.4, longitude: -3.7 } } }
const valid = {
  comparables_count: 10,
  location_boundary: { circle },
  operation: "sale",
  comparables_types: ["apartment", "penthouse"]
}
const square = [
  { latitude: 40, longitude: -3 },
  { latitude: 40, longitude: -2 },
  { latitude: 41, longitude: -2 },
  { latitude: 41, longitude: -3 },
  { latitude: 40, longitude: -3 }
]

describe("ComparablesRequest", () => {
  it("accepts the spec's examples", () => {
    expect(accepted(ComparablesRequest, valid).comparables_count).toBe(10)
    accepted(ComparablesRequest, { ...valid, location_boundary: { polygon: square }, sold_or_rented_after: null })
    accepted(ComparablesRequest, {
      ...valid,
      location_boundary: {
        circle: { target_point: { cadastral_reference: { country_code: "ES", cadastral_reference: "9872023VH5797S0001WX" } } }
      },
      comparables_types: ["office"]
    })
    accepted(ComparablesRequest, { ...valid, comparables_types: ["rural_plot"], plot_area: 500 })
    accepted(ComparablesRequest, { ...valid, bedrooms: 2, bathrooms: 1, floors: ["top"], floor_number: [-2, 3], energy_ratings: ["A+"] })
  })

  it("keeps unknown (deprecated) keys for the server", () => {
    const out = accepted(ComparablesRequest, { ...valid, business_type: "sale" }) as Record<string, unknown>
    expect(out["business_type"]).toBe("sale")
  })

  it("refuses comparables_count outside 1..50", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_count: 60 })).toBe(
      "comparables_count: must be between 1 and 50 (got 60)"
    )
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_count: 0 })).toMatch(/^comparables_count: must be between 1 and 50/)
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_count: 2.5 })).toBe("comparables_count: must be an integer (got 2.5)")
  })

  it("requires the required fields", () => {
    const { operation: _o, ...noOp } = valid
    expect(refusedLine(ComparablesRequest, noOp)).toBe("operation: is required")
  })

  it("refuses polygon and circle together, and neither", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, location_boundary: { polygon: square, circle } })).toBe(
      "location_boundary: exactly one of polygon, circle is allowed (got polygon and circle)"
    )
    expect(refusedLine(ComparablesRequest, { ...valid, location_boundary: {} })).toBe(
      "location_boundary: exactly one of polygon, circle is required (got none)"
    )
  })

  it("refuses open and short polygons", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, location_boundary: { polygon: square.slice(0, 4) } })).toMatch(
      /^location_boundary\.polygon: a closed polygon's first point must equal its last/
    )
    expect(refusedLine(ComparablesRequest, { ...valid, location_boundary: { polygon: [square[0], square[1], square[0]] } })).toBe(
      "location_boundary.polygon: a closed polygon needs at least 4 points (got 3)"
    )
    expect(
      refusedLine(ComparablesRequest, {
        ...valid,
        location_boundary: { polygon: [{ latitude: 91, longitude: 0 }, ...square.slice(1)] }
      })
    ).toBe("location_boundary.polygon[0].latitude: must be between -90 and 90 (got 91)")
  })

  it("refuses a circle distance outside 0.05..50 km", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, location_boundary: { circle: { ...circle, distance: 60 } } })).toBe(
      "location_boundary.circle.distance: must be between 0.05 and 50 (got 60)"
    )
  })

  it("target_point needs exactly one of coordinates, address, cadastral_reference", () => {
    const tp = (target_point: unknown) => ({ ...valid, location_boundary: { circle: { target_point } } })
    expect(refusedLine(ComparablesRequest, tp({ address: "Calle Mayor 1", coordinates: { latitude: 1, longitude: 1 } }))).toBe(
      "location_boundary.circle.target_point: exactly one of coordinates, address, cadastral_reference is allowed (got coordinates and address)"
    )
    expect(refusedLine(ComparablesRequest, tp({}))).toMatch(
      /target_point: exactly one of coordinates, address, cadastral_reference is required/
    )
  })

  it("takes cadastral references for Spain only", () => {
    const target_point = { cadastral_reference: { country_code: "PT", cadastral_reference: "123" } }
    expect(refusedLine(ComparablesRequest, { ...valid, location_boundary: { circle: { target_point } } })).toBe(
      'location_boundary.circle.target_point.cadastral_reference.country_code: cadastral references are accepted for Spain only (ES) (got "PT")'
    )
  })

  it("refuses types from two groups and unknown types", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_types: ["apartment", "villa"] })).toBe(
      "comparables_types: property types must come from one group (apartment, house, room, building, investment, plot, other); got apartment, villa"
    )
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_types: ["castle"] })).toMatch(
      /^comparables_types\[0\]: must be one of apartment, studio, .* \(got "castle"\)$/
    )
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_types: [] })).toBe(
      "comparables_types: at least 1 property type required (got 0)"
    )
  })

  it("refuses bedrooms together with rooms", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, bedrooms: 2, rooms: 3 })).toBe("bedrooms: may not be sent together with rooms")
  })

  it("requires total_area for commercial types and plot_area for plots, unless cadastral", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_types: ["office", "retail"] })).toMatch(
      /^total_area: is required for office, retail .* unless location_boundary\.circle\.target_point\.cadastral_reference is given$/
    )
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_types: ["urban_plot"] })).toMatch(
      /^plot_area: is required for urban_plot/
    )
    accepted(ComparablesRequest, { ...valid, comparables_types: ["office"], total_area: 120 })
    expect(refusedLine(ComparablesRequest, { ...valid, comparables_types: ["office"], total_area: 4 })).toBe(
      "total_area: must be between 5 and 10000000 (got 4)"
    )
  })

  it("checks enumerations and ranges of the other fields", () => {
    expect(refusedLine(ComparablesRequest, { ...valid, operation: "lease" })).toBe('operation: must be one of sale, rent (got "lease")')
    expect(refusedLine(ComparablesRequest, { ...valid, condition: "great" })).toBe(
      'condition: must be one of used, ruin, very-good, new, other (got "great")'
    )
    expect(refusedLine(ComparablesRequest, { ...valid, floor_number: [0, 251] })).toBe(
      "floor_number[1]: must be between -250 and 250 (got 251)"
    )
    expect(refusedLine(ComparablesRequest, { ...valid, characteristics: { must_have: ["pool"] } })).toMatch(
      /^characteristics\.must_have\[0\]: must be one of balcony, .* \(got "pool"\)$/
    )
    expect(refusedLine(ComparablesRequest, { ...valid, days_on_market_from: 0 })).toBe(
      "days_on_market_from: must be between 1 and 10000 (got 0)"
    )
    expect(refusedLine(ComparablesRequest, { ...valid, sold_or_rented_after: "2025-02-30" })).toBe(
      'sold_or_rented_after: must be a date YYYY-MM-DD (got "2025-02-30")'
    )
    expect(refusedLine(ComparablesRequest, { ...valid, bathrooms: "2" })).toBe('bathrooms: must be a number (got "2")')
  })

  it("reports every problem, one line each", () => {
    const issues = refused(ComparablesRequest, { ...valid, comparables_count: 99, operation: "x", bathrooms: 0 })
    expect(issues.map((i) => i.field).sort()).toEqual(["bathrooms", "comparables_count", "operation"])
  })
})

describe("ComparablesV1Request (Assumed shape)", () => {
  it("accepts and refuses", () => {
    accepted(ComparablesV1Request, {
      coordinates: { latitude: 1, longitude: 2 },
      distance: 1,
      business_type: "rent",
      property_type: "house",
      comparables_count: 5
    })
    expect(
      refusedLine(ComparablesV1Request, {
        coordinates: { latitude: 1, longitude: 200 },
        business_type: "rent",
        property_type: "house",
        comparables_count: 5
      })
    ).toBe("coordinates.longitude: must be between -180 and 180 (got 200)")
  })
})
