/**
 * Where a list operation's answer keeps its records, its total count and its next link. The spec
 * shows these for a few operations only (plot search, the alert and property envelopes); for the
 * others ("not shown") each operation's module declares its reading, marked `Assumed:`, and the
 * settings can override it (`service.shapes.<operation>`), like dlt's `data_selector` and
 * paginator settings. A body without the list where the shape says stops the run with a named
 * `UnexpectedShape`, never `done` with 0 rows.
 */
import { Either } from "effect"

/**
 * Paths are dotted member names from the body's root (`data.items`); `"."` is the body itself
 * (a body that is the list). `null` says the answer carries no such member, so the pager must
 * not wait for it.
 */
export interface ResponseShape {
  /** The records list. */
  readonly results: string
  /** The total count of matching records, when the answer has one. */
  readonly count: string | null
  /** The next page's link, when the answer has one. */
  readonly next: string | null
  /** How many records this page holds, when the answer says so. */
  readonly returned: string | null
}

/** A shape override from the settings: any subset of the members. */
export type ShapeOverride = { readonly [K in keyof ResponseShape]?: string | null | undefined }

/** What a list answer says, read through its shape. */
export interface ListPage {
  readonly records: ReadonlyArray<unknown>
  readonly total?: number | undefined
  /** `undefined`: the body has no next member; `null`: it says there is no next page. */
  readonly next?: string | null | undefined
  readonly returned?: number | undefined
  /** Where `records` sits in the body (`records` is exactly the value there): the page journal re-reads them from the body. */
  readonly recordsAt?: string | undefined
}

/** The usual envelope `{count, next, results}` (the spec's alert and property envelopes). */
export const ENVELOPE: ResponseShape = { results: "results", count: "count", next: "next", returned: "returned" }
/** A body that is the list itself. */
export const BARE_LIST: ResponseShape = { results: ".", count: null, next: null, returned: null }

const MISSING = Symbol("missing")

/** The value at a dotted path, or `MISSING`. */
const at = (body: unknown, path: string): unknown => {
  if (path === "." || path === "") return body
  let v: unknown = body
  for (const part of path.split(".")) {
    if (typeof v !== "object" || v === null || Array.isArray(v) || !(part in v)) return MISSING
    v = (v as Record<string, unknown>)[part]
  }
  return v
}

const describe = (v: unknown) =>
  v === MISSING ? "nothing" : v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`

/** Reads a list answer; `Left` says what was expected where and what was there. */
export const readList = (body: unknown, shape: ResponseShape): Either.Either<ListPage, string> => {
  const results = at(body, shape.results)
  if (!Array.isArray(results)) {
    const keys = typeof body === "object" && body !== null && !Array.isArray(body) ? Object.keys(body).slice(0, 12) : []
    return Either.left(
      `expected a list at "${shape.results}", found ${describe(results)}${keys.length ? ` (members: ${keys.join(", ")})` : ""}`
    )
  }
  const count = shape.count === null ? MISSING : at(body, shape.count)
  const next = shape.next === null ? MISSING : at(body, shape.next)
  const returned = shape.returned === null ? MISSING : at(body, shape.returned)
  return Either.right({
    records: results,
    recordsAt: shape.results,
    ...(typeof count === "number" && Number.isFinite(count) ? { total: count } : {}),
    ...(next === MISSING ? {} : { next: typeof next === "string" && next.length > 0 ? next : null }),
    ...(typeof returned === "number" && Number.isFinite(returned) ? { returned } : {})
  })
}

/** The records list of a body at `path` (a `ListPage.recordsAt`), or `undefined` when there is none. */
export const recordsAtPath = (body: unknown, path: string): ReadonlyArray<unknown> | undefined => {
  const v = at(body, path)
  return Array.isArray(v) ? v : undefined
}

/** A shape with a settings override applied (`""` in an override also means "none"). */
export const withOverride = (shape: ResponseShape, override: ShapeOverride | undefined): ResponseShape => {
  if (override === undefined) return shape
  const pick = (k: keyof ResponseShape): string | null => {
    const v = override[k]
    return v === undefined ? shape[k] : v === "" || v === null ? null : v
  }
  const results = override.results
  return {
    results: results === undefined || results === null || results === "" ? shape.results : results,
    count: pick("count"),
    next: pick("next"),
    returned: pick("returned")
  }
}

/**
 * A next link as the pagers keep it: relative to the host's base URL when it points there, so a
 * checkpoint survives a new base URL (another sandbox port, a settings change); a link to any
 * other host stays absolute and the client refuses to follow it.
 */
export const relativeLink = (base: string, link: string | null | undefined): string | null | undefined => {
  if (typeof link !== "string") return link
  const root = base.replace(/\/+$/, "")
  return link.startsWith(`${root}/`) ? link.slice(root.length) : link
}

/**
 * A page whose next link is made relative to `base` (see `relativeLink`). `rebase`: the answer
 * was bought earlier and read from the archive, so its links name the host as it was then (a
 * sandbox on another port, a base URL since renamed): any absolute link keeps its path and query
 * and goes to `base` now, never to another host.
 */
export const withRelativeNext = (base: string, page: ListPage, rebase = false): ListPage => {
  if (page.next === undefined) return page
  const next = relativeLink(base, page.next)
  if (!rebase || typeof next !== "string" || !/^https?:\/\//i.test(next)) return { ...page, next }
  const u = new URL(next)
  const path = new URL(base.replace(/\/+$/, "") + "/").pathname.replace(/\/$/, "")
  const rest = u.pathname.startsWith(`${path}/`) ? u.pathname.slice(path.length) : u.pathname
  return { ...page, next: `${rest}${u.search}` }
}

/** The first characters of a body for an error line. */
export const bodyStart = (raw: string, n = 200): string => raw.replace(/\s+/g, " ").slice(0, n)
