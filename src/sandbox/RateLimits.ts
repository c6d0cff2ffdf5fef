/**
 * Per host, per credential fixed-window rate limits, reported with the IETF draft headers
 * `RateLimit: "default";r=<remaining>;t=<seconds to reset>` and
 * `RateLimit-Policy: "default";q=<quota>;w=<window seconds>`.
 * Time is wall time plus the offset `control.advanceClock` adds, so tests move windows without sleeping.
 */
import { Schema } from "effect"

/**
 * Assumed (docs/ASSUMPTIONS.md): platform 20 requests/s, token host 50 requests/s.
 * `quota: 0` disables limiting (no headers are sent then).
 */
export const RateLimitPolicy = Schema.Struct({
  quota: Schema.Int.pipe(Schema.nonNegative()),
  windowSeconds: Schema.Number.pipe(Schema.positive())
})
export type RateLimitPolicy = typeof RateLimitPolicy.Type

export interface RateDecision {
  readonly allowed: boolean
  /** Header values; undefined when the policy is disabled. */
  readonly headers: { readonly RateLimit: string; readonly "RateLimit-Policy": string } | undefined
  /** Seconds until the window resets (for `Retry-After`). */
  readonly resetSeconds: number
}

const ALLOW_NO_HEADERS: RateDecision = { allowed: true, headers: undefined, resetSeconds: 0 }

/**
 * What a host's limit saw since its policy was last set (introspection for benchmarks; the
 * enforcement does not read it): requests counted against the policy, the first and last of them
 * (ms), how many were refused, and the most any one window let through.
 */
export interface RateUse {
  readonly allowed: number
  readonly limited: number
  readonly firstMs: number | undefined
  readonly lastMs: number | undefined
  readonly maxPerWindow: number
}

/** Fixed-window counters of one host. */
export class RateLimiterState {
  private windows = new Map<string, { start: number; used: number }>()
  private seen = {
    allowed: 0,
    limited: 0,
    firstMs: undefined as number | undefined,
    lastMs: undefined as number | undefined,
    maxPerWindow: 0
  }
  constructor(public policy: RateLimitPolicy) {}

  setPolicy(policy: RateLimitPolicy) {
    this.policy = policy
    this.windows.clear()
    this.seen = { allowed: 0, limited: 0, firstMs: undefined, lastMs: undefined, maxPerWindow: 0 }
  }

  reset() {
    this.windows.clear()
  }

  use(): RateUse {
    return { ...this.seen }
  }

  /** Counts one request of `partition` at `nowMs`. */
  take(partition: string, nowMs: number): RateDecision {
    const { quota, windowSeconds } = this.policy
    if (quota <= 0) return ALLOW_NO_HEADERS
    const wMs = windowSeconds * 1000
    const start = Math.floor(nowMs / wMs) * wMs
    let w = this.windows.get(partition)
    if (w === undefined || w.start !== start) {
      w = { start, used: 0 }
      this.windows.set(partition, w)
    }
    const allowed = w.used < quota
    if (allowed) w.used++
    const seen = this.seen
    if (allowed) seen.allowed++
    else seen.limited++
    seen.firstMs ??= nowMs
    seen.lastMs = nowMs
    seen.maxPerWindow = Math.max(seen.maxPerWindow, w.used)
    const resetSeconds = Math.max(1, Math.ceil((start + wMs - nowMs) / 1000))
    return {
      allowed,
      resetSeconds,
      headers: {
        RateLimit: `"default";r=${quota - w.used};t=${resetSeconds}`,
        "RateLimit-Policy": `"default";q=${quota};w=${windowSeconds}`
      }
    }
  }
}
