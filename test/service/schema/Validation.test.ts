import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  ComparablesRequest,
  formatValidationError,
  RequestValidationError,
  TimeSeriesRequest,
  validateRequest
} from "../../../src/service/schema/index.js"

describe("formatValidationError", () => {
  it("one line per problem, path then what is allowed", () => {
    const r = Schema.decodeUnknownEither(TimeSeriesRequest, { errors: "all" })({
      types: ["apartment", "villa"],
      business_type: "sale",
      custom_location_boundary: { location_ids: Array.from({ length: 11 }, (_, i) => i + 1) },
      data_point: "avg_price",
      date_interval: "month",
      date_range: { min: "2025-01-06" }
    })
    if (Either.isRight(r)) throw new Error("expected a failure")
    expect(formatValidationError(r.left).split("\n").sort()).toEqual([
      "custom_location_boundary.location_ids: 1 to 10 items allowed (got 11)",
      "types: property types must come from one group (apartment, house, room, building, investment, plot, other, development); got apartment, villa"
    ])
  })
  it("reads a non-object body", () => {
    const r = Schema.decodeUnknownEither(ComparablesRequest)(42)
    if (Either.isRight(r)) throw new Error("expected a failure")
    expect(formatValidationError(r.left)).toBe("must be an object (got 42)")
  })
})

describe("validateRequest", () => {
  it("returns a tagged RequestValidationError naming the first field", () => {
    const r = validateRequest(ComparablesRequest, {
      comparables_count: 60,
      location_boundary: { circle: { target_point: { address: "x" } } },
      operation: "sale",
      comparables_types: ["house"]
    })
    if (Either.isRight(r)) throw new Error("expected a failure")
    expect(r.left).toBeInstanceOf(RequestValidationError)
    expect(r.left).toMatchObject({
      _tag: "RequestValidationError",
      reason: "InvalidRequest",
      field: "comparables_count",
      message: "comparables_count: must be between 1 and 50 (got 60)"
    })
  })
  it("returns the decoded body on success", () => {
    const body = {
      comparables_count: 5,
      location_boundary: { circle: { target_point: { address: "x" } } },
      operation: "rent",
      comparables_types: ["house"]
    }
    expect(validateRequest(ComparablesRequest, body)).toEqual(Either.right(body))
  })
})
