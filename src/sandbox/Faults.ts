/**
 * Fault injection: per host, deterministic under the seed. Each request of a host draws one
 * uniform number from a PRNG over (seed, host, the host's request counter); the number picks at
 * most one fault from the cumulative rates below. Same seed and same request order, same faults.
 */
import { Schema } from "effect"

export type HostName = "platform" | "token"

const Rate = Schema.Number.pipe(Schema.between(0, 1))
const rate = Schema.optionalWith(Rate, { default: () => 0 })

/** Fault settings of one host. Every rate is a share of requests (0..1), 0 by default. */
export const FaultSettings = Schema.Struct({
  /** 500, 502 or 503 (chosen by the PRNG). */
  serverErrorRate: rate,
  /** The socket is destroyed before any byte of the response. */
  resetRate: rate,
  /** The response is delayed by `slowMs` (beyond a client's timeout). */
  slowRate: rate,
  /** Delay of a slow response, ms (default 3000). */
  slowMs: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { default: () => 3_000 }),
  /**
   * Where a slow response waits: before the call is handled (default: a client that hangs up
   * meanwhile is charged nothing), or, when true, after it was answered and charged, before its
   * bytes leave: a client that hangs up meanwhile has paid for an answer it never reads.
   */
  slowAfterAnswer: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** A valid status line and headers, then the JSON body cut in the middle and the socket closed. */
  truncateRate: rate,
  /** Starts a burst of `burstLength` consecutive 429 answers carrying `Retry-After`. */
  burstRate: rate,
  burstLength: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 3 }),
  burstRetryAfterSeconds: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 1 }),
  /** Bumps `ctx.tokenEpoch` before the request runs: every access token issued so far answers 401. */
  tokenExpiryRate: rate,
  /**
   * Platform only: once this many units have been charged on the host (all keys, counted from when
   * the setting was applied), every billable call answers 402. Absent: off.
   */
  unitsRunOutAfter: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /** Share of drifted records (written to `ctx.driftRate`; hosts apply it via `world.drift`). */
  driftRate: rate
})
export type FaultSettings = typeof FaultSettings.Type
export type FaultSettingsInput = typeof FaultSettings.Encoded

export const noFaults = (): FaultSettings => Schema.decodeSync(FaultSettings)({})

/** The fault picked for one request. */
export type Fault =
  | { readonly _tag: "None" }
  | { readonly _tag: "ServerError"; readonly status: 500 | 502 | 503 }
  | { readonly _tag: "Reset" }
  | { readonly _tag: "Slow"; readonly ms: number; readonly afterAnswer: boolean }
  | { readonly _tag: "Truncate" }
  | { readonly _tag: "Burst"; readonly retryAfterSeconds: number }
  | { readonly _tag: "TokenExpiry" }

const NONE: Fault = { _tag: "None" }

/** 32-bit mix (splitmix-style) of seed, host and counter; returns [0, 1). */
export const uniform = (seed: number, salt: number, counter: number): number => {
  let h = (seed ^ Math.imul(salt + 0x9e3779b9, 0x85ebca6b) ^ Math.imul(counter + 1, 0xc2b2ae35)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d)
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b)
  h ^= h >>> 16
  return (h >>> 0) / 4294967296
}

const hostSalt = (host: HostName) => (host === "platform" ? 1 : 2)

/** Mutable per-host fault state: the settings, the request counter, an ongoing burst. */
export interface FaultState {
  settings: FaultSettings
  counter: number
  burstLeft: number
  /** Units charged on the host when `unitsRunOutAfter` was applied. */
  unitsAtApply: number
}

export const makeFaultState = (settings: FaultSettings = noFaults()): FaultState => ({
  settings,
  counter: 0,
  burstLeft: 0,
  unitsAtApply: 0
})

/** Picks the fault of the host's next request and advances its counter. */
export const nextFault = (seed: number, host: HostName, state: FaultState): Fault => {
  const n = state.counter++
  const s = state.settings
  if (state.burstLeft > 0) {
    state.burstLeft--
    return { _tag: "Burst", retryAfterSeconds: s.burstRetryAfterSeconds }
  }
  const total = s.serverErrorRate + s.resetRate + s.slowRate + s.truncateRate + s.burstRate + s.tokenExpiryRate
  if (total <= 0) return NONE
  let u = uniform(seed, hostSalt(host), n)
  if ((u -= s.serverErrorRate) < 0) {
    const pick = Math.floor(uniform(seed, hostSalt(host) + 10, n) * 3)
    return { _tag: "ServerError", status: pick === 0 ? 500 : pick === 1 ? 502 : 503 }
  }
  if ((u -= s.resetRate) < 0) return { _tag: "Reset" }
  if ((u -= s.slowRate) < 0) return { _tag: "Slow", ms: s.slowMs, afterAnswer: s.slowAfterAnswer }
  if ((u -= s.truncateRate) < 0) return { _tag: "Truncate" }
  if ((u -= s.burstRate) < 0) {
    state.burstLeft = s.burstLength - 1
    return { _tag: "Burst", retryAfterSeconds: s.burstRetryAfterSeconds }
  }
  if ((u -= s.tokenExpiryRate) < 0) return { _tag: "TokenExpiry" }
  return NONE
}
