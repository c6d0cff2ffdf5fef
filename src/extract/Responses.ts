/**
 * From a host client's response to a `Fetched` page: the records, the raw body, the units and
 * the ledger charge. Pipelines call these so they stay free of HTTP details.
 */
import type { Fetched } from "./Source.js"

interface ClientResponse {
  readonly raw: string
  readonly requestId?: string | undefined
  readonly units?: { readonly charged: number } | undefined
}

/** A page of `records` from a platform or token host response. */
export const fetchedOf = <R>(
  response: ClientResponse,
  operation: string,
  records: ReadonlyArray<R>,
  extra: { readonly total?: number | undefined; readonly empty?: boolean | undefined } = {}
): Fetched<R> => {
  const units = response.units?.charged ?? 0
  return {
    records,
    raw: response.raw,
    units,
    charges: units > 0 ? [{ requestId: response.requestId ?? `unknown-${Date.now()}`, operation, units, at: new Date().toISOString() }] : [],
    ...(extra.total !== undefined ? { total: extra.total } : {}),
    ...(extra.empty ? { empty: true } : {})
  }
}

/** `results` of a body when it is a list, else none. */
export const resultsOf = (body: unknown): ReadonlyArray<unknown> => {
  const r = (body as { results?: unknown } | null)?.results
  return Array.isArray(r) ? r : []
}

/** A numeric `count` of a body, when present. */
export const countOf = (body: unknown): number | undefined => {
  const c = (body as { count?: unknown } | null)?.count
  return typeof c === "number" ? c : undefined
}

/** The `next` URL of a body, or null. */
export const nextOf = (body: unknown): string | null => {
  const n = (body as { next?: unknown } | null)?.next
  return typeof n === "string" && n.length > 0 ? n : null
}
