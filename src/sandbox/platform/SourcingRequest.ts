/**
 * Validation of Property Sourcing request bodies (structured search, plain-language describe)
 * into the world's `SourcingFilter`.
 * Assumed (docs/ASSUMPTIONS.md): the body shapes below; the spec does not show them.
 */
import { Effect } from "effect"
import { commonGroup, PROPERTY_TYPES } from "../../service/schema/Enums.js"
import type { SourcingFilter } from "../world/World.js"
import { intField, invalid, isObject, type PlatformError } from "./PlatformRoute.js"

/** Assumed (docs/ASSUMPTIONS.md): the 16 countries. */
export const COUNTRIES = ["ES", "PT", "FR", "IT", "DE", "GR", "AD", "GB", "NL", "BE", "AT", "CH", "IE", "PL", "HR", "CY"]
export const DEFAULT_SOURCING_LIMIT = 50
export const MAX_SOURCING_LIMIT = 200
/** Spec: plain-language search takes up to 20 phrases. */
export const MAX_PHRASES = 20

const SEARCH_KEYS = new Set([
  "country",
  "location_ids",
  "operation",
  "types",
  "price_min",
  "price_max",
  "area_min",
  "area_max",
  "bedrooms_min",
  "limit"
])
const DESCRIBE_KEYS = new Set(["tags", "description", "country", "location_ids", "limit"])

const num = (v: unknown, name: string): Effect.Effect<number | undefined, PlatformError> =>
  v === undefined || v === null
    ? Effect.succeed(undefined)
    : typeof v === "number" && Number.isFinite(v) && v >= 0
      ? Effect.succeed(v)
      : Effect.fail(invalid(`${name} must be a non-negative number`))

const country = (v: unknown) =>
  typeof v === "string" && COUNTRIES.includes(v.toUpperCase())
    ? Effect.succeed(v.toUpperCase())
    : Effect.fail(invalid(`country is required: one of ${COUNTRIES.join(", ")}`))

const locationIds = (v: unknown) =>
  v === undefined
    ? Effect.succeed(undefined)
    : Array.isArray(v) && v.length > 0 && v.every((x) => Number.isInteger(x) && x >= 1)
      ? Effect.succeed(v as Array<number>)
      : Effect.fail(invalid("location_ids must be a non-empty list of positive integers"))

/** Assumed: members outside the assumed body are refused (400), so a misspelt filter is not silently ignored. */
const unknownKeys = (body: Record<string, unknown>, allowed: Set<string>) => {
  const extra = Object.keys(body).filter((k) => !allowed.has(k))
  return extra.length === 0 ? Effect.void : Effect.fail(invalid(`Unknown members: ${extra.join(", ")}`))
}

/** Removes undefined members (exactOptionalPropertyTypes and stable cursor JSON). */
const compact = <A extends object>(a: A): A => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as A

export const parseSearch = (body: unknown): Effect.Effect<{ filter: SourcingFilter; limit: number }, PlatformError> =>
  Effect.gen(function* () {
    if (!isObject(body)) return yield* invalid("The body must be a JSON object")
    yield* unknownKeys(body, SEARCH_KEYS)
    const operation = body["operation"]
    if (operation !== "sale" && operation !== "rent") return yield* invalid("operation is required: sale or rent")
    const types = body["types"]
    if (types !== undefined) {
      if (!Array.isArray(types) || types.length === 0 || !types.every((t) => (PROPERTY_TYPES as ReadonlyArray<unknown>).includes(t))) {
        return yield* invalid("types must be a non-empty list of property types")
      }
      if (commonGroup(types as Array<string>) === undefined) return yield* invalid("types must all belong to one type group")
    }
    const filter: SourcingFilter = compact({
      country: yield* country(body["country"]),
      location_ids: yield* locationIds(body["location_ids"]),
      operation,
      types: types as Array<string> | undefined,
      price_min: yield* num(body["price_min"], "price_min"),
      price_max: yield* num(body["price_max"], "price_max"),
      area_min: yield* num(body["area_min"], "area_min"),
      area_max: yield* num(body["area_max"], "area_max"),
      bedrooms_min: yield* num(body["bedrooms_min"], "bedrooms_min")
    })
    if (filter.price_min !== undefined && filter.price_max !== undefined && filter.price_min > filter.price_max) {
      return yield* invalid("price_min must not exceed price_max")
    }
    if (filter.area_min !== undefined && filter.area_max !== undefined && filter.area_min > filter.area_max) {
      return yield* invalid("area_min must not exceed area_max")
    }
    const limit = yield* intField(body["limit"], "limit", 1, MAX_SOURCING_LIMIT, DEFAULT_SOURCING_LIMIT)
    return { filter, limit }
  })

