/**
 * The alert feed `filter` shared by both feed families and the legacy alerts search, and the
 * windows that alert read parameters put over it.
 *
 * Assumed (docs/ASSUMPTIONS.md "Legacy feed"): `{location_ids?, types?, operation?,
 * alert_subtypes?, alert_date_from?, alert_date_to?, created_at_from?, created_at_to?}`, plus
 * `created_at_with_photos_from/_to` since the read parameters of those names override "the feed
 * filter". Assumed bounds: `_from` inclusive; `alert_date_to` inclusive (a date);
 * `created_at*_to` exclusive (a date-time), so consecutive incremental windows `[a, b)`, `[b, c)`
 * never return an alert twice.
 */
import type { AlertQuery } from "../world/Queries.js"
import { AlertSubtype, Operation, PROPERTY_TYPES } from "../../service/schema/Enums.js"
import { parseDateTime as parseDialectDateTime } from "../Dialect.js"
import { type Checker, type Json, type Loc, parseDate } from "./Validate.js"

export interface FeedFilter {
  readonly location_ids?: ReadonlyArray<number>
  readonly types?: ReadonlyArray<string>
  readonly operation?: string
  readonly alert_subtypes?: ReadonlyArray<string>
  readonly alert_date_from?: string
  readonly alert_date_to?: string
  readonly created_at_from?: string
  readonly created_at_to?: string
  readonly created_at_with_photos_from?: string
  readonly created_at_with_photos_to?: string
}

/**
 * Milliseconds of a UTC date-time `YYYY-MM-DDTHH:mm:ss` (optional fraction and `Z`), else
 * undefined. `strict` (dialect `strictDateTime`): exactly `YYYY-MM-DDTHH:mm:ss`.
 */
export const parseDateTime = (s: string, strict = false): number | undefined => parseDialectDateTime(s, strict)

const DATE_KEYS = ["alert_date_from", "alert_date_to"] as const
const DATE_TIME_KEYS = ["created_at_from", "created_at_to", "created_at_with_photos_from", "created_at_with_photos_to"] as const

/** Checks a `filter` member of `obj` (optional object); returns it cleaned. */
export const checkFeedFilter = (c: Checker, obj: Json | undefined, loc: Loc, key = "filter"): FeedFilter | undefined => {
  const f = c.object(obj, key, loc, { nullable: true })
  if (f === undefined) return undefined
  return checkFilterFields(c, f, [...loc, key])
}

/** Checks the filter fields directly on `f` (the alerts search body carries them at top level). */
export const checkFilterFields = (c: Checker, f: Json, at: Loc): FeedFilter => {
  const out: Record<string, unknown> = {}
  const locationIds = c.ints(f, "location_ids", at, { ge: 1, le: 2147483647 })
  if (locationIds !== undefined) out.location_ids = locationIds
  const types = c.literals(f, "types", at, PROPERTY_TYPES)
  if (types !== undefined) out.types = types
  const operation = c.literal(f, "operation", at, Operation.values)
  if (operation !== undefined) out.operation = operation
  const subtypes = c.literals(f, "alert_subtypes", at, AlertSubtype.values)
  if (subtypes !== undefined) out.alert_subtypes = subtypes
  for (const k of DATE_KEYS) {
    const d = c.date(f, k, at, { nullable: true })
    if (typeof d === "string") out[k] = d
  }
  for (const k of DATE_TIME_KEYS) {
    const v = c.string(f, k, at)
    if (v === undefined) continue
    if (parseDateTime(v) === undefined) c.add([...at, k], "datetime_from_date_parsing", "Input should be a valid datetime", v)
    else out[k] = v
  }
  return out as FeedFilter
}

/**
 * Read-parameter overrides: valid values replace the filter's; invalid values are ignored (spec).
 * `strictDateTime`: a date-time not written exactly `YYYY-MM-DDTHH:mm:ss` is invalid.
 */
export const applyOverrides = (filter: FeedFilter, params: Record<string, string>, strictDateTime = false): FeedFilter => {
  const out: Record<string, unknown> = { ...filter }
  for (const k of DATE_KEYS) {
    const v = params[k]
    if (v !== undefined && parseDate(v) !== undefined) out[k] = v
  }
  for (const k of DATE_TIME_KEYS) {
    const v = params[k]
    if (v !== undefined && parseDateTime(v, strictDateTime) !== undefined) out[k] = v
  }
  const subtype = params["alert_subtype"]
  if (subtype !== undefined && (AlertSubtype.values as ReadonlyArray<string>).includes(subtype)) out.alert_subtypes = [subtype]
  return out as FeedFilter
}

/**
 * The world's alert query of a filter (after overrides), for one page. `strictDateTime`: the
 * filter's date-times not written exactly `YYYY-MM-DDTHH:mm:ss` are ignored (treated as absent).
 */
export const toAlertQuery = (
  f: FeedFilter,
  nowMs: number,
  page: { readonly limit: number; readonly offset: number },
  orderBy?: string,
  strictDateTime = false
): AlertQuery => {
  const ms = (s: string | undefined) => (s === undefined ? undefined : parseDateTime(s, strictDateTime))
  return {
    nowMs,
    createdFrom: ms(f.created_at_from),
    createdTo: ms(f.created_at_to),
    createdWithPhotosFrom: ms(f.created_at_with_photos_from),
    createdWithPhotosTo: ms(f.created_at_with_photos_to),
    alertDateFrom: f.alert_date_from,
    alertDateTo: f.alert_date_to,
    subtypes: f.alert_subtypes !== undefined && f.alert_subtypes.length > 0 ? f.alert_subtypes : undefined,
    locationIds: f.location_ids !== undefined && f.location_ids.length > 0 ? f.location_ids : undefined,
    types: f.types !== undefined && f.types.length > 0 ? f.types : undefined,
    operation: f.operation === "sale" || f.operation === "rent" ? f.operation : undefined,
    orderBy,
    offset: page.offset,
    limit: page.limit
  }
}
