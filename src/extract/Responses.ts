/**
 * From a host client's response to a `Fetched` page: the records, the raw body, the units and
 * the ledger charge. Pipelines call these so they stay free of HTTP details.
 */
import { randomUUID } from "node:crypto"
import type { Fetched, PaidRequest } from "./Source.js"

interface ClientResponse {
  readonly raw: string
  readonly requestId?: string | undefined
  readonly units?: { readonly charged: number; readonly remaining?: number | undefined } | undefined
  /** The paid request it answers (platform host), kept with the archived body for reuse. */
  readonly request?: PaidRequest | undefined
  /** The operation that answered: the client names it on its answer (the page's and its charge's operation). */
  readonly operation?: string | undefined
}

type Extra = { readonly total?: number | undefined; readonly empty?: boolean | undefined }

const fetched = <R>(response: ClientResponse, operation: string, records: ReadonlyArray<R>, extra: Extra = {}): Fetched<R> => {
  const units = response.units?.charged ?? 0
  return {
    records,
    raw: response.raw,
    units,
    // A charge the service sent no request id for still gets a key of its own: two of them in one
    // millisecond once shared `unknown-<ms>` and the ledger kept one. The page journal keeps the
    // id, so a replayed page charges under the same key.
    charges:
      units > 0
        ? [
            {
              requestId: response.requestId ?? `unknown-${randomUUID()}`,
              operation,
              units,
              at: new Date().toISOString(),
              ...(response.units?.remaining !== undefined ? { remaining: response.units.remaining } : {})
            }
          ]
        : [],
    operation,
    ...(response.request ? { request: response.request } : {}),
    ...(extra.total !== undefined ? { total: extra.total } : {}),
    ...(extra.empty ? { empty: true } : {})
  }
}

const operationOf = (response: ClientResponse, named?: string): string => named ?? response.operation ?? "unknown"

/**
 * A page of `records` from a platform or token host answer, charged to the operation the answer
 * carries. (`fetchedOf(response, operation, records, extra)`, naming the operation, is the form
 * of earlier versions, kept for pipeline modules written for them.)
 */
export function fetchedOf<R>(
  response: ClientResponse & { readonly operation: string },
  records: ReadonlyArray<R>,
  extra?: Extra
): Fetched<R>
export function fetchedOf<R>(response: ClientResponse, operation: string, records: ReadonlyArray<R>, extra?: Extra): Fetched<R>
export function fetchedOf<R>(response: ClientResponse, a: string | ReadonlyArray<R>, b?: ReadonlyArray<R> | Extra, c?: Extra): Fetched<R> {
  return typeof a === "string"
    ? fetched(response, a, b as ReadonlyArray<R>, c)
    : fetched(response, operationOf(response), a, b as Extra | undefined)
}

/** A list answer read through its response shape (see `service/ResponseShape.ts`). */
interface ListResponse extends ClientResponse {
  /** The operation whose shape read it (the client's name for the call). */
  readonly operation: string
  readonly page: {
    readonly records: ReadonlyArray<unknown>
    readonly total?: number | undefined
    readonly next?: string | null | undefined
    readonly returned?: number | undefined
    readonly recordsAt?: string | undefined
  }
}

/**
 * A page of a list answer: its records (mapped, e.g. to carry the slice's context), the count,
 * the next link and `returned` as the service said them, for the pagers to trust; the page and
 * its charge are the answer's operation. (`pageOf(response, operation, map)`, naming the
 * charge's operation, is the form of earlier versions, kept for pipeline modules written for them.)
 */
export function pageOf<R = unknown>(response: ListResponse, map?: (record: unknown) => R): Fetched<R>
export function pageOf<R = unknown>(response: ListResponse, operation: string, map?: (record: unknown) => R): Fetched<R>
export function pageOf<R = unknown>(response: ListResponse, a?: string | ((record: unknown) => R), b?: (record: unknown) => R): Fetched<R> {
  const named = typeof a === "string" ? a : undefined
  const map = typeof a === "function" ? a : b
  const { records, total, next, returned, recordsAt } = response.page
  return {
    ...fetched(response, operationOf(response, named), map ? records.map(map) : (records as ReadonlyArray<R>), { total }),
    // the page says which operation answered (its shape), whatever the pipeline names its charges
    // (an answer a module built by hand may lack it: the named one then stands)
    ...(response.operation !== undefined ? { operation: response.operation } : {}),
    ...(next !== undefined ? { next } : {}),
    ...(returned !== undefined ? { returned } : {}),
    ...(!map && recordsAt !== undefined && response.raw !== "" ? { recordsAt } : {})
  }
}
