/**
 * Every rule of the spec's `POST /api/v2/comparables/search` table, turning a JSON body into the
 * world's `ComparablesRequest` or the host's 422 / 400 (see `Validate.ts` for which is which).
 */
import { Effect } from "effect"
import {
  Characteristic,
  Condition,
  Direction,
  EnergyRating,
  FloorType,
  Operation,
  Orientation,
  PLOT_AREA_REQUIRED_TYPES,
  PROPERTY_TYPES,
  TOTAL_AREA_REQUIRED_TYPES,
  TYPE_GROUPS,
  View,
  commonGroup
} from "../../service/schema/Enums.js"
import type { ComparablesRequest } from "../world/Queries.js"
import type { Coordinates } from "../world/Records.js"
import type { TokenHostError } from "./Errors.js"
import { Checker, type Json, type Loc, isObject } from "./Validate.js"

const INT32 = 2147483647

/** Spec: circle distance of comparables, kilometres. */
export const COMPARABLES_DISTANCE = { ge: 0.05, le: 50, default: 5 } as const

/** A `{latitude, longitude}` point (422 on a bad member). */
export const checkPoint = (c: Checker, v: unknown, at: Loc): Coordinates | undefined => {
  if (!isObject(v)) {
    c.add(at, "dict_type", "Input should be a valid dictionary", v)
    return undefined
  }
  const latitude = c.number(v, "latitude", at, { required: true, ge: -90, le: 90 })
  const longitude = c.number(v, "longitude", at, { required: true, ge: -180, le: 180 })
  return typeof latitude === "number" && typeof longitude === "number" ? { latitude, longitude } : undefined
}

/** A polygon: at least 4 points (422), first equals last (400). */
export const checkPolygon = (c: Checker, obj: Json, key: string, loc: Loc): Array<Coordinates> | undefined => {
  const items = c.array(obj, key, loc, { minItems: 4 })
  if (items === undefined) return undefined
  const points = items.map((p, i) => checkPoint(c, p, [...loc, key, i]))
  if (points.some((p) => p === undefined)) return undefined
  const ok = points as Array<Coordinates>
  const [first, last] = [ok[0]!, ok[ok.length - 1]!]
  if (first.latitude !== last.latitude || first.longitude !== last.longitude) {
    c.rule(`${[...loc, key].join(".")}: the polygon must be closed (first point equal to the last)`)
  }
  return ok
}

/**
 * Deprecated request fields still accepted (spec: removed in the next major update), mapped to
 * their replacements when the replacement is absent.
 */
const undeprecate = (body: Json): Json => {
  const b: Json = { ...body }
  const move = (from: string, to: string, wrap = false) => {
    if (b[from] !== undefined && b[to] === undefined) b[to] = wrap && !Array.isArray(b[from]) ? [b[from]] : b[from]
    delete b[from]
  }
  move("business_type", "operation")
  move("comparables_type", "comparables_types", true)
  move("property_type", "comparables_types", true)
  move("floor", "floors", true)
  move("view", "views", true)
  move("direction", "directions", true)
  move("energy_certificates", "energy_ratings", true)
  move("energy_certificate", "energy_ratings", true)
  if (b.location_boundary === undefined && (b.coordinates !== undefined || b.target_point !== undefined)) {
    const target = b.target_point ?? { coordinates: b.coordinates }
    b.location_boundary = { circle: { ...(b.distance !== undefined ? { distance: b.distance } : {}), target_point: target } }
  }
  delete b.coordinates
  delete b.target_point
  delete b.distance
  return b
}

