/**
 * Building blocks of request schemas. Each refusal carries a message that names what is
 * allowed and what was sent, e.g. `must be between 1 and 50 (got 60)`; `formatValidationError`
 * (Validation.ts) prefixes the field path. Request schemas are closed on their rules but let
 * unknown keys through to the server (see `validateRequest`).
 */
import { Schema } from "effect"
import { commonGroup } from "./Enums.js"

/** Renders a sent value inside a message: strings quoted, long values shortened. */
export const show = (value: unknown): string => {
  let s: string
  try {
    s = typeof value === "string" ? JSON.stringify(value) : value === undefined ? "undefined" : JSON.stringify(value)
  } catch {
    s = String(value)
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

/** An integer in `[min, max]`. */
export const intBetween = (min: number, max: number) =>
  Schema.Int.pipe(Schema.filter((n) => (n >= min && n <= max) || `must be between ${min} and ${max} (got ${n})`))

/** A finite number in `[min, max]`. */
export const numberBetween = (min: number, max: number) =>
  Schema.Number.pipe(Schema.filter((n) => (Number.isFinite(n) && n >= min && n <= max) || `must be between ${min} and ${max} (got ${n})`))

/** A non-negative finite number. */
export const NonNegative = Schema.Number.pipe(
  Schema.filter((n) => (Number.isFinite(n) && n >= 0) || `must be a number of at least 0 (got ${n})`)
)

/** One of `values`; the message lists them all. */
export const oneOf = <const A extends readonly [string, ...Array<string>]>(values: A) => {
  const set = new Set<string>(values)
  return Schema.String.pipe(
    Schema.filter((s): s is A[number] => set.has(s), {
      message: (issue) => `must be one of ${values.join(", ")} (got ${show(issue.actual)})`
    })
  )
}

/** An array of `item` with `min..max` items. */
export const items = <S extends Schema.Schema.Any>(item: S, min: number, max: number = Number.POSITIVE_INFINITY) =>
  Schema.Array(item).pipe(
    Schema.filter((a) => {
      if (a.length >= min && a.length <= max) return true
      if (max === Number.POSITIVE_INFINITY) return `at least ${min} item${min === 1 ? "" : "s"} required (got ${a.length})`
      if (min === 0) return `at most ${max} items allowed (got ${a.length})`
      return `${min} to ${max} items allowed (got ${a.length})`
    })
  )

const validDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])
}

/** A calendar date `YYYY-MM-DD`. */
export const DateOnly = Schema.String.pipe(Schema.filter((s) => validDate(s) || `must be a date YYYY-MM-DD (got ${show(s)})`))

/** A UTC date-time `YYYY-MM-DDTHH:mm:ss` (the alert reads' format); fractions and a trailing `Z` are accepted. */
export const DateTime = Schema.String.pipe(
  Schema.filter(
    (s) =>
      (/^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?Z?$/.test(s) && validDate(s.slice(0, 10))) ||
      `must be a date-time YYYY-MM-DDTHH:mm:ss (got ${show(s)})`
  )
)

/**
 * A date-time exactly as the spec writes it, `YYYY-MM-DDTHH:mm:ss` (UTC, no zone, no fraction):
 * what the clients send. The spec says other forms are ignored ("invalid values ignored"), so a
 * request must never carry one.
 */
export const SpecDateTime = Schema.String.pipe(
  Schema.filter(
    (s) =>
      (/^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(s) && validDate(s.slice(0, 10))) ||
      `must be a date-time YYYY-MM-DDTHH:mm:ss in UTC, without zone or fraction (got ${show(s)})`
  )
)

/** An instant (ISO string or epoch ms) in the spec's date-time format, UTC. */
export const toSpecDateTime = (instant: string | number): string => {
  const ms = typeof instant === "number" ? instant : Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(instant) ? instant : `${instant}Z`)
  return new Date(ms).toISOString().slice(0, 19)
}

/** An instant in the spec's date format `YYYY-MM-DD`, UTC. */
export const toSpecDate = (instant: string | number): string => toSpecDateTime(instant).slice(0, 10)

/** A point `{latitude -90..90, longitude -180..180}`. */
export const LatLon = Schema.Struct({
  latitude: numberBetween(-90, 90),
  longitude: numberBetween(-180, 180)
})
export type LatLon = typeof LatLon.Type

/** A closed polygon: at least 4 points, the first equal to the last. */
export const ClosedPolygon = Schema.Array(LatLon).pipe(
  Schema.filter((ps) => {
    if (ps.length < 4) return `a closed polygon needs at least 4 points (got ${ps.length})`
    const a = ps[0]!
    const b = ps[ps.length - 1]!
    return (
      (a.latitude === b.latitude && a.longitude === b.longitude) ||
      `a closed polygon's first point must equal its last (first ${show(a)}, last ${show(b)})`
    )
  })
)

/** At least `minItems` property types, all from one group of `groups` (the message lists the groups). */
export const typesOfOneGroup = <T extends string>(
  itemSchema: Schema.Schema<T, string>,
  groups: Record<string, ReadonlyArray<string>>,
  minItems: number
) =>
  Schema.Array(itemSchema).pipe(
    Schema.filter((types) => {
      if (types.length < minItems) return `at least ${minItems} property type required (got ${types.length})`
      if (types.length === 0 || commonGroup(types, groups) !== undefined) return true
      return `property types must come from one group (${Object.keys(groups).join(", ")}); got ${types.join(", ")}`
    })
  )

/** Keys of `obj` among `keys` that are present (not undefined). */
export const present = (obj: object, keys: ReadonlyArray<string>): Array<string> =>
  keys.filter((k) => (obj as Record<string, unknown>)[k] !== undefined)

/** A filter issue when not exactly one of `keys` is set on `obj`; `path` locates the object. */
export const exactlyOne = (obj: object, keys: ReadonlyArray<string>, path: ReadonlyArray<string>): Schema.FilterIssue | undefined => {
  const set = present(obj, keys)
  if (set.length === 1) return undefined
  const list = keys.join(", ")
  return {
    path,
    message:
      set.length === 0 ? `exactly one of ${list} is required (got none)` : `exactly one of ${list} is allowed (got ${set.join(" and ")})`
  }
}

/** A filter issue, on the first key set, when more than one of `keys` is set. */
export const atMostOne = (obj: object, keys: ReadonlyArray<string>, path: ReadonlyArray<string>): Schema.FilterIssue | undefined => {
  const set = present(obj, keys)
  return set.length <= 1 ? undefined : { path: [...path, set[0]!], message: `may not be sent together with ${set.slice(1).join(", ")}` }
}

/** An optional `{min, max}` range with bounds; `min <= max` when both are set. */
export const range = (min: number, max: number) =>
  Schema.NullOr(
    Schema.Struct({
      min: Schema.optional(Schema.NullOr(intBetween(min, max))),
      max: Schema.optional(Schema.NullOr(intBetween(min, max)))
    }).pipe(
      Schema.filter((r) => r.min == null || r.max == null || r.min <= r.max || `min must not exceed max (got min ${r.min}, max ${r.max})`)
    )
  )
