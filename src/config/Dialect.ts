/**
 * The dialect schema: spec-valid readings of what the spec leaves unsaid, so a client can be
 * tested against services that differ from the sandbox's own reading. A dialect is a set of flags
 * (all optional; absent = the sandbox's default behaviour) or the name of a preset in `DIALECTS`.
 * The settings' `sandbox.dialect` is decoded with it, so it lives here, below the sandbox, which
 * imports it: the sandbox applies the flags (`sandbox/Dialect.ts`: `resolveDialect`,
 * `activeDialect`, ...); the active flags live on `SandboxContext.dialect` and apply to both hosts
 * at once; `SandboxConfig.dialect` sets them at start, `SandboxControl.setDialect` and
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
 * `isMissingKey` and `BIG_ID_OFFSET` are the sandbox's (`sandbox/Dialect.ts`).
 */
import { Schema } from "effect"

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
