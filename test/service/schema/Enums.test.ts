import { describe, expect, it } from "vitest"
import {
  AlertSubtype,
  AlertType,
  Characteristic,
  commonGroup,
  Condition,
  COUNTRIES,
  Direction,
  EnergyRating,
  FloorType,
  groupOf,
  Orientation,
  PROPERTY_TYPES,
  RentPeriod,
  RentStatus,
  resultGroupOf,
  RESULT_GROUPS,
  SaleStatus,
  TIME_SERIES_TYPE_GROUPS,
  TIME_SERIES_TYPES,
  TYPE_GROUPS,
  View
} from "../../../src/service/schema/index.js"

describe("enumerations (spec counts)", () => {
  it("40 property types, 42 time-series types (no plot)", () => {
    expect(new Set(PROPERTY_TYPES).size).toBe(40)
    expect(new Set(TIME_SERIES_TYPES).size).toBe(42)
    expect(TIME_SERIES_TYPES).not.toContain("plot")
    for (const t of ["building", "apartment_development", "house_development"]) expect(TIME_SERIES_TYPES).toContain(t)
  })
  it("the type groups split the 40 types, each type in exactly one group", () => {
    const all = Object.values(TYPE_GROUPS).flat()
    expect(all).toHaveLength(40)
    expect(new Set(all)).toEqual(new Set(PROPERTY_TYPES))
    for (const t of PROPERTY_TYPES) expect(groupOf(t)).toBeDefined()
  })
  it("the time-series groups cover the 42 types", () => {
    expect(new Set(Object.values(TIME_SERIES_TYPE_GROUPS).flat())).toEqual(new Set(TIME_SERIES_TYPES))
  })
  it("one-group rule", () => {
    expect(commonGroup(["apartment", "studio"])).toBe("apartment")
    expect(commonGroup(["apartment", "villa"])).toBeUndefined()
    expect(commonGroup(["building", "office"], TIME_SERIES_TYPE_GROUPS)).toBe("investment")
    expect(RESULT_GROUPS).toContain(resultGroupOf("room"))
  })
  it("value lists of the spec", () => {
    expect(Condition.values).toHaveLength(5)
    expect(FloorType.values).toHaveLength(4)
    expect(Orientation.values).toHaveLength(2)
    expect(View.values).toHaveLength(5)
    expect(Direction.values).toHaveLength(4)
    expect(Characteristic.values).toHaveLength(13)
    expect(SaleStatus.values).toHaveLength(5)
    expect(RentStatus.values).toHaveLength(5)
    expect(RentPeriod.values).toHaveLength(6)
    expect(EnergyRating.values).toHaveLength(10)
    expect(AlertType.values).toHaveLength(5)
    expect(AlertSubtype.values).toHaveLength(6)
    expect(COUNTRIES).toHaveLength(16)
  })
})