/** Spec: one description is split into phrases at commas, semicolons and the word "and". */
export const splitDescription = (description: string): Array<string> =>
  description
    .split(/[,;]|\band\b/i)
    .map((p) => p.trim())
    .filter((p) => p !== "")

const amount = (digits: string, suffix: string | undefined) => {
  const n = Number(digits.replace(/[.,\s](?=\d{3}\b)/g, "").replace(",", "."))
  const s = suffix?.toLowerCase()
  return s === "k" ? n * 1_000 : s === "m" ? n * 1_000_000 : n
}

/**
 * Assumed: how phrases become a filter (the spec does not show it). Recognised: sale/rent words,
 * property type names (plural too, first group wins), "N bedrooms", price bounds ("under 300k",
 * "over 1.2m", "from 500"), area bounds ("over 80 m2"). Other phrases are kept as tags and ignored.
 */
export const phrasesToFilter = (
  phrases: ReadonlyArray<string>,
  base: { country: string; location_ids?: ReadonlyArray<number> | undefined }
) => {
  let operation: "sale" | "rent" = "sale"
  const types: Array<string> = []
  const f: { price_min?: number; price_max?: number; area_min?: number; area_max?: number; bedrooms_min?: number } = {}
  for (const raw of phrases) {
    const p = raw.toLowerCase()
    if (/\b(rent|rental|to let|for rent)\b/.test(p)) operation = "rent"
    for (const word of p.split(/[^a-z_]+/)) {
      const t = (PROPERTY_TYPES as ReadonlyArray<string>).find((x) => x === word || `${x}s` === word)
      if (t !== undefined && !types.includes(t) && commonGroup([...types, t]) !== undefined) types.push(t)
    }
    const bed = /(\d+)\s*\+?\s*(bed|bedroom|bedrooms|beds)\b/.exec(p)
    if (bed) f.bedrooms_min = Number(bed[1])
    const area = /(under|below|max|up to|over|above|min|at least|from)?\s*(\d+)\s*(m2|m²|sqm|square met)/.exec(p)
    if (area) {
      if (area[1] !== undefined && /under|below|max|up to/.test(area[1])) f.area_max = Number(area[2])
      else f.area_min = Number(area[2])
    } else {
      const price = /(under|below|max|up to|less than|over|above|min|at least|from|more than)\s*(?:€|eur)?\s*([\d][\d.,]*)\s*(k|m)?\b/.exec(
        p
      )
      if (price) {
        const v = amount(price[2]!, price[3])
        if (/under|below|max|up to|less than/.test(price[1]!)) f.price_max = v
        else f.price_min = v
      }
    }
  }
  return compact({
    country: base.country,
    location_ids: base.location_ids,
    operation,
    types: types.length > 0 ? types : undefined,
    ...f
  }) as SourcingFilter
}

export const parseDescribe = (
  body: unknown
): Effect.Effect<{ filter: SourcingFilter; limit: number; tags: ReadonlyArray<string> }, PlatformError> =>
  Effect.gen(function* () {
    if (!isObject(body)) return yield* invalid("The body must be a JSON object")
    yield* unknownKeys(body, DESCRIBE_KEYS)
    const tags = body["tags"]
    const description = body["description"]
    if ((tags === undefined) === (description === undefined)) return yield* invalid("Send exactly one of tags or description")
    let phrases: Array<string>
    if (tags !== undefined) {
      if (!Array.isArray(tags) || tags.length === 0 || !tags.every((t) => typeof t === "string" && t.trim() !== "")) {
        return yield* invalid("tags must be a non-empty list of phrases")
      }
      phrases = (tags as Array<string>).map((t) => t.trim())
    } else {
      if (typeof description !== "string" || description.trim() === "") return yield* invalid("description must be a non-empty string")
      phrases = splitDescription(description)
    }
    if (phrases.length > MAX_PHRASES) return yield* invalid(`At most ${MAX_PHRASES} phrases (got ${phrases.length})`)
    const base = { country: yield* country(body["country"]), location_ids: yield* locationIds(body["location_ids"]) }
    const limit = yield* intField(body["limit"], "limit", 1, MAX_SOURCING_LIMIT, DEFAULT_SOURCING_LIMIT)
    return { filter: phrasesToFilter(phrases, base), limit, tags: phrases }
  })
