/**
 * Dialects in the sandbox: how the active flags change its answers. The flags, the presets and
 * their schema are in `config/Dialect.ts` (the settings' `sandbox.dialect` decodes with them). The
 * active flags live on `SandboxContext.dialect` and apply to both hosts at once;
 * `SandboxConfig.dialect` sets them at start, `SandboxControl.setDialect` and
 * `POST /__sandbox/dialect` at run time.
 *
 * The paging flags (`linkPaging`, `noPaging`, `repeatPage`, `removeAfterFirstPage`) live in
 * `Paging.ts`, `contentEncoding` in `ContentEncoding.ts`. Which lists each paging flag touches:
 * `linkPaging`, `noPaging`: premises search, seller leads (the list payloads the spec does not
 * show, both offset-paged by default). `repeatPage`: every paged list (premises, seller leads, plot
 * search, sourcing cursor pages, legacy feed alert pages, alerts search, properties search v1 and
 * v2). `removeAfterFirstPage`: premises, seller leads, plot search, legacy feed alert pages, alerts
 * search. "A query" is the request without its paging members (`limit`, `offset`, `cursor`) on one
 * route, remembered per sandbox; setting a dialect (or `reset`) forgets what was remembered.
 */
import { Schema } from "effect"
import { Dialect, DIALECT_NAMES, DialectFlags, type DialectName, DIALECTS } from "../config/Dialect.js"
import { mix32 } from "./world/Hash.js"
import { fnv1a } from "../shared/Fnv.js"
import { stringifyJson } from "../shared/ExactJson.js"

/** The flags of a preset name or of flags (a copy). */
export const resolveDialect = (d: Dialect): DialectFlags => (typeof d === "string" ? { ...DIALECTS[d] } : { ...d })

/**
 * Decodes control input: a preset name, flags, or `{name, ...flags}` (the preset with the flags
 * laid over it). Throws on an unknown name or flag or a bad value.
 */
export const decodeDialect = (input: unknown): DialectFlags => {
  if (typeof input === "object" && input !== null && !Array.isArray(input) && "name" in input) {
    const { name, ...rest } = input as Record<string, unknown>
    if (!(DIALECT_NAMES as ReadonlyArray<unknown>).includes(name)) {
      throw new Error(`Unknown dialect ${JSON.stringify(name)}; one of ${DIALECT_NAMES.join(", ")}`)
    }
    return { ...DIALECTS[name as DialectName], ...Schema.decodeUnknownSync(DialectFlags)(rest) }
  }
  return resolveDialect(Schema.decodeUnknownSync(Dialect)(input))
}

/** The holder on `SandboxContext`: the active flags, replaced as a whole. */
export interface DialectRef {
  current: DialectFlags
}

/** The active flags of a context (contexts built without a dialect speak the default). */
export const activeDialect = (ctx: { readonly dialect?: DialectRef | undefined }): DialectFlags => ctx.dialect?.current ?? DIALECTS.default

// ---------------------------------------------------------------------------------------------
// Page size

/** The number of results a page holds for a requested `limit`. */
export const capLimit = (d: DialectFlags, limit: number): number => (d.pageCap === undefined ? limit : Math.min(limit, d.pageCap))

// ---------------------------------------------------------------------------------------------
// List bodies

/**
 * `shown`: a payload whose shape the spec shows (plot search, alert envelopes); its records stay
 * under `results`. `unshown`: the spec marks the payload "not shown", so `resultsKey` applies.
 */
export type ListKind = "shown" | "unshown"

/** A list body as the dialect writes it: `count`, `next`/`previous` dropped, `results` renamed. */
export const shapeList = <A extends Record<string, unknown>>(d: DialectFlags, body: A, kind: ListKind): Record<string, unknown> => {
  if (!d.noCount && !d.noNext && (d.resultsKey === undefined || kind === "shown")) return body
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(body)) {
    if (d.noCount && k === "count") continue
    if (d.noNext && (k === "next" || k === "previous")) continue
    out[k === "results" && kind === "unshown" && d.resultsKey !== undefined ? d.resultsKey : k] = v
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Date-times

const STRICT_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/
const LENIENT_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)?$/

/**
 * Milliseconds of a UTC date-time, or undefined. Lenient (default): `YYYY-MM-DDTHH:mm:ss` with an
 * optional fraction and `Z` / `+00:00`. Strict: exactly `YYYY-MM-DDTHH:mm:ss` (the spec's
 * notation) and a real calendar instant.
 */
export const parseDateTime = (s: string, strict = false): number | undefined => {
  if (!(strict ? STRICT_DATE_TIME_RE : LENIENT_DATE_TIME_RE).test(s)) return undefined
  const ms = Date.parse(s.endsWith("Z") ? s : `${s.replace(/\+00:00$/, "")}Z`)
  if (Number.isNaN(ms)) return undefined
  return strict && new Date(ms).toISOString().slice(0, 19) !== s ? undefined : ms
}

// ---------------------------------------------------------------------------------------------
// Missing keys

/** FNV-1a of the key, finalised with murmur3's mix (stable across runs and seeds). */
const keyHash = (key: string): number => mix32(fnv1a(key))

/**
 * Whether a by-key read of `key` answers 404 under the dialect. Keys as the path carries them:
 * token property ids in decimal (`"1000123"`), `prop_...`, `lead_...`; resolve tests the `prop_`
 * id it resolved to.
 */
export const isMissingKey = (d: DialectFlags, key: string): boolean => d.missingEvery !== undefined && keyHash(key) % d.missingEvery === 0

// ---------------------------------------------------------------------------------------------
// Platform credentials and the 402 body

/** Assumed: the sandbox's default header for header-style API keys (the spec does not name it). */
export const DEFAULT_API_KEY_HEADER = "X-Api-Key"
/** Assumed: the default member of the 402 problem that carries the payment link. */
export const DEFAULT_PAYMENT_LINK_MEMBER = "payment_url"

/** The header (lower-case, as Node reports it) that carries header-style API keys. */
export const apiKeyHeaderOf = (d: DialectFlags): string => (d.apiKeyHeader ?? DEFAULT_API_KEY_HEADER).toLowerCase()

// ---------------------------------------------------------------------------------------------
// Ids

/** 2^53: added to every alert id under `bigIds`, so the id is beyond what a double holds exactly. */
export const BIG_ID_OFFSET = 9007199254740992n

/**
 * An alert record as `bigIds` writes it: `alert_id` as the bigint `alert_id + 2^53` (write the
 * body with `stringifyWithBigInts`). A drifted id sent as a string of digits stays a string, shifted;
 * a renamed one is left alone.
 */
export const withBigAlertId = <A extends object>(a: A): A => {
  const id = (a as { readonly alert_id?: unknown }).alert_id
  if (typeof id === "number") return { ...a, alert_id: BigInt(id) + BIG_ID_OFFSET }
  if (typeof id === "string" && /^\d+$/.test(id)) return { ...a, alert_id: String(BigInt(id) + BIG_ID_OFFSET) }
  return a
}

/** `JSON.stringify` that writes a `bigint` as its digits, an exact JSON integer (the bodies of `bigIds`). */
export const stringifyWithBigInts = stringifyJson
