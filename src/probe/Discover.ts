/**
 * Where an answer keeps what the pagers read, found by looking at it: the records list (the
 * largest list of objects, at most three members deep), the total count, the next link and the
 * page's own count, each as the dotted path `service.shapes` takes. Pure functions over a parsed
 * body; the probe compares what they find with the operation's declared shape.
 */

/** Members a total count is found under, in the order they are tried. */
const COUNT_NAMES = ["count", "total", "total_count", "totalCount", "total_results", "totalResults", "hits", "matches"]
/** Members a next link is found under. */
const NEXT_NAMES = ["next", "next_url", "nextUrl", "next_page", "nextPage", "next_link", "href"]
/** Members a page's own count is found under. */
const RETURNED_NAMES = ["returned", "page_count", "size", "count_returned"]
/** Objects a paging member may sit in. */
const HOLDERS = ["", "meta", "pagination", "paging", "page", "links", "_links", "_links.next"]

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const at = (body: unknown, path: string): unknown => {
  if (path === "" || path === ".") return body
  let v: unknown = body
  for (const part of path.split(".")) {
    if (!isObject(v) || !(part in v)) return undefined
    v = v[part]
  }
  return v
}

const join = (holder: string, name: string) => (holder === "" ? name : `${holder}.${name}`)

/** The path of the largest list of objects (`.` for a body that is one), at most `depth` members deep. */
export const findRecords = (body: unknown, depth = 3): string | undefined => {
  let best: { path: string; size: number } | undefined
  const visit = (v: unknown, path: string, left: number) => {
    if (Array.isArray(v)) {
      if (v.length === 0 || v.some(isObject)) {
        const size = v.length
        if (best === undefined || size > best.size) best = { path: path === "" ? "." : path, size }
      }
      return
    }
    if (!isObject(v) || left === 0) return
    for (const [k, x] of Object.entries(v)) visit(x, path === "" ? k : `${path}.${k}`, left - 1)
  }
  visit(body, "", depth)
  return best?.path
}

const findBy = (body: unknown, names: ReadonlyArray<string>, ok: (v: unknown) => boolean): string | undefined => {
  for (const holder of HOLDERS) {
    const h = at(body, holder)
    if (!isObject(h)) continue
    for (const n of names) if (n in h && ok(h[n])) return join(holder, n)
  }
  return undefined
}

const isCount = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0) || typeof v === "bigint"
const isLink = (v: unknown) => v === null || (typeof v === "string" && (/^https?:\/\//i.test(v) || v.startsWith("/") || v.startsWith("?")))

/** Where a total count is, if the body has one. */
export const findCount = (body: unknown): string | undefined => findBy(body, COUNT_NAMES, isCount)
/** Where a next link is (a URL, a path, or null on the last page), if the body has one. */
export const findNext = (body: unknown): string | undefined => findBy(body, NEXT_NAMES, isLink)
/** Where the page's own count is, if the body has one. */
export const findReturned = (body: unknown): string | undefined => findBy(body, RETURNED_NAMES, isCount)

/** The value at a dotted path (`.` is the body). */
export const valueAt = at

/** Members of an object whose value is an http(s) URL (a payment link by any name). */
export const urlMembers = (body: unknown): Array<string> =>
  isObject(body)
    ? Object.entries(body).flatMap(([k, v]) => (typeof v === "string" && /^https?:\/\//i.test(v) && k !== "type" ? [k] : []))
    : []

/** Whether a parsed value holds an integer beyond 2^53 (read as a `bigint`). */
export const hasBigInteger = (v: unknown): boolean =>
  typeof v === "bigint" || (Array.isArray(v) ? v.some(hasBigInteger) : isObject(v) ? Object.values(v).some(hasBigInteger) : false)
