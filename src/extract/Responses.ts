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

/** A list answer read through its response shape (see `service/ResponseShape.ts`). */
interface ListResponse extends ClientResponse {
  /** The operation whose shape read it (the client's name for the call). */
  readonly operation?: string | undefined
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
 * the next link and `returned` as the service said them, for the pagers to trust.
 */
export const pageOf = <R = unknown>(response: ListResponse, operation: string, map?: (record: unknown) => R): Fetched<R> => {
  const { records, total, next, returned, recordsAt } = response.page
  return {
    ...fetchedOf(response, operation, map ? records.map(map) : (records as ReadonlyArray<R>), { total }),
    // the page says which operation answered (its shape), whatever the pipeline names its charges
    ...(response.operation !== undefined ? { operation: response.operation } : {}),
    ...(next !== undefined ? { next } : {}),
    ...(returned !== undefined ? { returned } : {}),
    ...(!map && recordsAt !== undefined && response.raw !== "" ? { recordsAt } : {})
  }
}
