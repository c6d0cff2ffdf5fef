/**
 * Stateless cursors of Property Sourcing searches: the cursor carries the filter, the scan
 * position, the page size and the snapshot time, so a `next` URL stored before a crash still
 * works after it, and paging sees one consistent snapshot of the world.
 */
import type { SourcingFilter } from "../world/World.js"
import { fnv1aHex } from "../../shared/Fnv.js"

export interface CursorState {
  readonly filter: SourcingFilter
  /** Scan position to resume from (the world's `nextFrom`). */
  readonly from: number
  readonly limit: number
  /** Sandbox time of the first page (epoch ms). */
  readonly at: number
}

export const encodeCursor = (c: CursorState): string => Buffer.from(JSON.stringify([c.filter, c.from, c.limit, c.at])).toString("base64url")

/** undefined when the text is not a cursor this sandbox wrote. */
export const decodeCursor = (text: string): CursorState | undefined => {
  try {
    const v = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown
    if (!Array.isArray(v) || v.length !== 4) return undefined
    const [filter, from, limit, at] = v as [unknown, unknown, unknown, unknown]
    if (typeof filter !== "object" || filter === null || Array.isArray(filter)) return undefined
    if (!Number.isInteger(from) || !Number.isInteger(limit) || typeof at !== "number") return undefined
    const f = filter as Record<string, unknown>
    if (typeof f["country"] !== "string" || (f["operation"] !== "sale" && f["operation"] !== "rent")) return undefined
    if ((from as number) < 0 || (limit as number) < 1 || (limit as number) > 200) return undefined
    return { filter: filter as SourcingFilter, from: from as number, limit: limit as number, at }
  } catch {
    return undefined
  }
}

/** FNV-1a of a string, 8 hex digits (search ids). */
export const fnv = fnv1aHex
