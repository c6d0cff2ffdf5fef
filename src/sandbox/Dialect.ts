/**
 * Dialects: spec-valid readings of what the spec leaves unsaid, so a client can be tested
 * against services that differ from the sandbox's own reading. A dialect is a set of flags
 * (all optional; absent = the sandbox's default behaviour) or the name of a preset in
 * `DIALECTS`. The active flags live on `SandboxContext.dialect` and apply to both hosts at once;
 * `SandboxConfig.dialect` sets them at start, `SandboxControl.setDialect` and
 * `POST /__sandbox/dialect` at run time.
 *
 * | flag                | effect                                                                                  |
 * |---------------------|-----------------------------------------------------------------------------------------|
 * | `pageCap`           | every list read that takes a page size returns at most this many results, silently     |
 * | `noCount`           | list bodies carry no top-level `count` (`returned` stays)                              |
 * | `noNext`            | list bodies carry no `next` / `previous`                                               |
 * | `resultsKey`        | the records of "not shown" list payloads sit under this key instead of `results`       |
 * | `strictDateTime`    | date-time inputs count only as `YYYY-MM-DDTHH:mm:ss`; other forms are ignored          |
 * | `missingEvery`      | by-key reads of keys with `isMissingKey` answer 404 (lists unchanged)                   |
 * | `apiKeyHeader`      | the only header name that carries a header-style API key (default `X-Api-Key`)         |
 * | `bearerKeys`        | false: API keys in `Authorization: Bearer` are refused 401 `invalid_credential`        |
 * | `paymentLinkMember` | member of the 402 problem that carries the payment link (default `payment_url`)        |
 * | `costFactor`        | operations whose cost the spec does not state charge this many times the usual units    |
 * | `linkPaging`        | premises search and seller leads ignore `offset` and page by an opaque `next` link      |
 * |                     | (`?cursor=`; premises: POST the same body to it); premises answers carry no `offset`    |
 * | `noPaging`          | premises search and seller leads answer their first page to every request: no `next`,   |
 * |                     | no premises `offset`, `count` and `returned` kept (wins over `linkPaging`)               |
 * | `repeatPage`        | a query's second page request (offset/cursor just after the first page) is answered     |
 * |                     | once with the first page's records (a stale cache); links and `offset` as requested     |
 * | `pageDepth`         | premises search refuses `offset + limit` above this, 400 `page_depth_exceeded`          |
 * |                     | (wins over `SandboxConfig.premisesPageDepth`)                                           |
 * | `removeAfterFirstPage` | once a query's first page is served, its records at positions 1..n leave the query  |
 * |                     | (sold): later pages shift, `count` drops by n (`SandboxControl.removed()`)              |
 * | `contentEncoding`   | JSON answers of both hosts are sent in this content coding when `Accept-Encoding` is   |
 * |                     | absent or allows it; `zstd` always (a coding the client may not decode)                 |
 * | `bigIds`            | token-host alert records carry `alert_id` + 2^53 (`BIG_ID_OFFSET`), an exact integer    |
 * | `stringIds`         | legacy feed records (list, create, update) carry `id` as a string of digits             |
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
import { mix32 } from "./world/Hash.js"
import { fnv1a } from "../shared/Fnv.js"
import { stringifyJson } from "../shared/ExactJson.js"

const NonEmpty = Schema.String.pipe(Schema.minLength(1))
/** A header name (RFC 9110 token). */
const HeaderName = Schema.String.pipe(Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/))

export const DialectFlags = Schema.Struct({
  pageCap: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  noCount: Schema.optional(Schema.Boolean),
  noNext: Schema.optional(Schema.Boolean),
  resultsKey: Schema.optional(NonEmpty),
  strictDateTime: Schema.optional(Schema.Boolean),
  missingEvery: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(2))),
  apiKeyHeader: Schema.optional(HeaderName),
  /** Default true. */
  bearerKeys: Schema.optional(Schema.Boolean),
  paymentLinkMember: Schema.optional(NonEmpty),
  /**
   * Charges this many times the sandbox's unit cost for every operation whose cost the spec does
   * not state (premises search stays 40): a service priced otherwise than the client assumes.
   */
  costFactor: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))),
  /** Premises search and seller leads page by an opaque `next` link (`?cursor=`), not by `offset`. */
  linkPaging: Schema.optional(Schema.Boolean),
  /** Premises search and seller leads answer the first page to every request (no paging at all). */
  noPaging: Schema.optional(Schema.Boolean),
  /** A query's second page is answered once with the first page's records. */
  repeatPage: Schema.optional(Schema.Boolean),
  /** Premises search: the largest `offset + limit` served (400 `page_depth_exceeded` above). */
  pageDepth: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  /** After a query's first page, its records at positions 1..n leave the query. */
  removeAfterFirstPage: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  /** Content coding of every JSON answer (see `ContentEncoding.ts`). */
  contentEncoding: Schema.optional(Schema.Literal("gzip", "br", "deflate", "zstd")),
  /** Token-host alert ids beyond 2^53, written as exact JSON integers. */
  bigIds: Schema.optional(Schema.Boolean),
  /** Legacy feed ids as strings holding the integer. */
  stringIds: Schema.optional(Schema.Boolean)
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type DialectFlags = typeof DialectFlags.Type

export const DIALECT_NAMES = [
  "default",
  "capped-pages",
  "no-count",
  "no-next",
  "results-key",
  "strict-datetime",
  "missing-keys",
  "header-key",
  "payment-member",
  "pricier",
  "next-only",
  "no-paging",
  "repeat-pages",
  "page-depth",
  "removals",
  "gzip",
  "zstd",
  "big-ids",
  "string-ids"
] as const
export const DialectName = Schema.Literal(...DIALECT_NAMES)
export type DialectName = typeof DialectName.Type

/** Named presets. */
export const DIALECTS: Readonly<Record<DialectName, DialectFlags>> = {
  default: {},
  // 37: not a divisor of the usual page sizes (20, 50, 100, 200), so a short page is visible.
  "capped-pages": { pageCap: 37 },
  "no-count": { noCount: true },
  "no-next": { noNext: true },
  "results-key": { resultsKey: "items" },
  "strict-datetime": { strictDateTime: true },
  "missing-keys": { missingEvery: 7 },
  "header-key": { apiKeyHeader: "Svc-Api-Key", bearerKeys: false },
  "payment-member": { paymentLinkMember: "top_up_url" },
  pricier: { costFactor: 3 },
  "next-only": { linkPaging: true },
  "no-paging": { noPaging: true },
  "repeat-pages": { repeatPage: true },
  // 60: three premises pages at the default size (20); a full read of a larger result is refused.
  "page-depth": { pageDepth: 60 },
  removals: { removeAfterFirstPage: 3 },
  gzip: { contentEncoding: "gzip" },
  zstd: { contentEncoding: "zstd" },
  "big-ids": { bigIds: true },
  "string-ids": { stringIds: true }
}

/** What `SandboxConfig.dialect` and the control accept: a preset name or flags. */
export const Dialect = Schema.Union(DialectName, DialectFlags)
export type Dialect = typeof Dialect.Type

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