const checkTargetPoint = (c: Checker, circle: Json, at: Loc) => {
  const tp = c.object(circle, "target_point", at, { required: true })
  if (tp === undefined) return undefined
  const tpLoc = [...at, "target_point"]
  const coordinates = tp.coordinates === undefined ? undefined : checkPoint(c, tp.coordinates, [...tpLoc, "coordinates"])
  const address = c.string(tp, "address", tpLoc, { minLength: 1 })
  const cad = c.object(tp, "cadastral_reference", tpLoc)
  let cadastral: { country_code: string; cadastral_reference: string } | undefined
  if (cad !== undefined) {
    const cadLoc = [...tpLoc, "cadastral_reference"]
    const country = c.string(cad, "country_code", cadLoc, { required: true })
    if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) {
      c.add([...cadLoc, "country_code"], "string_pattern_mismatch", "String should match pattern '^[A-Z]{2}$'", country, {
        pattern: "^[A-Z]{2}$"
      })
    }
    const ref = c.string(cad, "cadastral_reference", cadLoc, { required: true, minLength: 1 })
    c.string(cad, "province", cadLoc)
    c.string(cad, "municipality", cadLoc)
    if (country !== undefined && ref !== undefined) {
      cadastral = { country_code: country.toUpperCase(), cadastral_reference: ref }
      if (cadastral.country_code !== "ES") c.rule("target_point.cadastral_reference is available for Spain (ES) only")
    }
  }
  const given = [tp.coordinates, tp.address, tp.cadastral_reference].filter((v) => v !== undefined && v !== null).length
  if (given !== 1) c.rule("target_point: give exactly one of coordinates, address or cadastral_reference")
  return {
    ...(coordinates !== undefined ? { coordinates } : {}),
    ...(address !== undefined ? { address } : {}),
    ...(cadastral !== undefined ? { cadastral_reference: cadastral } : {})
  }
}

/** Spec: `sold_or_rented_after` defaults to 9 months before today. */
export const defaultSoldOrRentedAfter = (nowMs: number) => {
  const d = new Date(nowMs)
  d.setUTCMonth(d.getUTCMonth() - 9)
  return d.toISOString().slice(0, 10)
}

