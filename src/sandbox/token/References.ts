/**
 * The ten References operations. Shapes are docs/ASSUMPTIONS.md's "References" row, except
 * features and sources, which the spec shows. "Within user restrictions" does not restrict
 * anything in the sandbox.
 */
import { Effect } from "effect"
import { activeDialect, capLimit } from "../Dialect.js"
import type { SandboxContext } from "../SandboxContext.js"
import { notFoundDetail, unprocessableOne } from "./Errors.js"
import { type Handler, jsonBody, ok, query } from "./Http.js"
import { Checker } from "./Validate.js"

const INT32 = 2147483647
const LEVELS = ["country", "region", "municipality", "district"] as const

/** Assumed: an unknown location or zip code is 404 `{detail}`. */
const notFound = notFoundDetail

/** Assumed: typeahead `limit` defaults to 10, at most 50. */
export const TYPEAHEAD_LIMIT = { default: 10, max: 50 } as const

const queryNumber = (q: Record<string, string>, name: string, integer: boolean, range: { ge: number; le: number }) => {
  const raw = q[name]
  if (raw === undefined || raw === "") return Effect.fail(unprocessableOne(["query", name], "missing", "Field required", null))
  const n = Number(raw)
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    return Effect.fail(
      integer
        ? unprocessableOne(["query", name], "int_parsing", "Input should be a valid integer, unable to parse string as an integer", raw)
        : unprocessableOne(["query", name], "float_parsing", "Input should be a valid number, unable to parse string as a number", raw)
    )
  }
  if (n < range.ge)
    return Effect.fail(
      unprocessableOne(["query", name], "greater_than_equal", `Input should be greater than or equal to ${range.ge}`, raw, { ge: range.ge })
    )
  if (n > range.le)
    return Effect.fail(
      unprocessableOne(["query", name], "less_than_equal", `Input should be less than or equal to ${range.le}`, raw, { le: range.le })
    )
  return Effect.succeed(n)
}

const bodyChecker = (raw: unknown, optional: boolean) => {
  const c = new Checker()
  const body = c.body(raw, optional ? {} : undefined)
  return { c, body }
}

export const makeReferencesHandlers = (ctx: SandboxContext) => {
  const w = ctx.world
  const drift = <A extends object>(items: ReadonlyArray<A>) =>
    ctx.driftRate.token > 0 ? items.map((r) => w.drift(r, "reference", ctx.driftRate.token)) : items
  return {
    /** Spec: list of `{group, names}`. */
    features: (): Handler => Effect.sync(() => ok(drift(w.featureGroups))),
    /** Spec: query `locationId` required; `{domains}`. */
    sources: (): Handler =>
      Effect.gen(function* () {
        const id = yield* queryNumber(yield* query, "locationId", true, { ge: 1, le: INT32 })
        const domains = w.sources(id)
        if (domains === undefined) return yield* notFound(`Location ${id} not found`)
        return ok({ domains })
      }),
    agencies: (): Handler => Effect.sync(() => ok(drift(w.agencies))),
    agents: (): Handler => Effect.sync(() => ok(drift(w.agents))),
    conditions: (): Handler => Effect.sync(() => ok(drift(w.conditions))),
    types: (): Handler => Effect.sync(() => ok(drift(w.types))),
    /** Body `{country?, parent_id?, level?}` (all optional) -> every matching node. */
    locations: (): Handler =>
      Effect.gen(function* () {
        const { c, body } = bodyChecker(yield* jsonBody(false), true)
        const country = c.string(body, "country", ["body"], { minLength: 2, maxLength: 2 })
        const parentId = c.int(body, "parent_id", ["body"], { ge: 1, le: INT32, nullable: true })
        const level = c.literal(body, "level", ["body"], LEVELS)
        yield* c.result
        const nodes = w.locations.filter(
          (n) =>
            (country === undefined || n.country === country.toUpperCase()) &&
            (typeof parentId !== "number" || n.parent_id === parentId) &&
            (level === undefined || n.administrative_level === level)
        )
        return ok(drift(nodes))
      }),
    /** Query `latitude`, `longitude` -> `{location, locations_structure}`; 404 far from any place. */
    byCoordinates: (): Handler =>
      Effect.gen(function* () {
        const q = yield* query
        const latitude = yield* queryNumber(q, "latitude", false, { ge: -90, le: 90 })
        const longitude = yield* queryNumber(q, "longitude", false, { ge: -180, le: 180 })
        const location = w.locationByCoordinates({ latitude, longitude })
        if (location === undefined) return yield* notFound("No location found for these coordinates")
        return ok({ location, locations_structure: w.locationsStructure(location.location_id) })
      }),
    /** Body `{country: "ES" | "PT", query, limit?}` -> `[{location_id, name, administrative_level}]`. */
    typeahead: (): Handler =>
      Effect.gen(function* () {
        const { c, body } = bodyChecker(yield* jsonBody(), false)
        const country = c.literal(body, "country", ["body"], ["ES", "PT"] as const, { required: true })
        const text = c.string(body, "query", ["body"], { required: true, minLength: 1 })
        const limit = c.int(body, "limit", ["body"], { ge: 1, le: TYPEAHEAD_LIMIT.max })
        yield* c.result
        const nodes = w.typeahead(
          country!,
          text!,
          capLimit(activeDialect(ctx), typeof limit === "number" ? limit : TYPEAHEAD_LIMIT.default)
        )
        return ok(nodes.map((n) => ({ location_id: n.location_id, name: n.name, administrative_level: n.administrative_level })))
      }),
    /** Body `{country_code, zip_code}` -> `{country_code, zip_code, polygon}`. */
    zipcodeBoundary: (): Handler =>
      Effect.gen(function* () {
        const { c, body } = bodyChecker(yield* jsonBody(), false)
        const countryCode = c.string(body, "country_code", ["body"], { required: true, minLength: 2, maxLength: 2 })
        const zip = c.string(body, "zip_code", ["body"], { required: true, minLength: 1 })
        yield* c.result
        const code = countryCode!.toUpperCase()
        const polygon = w.zipcodeBoundary(code, zip!)
        if (polygon === undefined) return yield* notFound(`Zip code ${zip} not found in ${code}`)
        return ok({ country_code: code, zip_code: zip, polygon })
      })
  }
}
