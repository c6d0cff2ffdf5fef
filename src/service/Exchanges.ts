/**
 * What each HTTP exchange of the clients looked like, for whoever asks (the `probe` command): the
 * request's operation, method and URL (credentials are never in URLs), the answer's status, its
 * headers (lower-case) and the body's size. Provided in a caller's context, it sees the
 * exchanges that caller's effects make; without it nothing is kept.
 */
import { Context, Effect, Option } from "effect"

export interface Exchange {
  readonly operation: string
  readonly method: string
  readonly url: string
  readonly status: number
  /** The answer's headers as received (lower-case names); never the request's. */
  readonly headers: Readonly<Record<string, string>>
  /** The body's text as decoded (its content coding undone). */
  readonly text: string
  /** The page size the request asked for (`limit` in its query, body or criteria), if it named one. */
  readonly asked?: number | undefined
}

/** The page size a request names: `limit` in its query, its body, or its body's `criteria`. */
export const askedLimit = (url: string, body: unknown): number | undefined => {
  const q = new URL(url).searchParams.get("limit")
  if (q !== null && /^\d+$/.test(q)) return Number(q)
  const b = body as { limit?: unknown; criteria?: { limit?: unknown } } | null | undefined
  const v = typeof b?.limit === "number" ? b.limit : b?.criteria?.limit
  return typeof v === "number" ? v : undefined
}

export class Exchanges extends Context.Tag("service/Exchanges")<Exchanges, { readonly record: (e: Exchange) => void }>() {}

/** Hands an exchange to the observer in the context, if any. */
export const recordExchange = (e: Exchange) =>
  Effect.flatMap(Effect.serviceOption(Exchanges), (o) => Effect.sync(() => Option.isSome(o) && o.value.record(e)))
