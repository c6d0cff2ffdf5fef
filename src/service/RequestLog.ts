/**
 * One debug log line per HTTP attempt of the host clients (`estate-etl ... --log-level debug`):
 * method, path and query, status (or what failed), units charged, duration, operation. Never
 * headers or bodies, so the API key (a header), the bearer tokens and the login password (its
 * body) cannot reach it; a query parameter named like a credential and anything shaped like a
 * JWT in the URL are replaced by `<redacted>` besides.
 */
import { Effect, LogLevel } from "effect"
import { isCredentialKey, REDACTED } from "../config/Credentials.js"

const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g

/** The path and query of `url` as they may be logged. */
export const pathForLog = (url: string): string => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return "(not a URL)"
  }
  for (const name of [...new Set(u.searchParams.keys())]) if (isCredentialKey(name)) u.searchParams.set(name, REDACTED)
  // `URLSearchParams` encodes `<redacted>`; keep it readable
  return `${u.pathname}${u.search}`.replace(/%3Credacted%3E/g, REDACTED).replace(JWT, REDACTED)
}

export interface Exchange {
  readonly operation: string
  readonly method: string
  readonly url: string
  readonly ms: number
  /** The answer's status, or what failed (`Network`, `Timeout`, ...). */
  readonly outcome: { readonly status: number; readonly units: number } | { readonly failure: string }
}

/** Logs one attempt at Debug (a no-op below that level): `GET /path?query status=200 units=1 ms=35 operation=...`. */
export const logExchange = (e: Exchange): Effect.Effect<void> =>
  Effect.whenLogLevel(
    Effect.suspend(() =>
      Effect.logDebug(`${e.method} ${pathForLog(e.url)}`).pipe(
        Effect.annotateLogs({
          ...("status" in e.outcome ? { status: e.outcome.status, units: e.outcome.units } : { failed: e.outcome.failure }),
          ms: e.ms,
          operation: e.operation
        })
      )
    ),
    LogLevel.Debug
  ).pipe(Effect.asVoid)
