/**
 * How the dialects that change paging act on a list (Dialect.ts), written once for the list
 * routes of both hosts: the paging mode of the offset lists whose payload the spec does not show
 * (`linkPaging`, `noPaging`), the opaque cursors of `linkPaging`, the stale second page of
 * `repeatPage` and the records that leave a query under `removeAfterFirstPage`. Under the default
 * dialect `readPage` is `fetch(offset, limit)` and nothing is remembered.
 *
 * What the sandbox remembers lives per `SandboxContext` (`pagingMemory`): which queries got their
 * stale page, which records left which query. A query is the route plus the request without its
 * paging members (`limit`, `offset`, `cursor`), object keys sorted (`queryKey`). Setting a
 * dialect and `SandboxControl.reset` forget it (`forgetPaging`).
 */
import { fnv1aHex } from "../shared/Fnv.js"
import type { DialectFlags } from "../config/Dialect.js"
import { activeDialect } from "./Dialect.js"
import type { SandboxContext } from "./SandboxContext.js"

/** One read of a list: the matching records' number and a page of them. */
export interface Listing<A> {
  readonly count: number
  readonly results: ReadonlyArray<A>
}

/** Reads `limit` records from `offset` of a query's full list, as the world has it. */
export type Fetch<A> = (offset: number, limit: number) => Listing<A>

/** `Fetch` over a list already in memory. */
export const listOf =
  <A>(all: ReadonlyArray<A>): Fetch<A> =>
  (offset, limit) => ({ count: all.length, results: all.slice(offset, offset + limit) })

/** Records that left one query under `removeAfterFirstPage`. */
export interface Removal {
  /** The query (`queryKey`). */
  readonly query: string
  /** The records' ids as text, in list order. */
  readonly ids: ReadonlyArray<string>
  /** Their positions in the query's list when they left (1, 2, ...). */
  readonly positions: ReadonlyArray<number>
}

interface PagingMemory {
  /** Queries whose second page has been answered stale (`repeatPage`). */
  readonly repeated: Set<string>
  readonly removed: Map<string, Removal>
}

const memories = new WeakMap<object, PagingMemory>()

/** The paging memory of a sandbox (keyed by its context). */
export const pagingMemory = (ctx: object): PagingMemory => {
  let m = memories.get(ctx)
  if (m === undefined) memories.set(ctx, (m = { repeated: new Set(), removed: new Map() }))
  return m
}

/** Forgets stale pages served and records removed (a new dialect, a reset). */
export const forgetPaging = (ctx: object) => {
  const m = pagingMemory(ctx)
  m.repeated.clear()
  m.removed.clear()
}

/** Every removal so far, in the order the queries' first pages were served. */
export const removals = (ctx: object): ReadonlyArray<Removal> => [...pagingMemory(ctx).removed.values()]

const PAGING_MEMBERS = new Set(["limit", "offset", "cursor"])

const canonical = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(canonical)
  if (typeof v !== "object" || v === null) return v
  const o = v as Record<string, unknown>
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, canonical(o[k])])
  )
}

/**
 * The key of a query: `route` (e.g. `"POST /v1/ai/search"`) and the request (a JSON body, or a
 * query string as an object) without its top-level paging members.
 */
export const queryKey = (route: string, request: unknown): string => {
  const top =
    typeof request === "object" && request !== null && !Array.isArray(request)
      ? Object.fromEntries(Object.entries(request).filter(([k]) => !PAGING_MEMBERS.has(k)))
      : (request ?? {})
  return `${route} ${JSON.stringify(canonical(top))}`
}

// ---------------------------------------------------------------------------------------------
// Paging modes and cursors (`linkPaging`, `noPaging`)

/**
 * How premises search and seller leads page: by `offset` (default), by an opaque `next` link
 * (`linkPaging`), or not at all (`noPaging`, which wins).
 */
export type PagingMode = "offset" | "link" | "none"

export const pagingMode = (d: DialectFlags): PagingMode => (d.noPaging ? "none" : d.linkPaging ? "link" : "offset")

/**
 * The cursor of a `linkPaging` link: the position in the query's list and a hash of the query
 * (which makes it opaque; it is not checked).
 */
export const encodePageCursor = (position: number, key: string): string => Buffer.from(`${position}:${fnv1aHex(key)}`).toString("base64url")

/** The position of a cursor `encodePageCursor` wrote; undefined for anything else. */
export const decodePageCursor = (text: string): number | undefined => {
  const m = /^(\d{1,15}):[0-9a-f]{8}$/.exec(Buffer.from(text, "base64url").toString("utf8"))
  return m === null ? undefined : Number(m[1])
}

/** Where the page after one at `position` holding `returned` of `count` records starts; null at the end. */
export const nextPosition = (position: number, returned: number, count: number): number | null =>
  returned > 0 && position + returned < count ? position + returned : null

// ---------------------------------------------------------------------------------------------
// Pages (`repeatPage`, `removeAfterFirstPage`)

/**
 * `repeatPage`: whether this request, when it is the query's second page (`isSecond`, asked only
 * while the query has not had its stale page), is answered with the first page's records. True
 * once per query.
 */
export const staleOnce = (ctx: SandboxContext, key: string, isSecond: () => boolean): boolean => {
  if (!activeDialect(ctx).repeatPage) return false
  const m = pagingMemory(ctx)
  if (m.repeated.has(key) || !isSecond()) return false
  m.repeated.add(key)
  return true
}

export interface PageRead<A> {
  /** The query (`queryKey`). */
  readonly key: string
  /** The position requested. */
  readonly offset: number
  /** The records a page holds (the requested `limit` after `pageCap`). */
  readonly limit: number
  /** The record's id as text, given where records may leave the query (`removeAfterFirstPage`). */
  readonly idOf?: (a: A) => string
}

/** `fetch` without the removed records: positions map past them, and `count` drops. */
const without = <A>(fetch: Fetch<A>, removal: Removal, idOf: (a: A) => string): Fetch<A> => {
  const gone = new Set(removal.ids)
  const n = removal.ids.length
  return (offset, limit) => {
    let from = offset
    for (const p of removal.positions) if (p <= from) from++
    const got = fetch(from, limit + n)
    return { count: Math.max(0, got.count - n), results: got.results.filter((a) => !gone.has(idOf(a))).slice(0, limit) }
  }
}

/**
 * A page of a query (read with `fetch`) under the active dialect. `repeatPage`: the second page (at `offset ===
 * limit`, with records) is answered once with the first page's records, `count` as it is.
 * `removeAfterFirstPage` (with `idOf`): once a page at offset 0 has been served, the records at
 * positions 1..n leave the query for every later request.
 */
export const readPage = <A>(ctx: SandboxContext, fetch: Fetch<A>, r: PageRead<A>): Listing<A> => {
  const n = activeDialect(ctx).removeAfterFirstPage
  const m = pagingMemory(ctx)
  const removal = n !== undefined && r.idOf !== undefined ? m.removed.get(r.key) : undefined
  const source = removal === undefined ? fetch : without(fetch, removal, r.idOf!)
  const page = source(r.offset, r.limit)
  const stale = staleOnce(ctx, r.key, () => r.offset > 0 && r.offset === r.limit && page.results.length > 0)
  const served = stale ? { count: page.count, results: source(0, r.limit).results } : page
  if (n !== undefined && r.idOf !== undefined && r.offset === 0 && !m.removed.has(r.key)) {
    const ids = fetch(1, n).results.map(r.idOf)
    m.removed.set(r.key, { query: r.key, ids, positions: ids.map((_, i) => i + 1) })
  }
  return served
}