export const checkComparables = (raw: unknown, nowMs: number): Effect.Effect<ComparablesRequest, TokenHostError> =>
  Effect.suspend(() => {
    const c = new Checker()
    const L = ["body"]
    if (c.body(raw) === undefined) return Effect.flatMap(c.result, () => Effect.die("unreachable"))
    const body = undeprecate(raw as Json)
    const comparables_count = c.int(body, "comparables_count", L, { required: true, ge: 1, le: 50 })
    const lb = c.object(body, "location_boundary", L, { required: true })
    let location_boundary: ComparablesRequest["location_boundary"] | undefined
    if (lb !== undefined) {
      const lbLoc = [...L, "location_boundary"]
      const polygon = checkPolygon(c, lb, "polygon", lbLoc)
      const circle = c.object(lb, "circle", lbLoc)
      let circleOut: NonNullable<ComparablesRequest["location_boundary"]["circle"]> | undefined
      if (circle !== undefined) {
        const cLoc = [...lbLoc, "circle"]
        const distance = c.number(circle, "distance", cLoc, { ge: COMPARABLES_DISTANCE.ge, le: COMPARABLES_DISTANCE.le })
        const target_point = checkTargetPoint(c, circle, cLoc)
        if (target_point !== undefined) circleOut = { distance: distance ?? COMPARABLES_DISTANCE.default, target_point }
      }
      const count = [lb.polygon, lb.circle].filter((v) => v !== undefined && v !== null).length
      if (count !== 1) c.rule("location_boundary: give exactly one of polygon or circle")
      location_boundary = { ...(polygon !== undefined ? { polygon } : {}), ...(circleOut !== undefined ? { circle: circleOut } : {}) }
    }
    const sold = c.date(body, "sold_or_rented_after", L, { nullable: true })
    const operation = c.literal(body, "operation", L, Operation.values, { required: true })
    const types = c.literals(body, "comparables_types", L, PROPERTY_TYPES, { required: true, minItems: 1 })
    if (types !== undefined && types.length > 0 && commonGroup(types, TYPE_GROUPS) === undefined) {
      c.rule("comparables_types: choose property types of one type group only")
    }
    const min_price = c.int(body, "min_price", L, { ge: 0, le: INT32 })
    const max_price = c.int(body, "max_price", L, { ge: 1, le: INT32 })
    if (typeof min_price === "number" && typeof max_price === "number" && min_price > max_price) {
      c.rule("min_price must not be greater than max_price") // Assumed: the spec has no such rule; an empty range is refused.
    }
    const condition = c.literal(body, "condition", L, Condition.values)
    const bedrooms = c.int(body, "bedrooms", L, { ge: 0, le: 15000 })
    const rooms = c.int(body, "rooms", L, { ge: 0, le: 15000 })
    if (body.bedrooms !== undefined && body.bedrooms !== null && body.rooms !== undefined && body.rooms !== null) {
      c.rule("bedrooms and rooms cannot be given together")
    }
    const bathrooms = c.int(body, "bathrooms", L, { ge: 1, le: 15000 })
    const construction_year = c.int(body, "construction_year", L, { ge: 1, le: 3000 })
    const total_area = c.int(body, "total_area", L, { ge: 5, le: 10000000 })
    const plot_area = c.int(body, "plot_area", L, { ge: 20, le: 10000000 })
    const hasCadastral = location_boundary?.circle?.target_point.cadastral_reference !== undefined
    if (types !== undefined && !hasCadastral) {
      const needTotal = types.filter((t) => (TOTAL_AREA_REQUIRED_TYPES as ReadonlyArray<string>).includes(t))
      if (needTotal.length > 0 && body.total_area == null)
        c.rule(`total_area is required for ${needTotal.join(", ")} unless a cadastral reference is given`)
      const needPlot = types.filter((t) => (PLOT_AREA_REQUIRED_TYPES as ReadonlyArray<string>).includes(t))
      if (needPlot.length > 0 && body.plot_area == null)
        c.rule(`plot_area is required for ${needPlot.join(", ")} unless a cadastral reference is given`)
    }
    const floors = c.literals(body, "floors", L, FloorType.values)
    const floor_number = c.ints(body, "floor_number", L, { ge: -250, le: 250 })
    const orientation = c.literal(body, "orientation", L, Orientation.values)
    const views = c.literals(body, "views", L, View.values)
    const directions = c.literals(body, "directions", L, Direction.values)
    const ch = c.object(body, "characteristics", L, { nullable: true })
    const characteristics =
      ch === undefined
        ? undefined
        : {
            must_have: c.literals(ch, "must_have", [...L, "characteristics"], Characteristic.values),
            nice_to_have: c.literals(ch, "nice_to_have", [...L, "characteristics"], Characteristic.values),
            exclude: c.literals(ch, "exclude", [...L, "characteristics"], Characteristic.values)
          }
    const energy_ratings = c.literals(body, "energy_ratings", L, EnergyRating.values)
    const days_on_market_from = c.int(body, "days_on_market_from", L, { ge: 1, le: 10000 })
    const days_on_market_to = c.int(body, "days_on_market_to", L, { ge: 1, le: 10000 })
    const strings = (key: string) => {
      const items = c.array(body, key, L)
      items?.forEach((v, i) => typeof v !== "string" && c.add([...L, key, i], "string_type", "Input should be a valid string", v))
      return items as Array<string> | undefined
    }
    const with_agencies = strings("with_agencies")
    const without_agencies = strings("without_agencies")
    const exclude_outliers = c.bool(body, "exclude_outliers", L)
    const num = (v: number | null | undefined) => (typeof v === "number" ? v : undefined)
    return Effect.as(c.result, {
      comparables_count: comparables_count!,
      location_boundary: location_boundary!,
      sold_or_rented_after: sold === undefined ? defaultSoldOrRentedAfter(nowMs) : sold,
      operation: operation!,
      comparables_types: types!,
      min_price: num(min_price) ?? 0,
      max_price: num(max_price),
      condition,
      bedrooms: num(bedrooms),
      rooms: num(rooms),
      bathrooms: num(bathrooms),
      construction_year: num(construction_year),
      total_area: num(total_area),
      plot_area: num(plot_area),
      floors,
      floor_number,
      orientation,
      views,
      directions,
      characteristics,
      energy_ratings,
      days_on_market_from: num(days_on_market_from),
      days_on_market_to: num(days_on_market_to),
      with_agencies,
      without_agencies,
      exclude_outliers: exclude_outliers ?? true
    } satisfies ComparablesRequest)
  })
