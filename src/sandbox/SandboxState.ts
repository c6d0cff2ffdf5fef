/**
 * The server's own mutable state beside `SandboxContext`: accounts and balances, fault and
 * rate-limit state per host, the plot quota counters and the request-id sequence. Both the
 * host middleware and `SandboxControl` work on one `SandboxState`.
 */
import { Accounts } from "./Accounts.js"
import { type FaultState, type HostName, makeFaultState, uniform } from "./Faults.js"
import { RateLimiterState } from "./RateLimits.js"
import type { SandboxConfig } from "./SandboxConfig.js"
import type { SandboxContext } from "./SandboxContext.js"
import { randomBytes } from "node:crypto"

export interface SandboxState {
  readonly config: SandboxConfig
  readonly ctx: SandboxContext
  readonly accounts: Accounts
  readonly faults: Record<HostName, FaultState>
  readonly rateLimits: Record<HostName, RateLimiterState>
  /** Plot search calls per `<credential id>|<sandbox day>`. */
  readonly plotCalls: Map<string, number>
  /** Plot daily quota (0 = off); settable through the control. */
  plotDailyQuota: number
  requestSeq: number
  /** Random per start: the first 8 hex digits of every request id. */
  readonly requestIdPrefix: string
  /** Added to wall time for rate-limit windows (moved by `advanceClock`). */
  rateOffsetMs: number
}

export const makeSandboxState = (config: SandboxConfig, ctx: SandboxContext): SandboxState => {
  const state: SandboxState = {
    config,
    ctx,
    accounts: new Accounts(config.credentials, ctx.stats),
    faults: { platform: makeFaultState(config.faults.platform), token: makeFaultState(config.faults.token) },
    rateLimits: {
      platform: new RateLimiterState(config.rateLimit.platform),
      token: new RateLimiterState(config.rateLimit.token)
    },
    plotCalls: new Map(),
    plotDailyQuota: config.plotDailyQuota,
    requestSeq: 0,
    requestIdPrefix: randomBytes(4).toString("hex"),
    rateOffsetMs: 0
  }
  ctx.driftRate.platform = config.faults.platform.driftRate
  ctx.driftRate.token = config.faults.token.driftRate
  return state
}

const hex8 = (u: number) =>
  Math.floor(u * 4294967296)
    .toString(16)
    .padStart(8, "0")

/**
 * `req_` plus 24 hex digits: 8 random per sandbox start (`requestIdPrefix`), so request ids never
 * repeat across starts (a ledger keyed by request id would otherwise drop a second night's
 * charges), then 16 deterministic under the seed and the request order.
 */
export const nextRequestId = (state: SandboxState): string => {
  const n = state.requestSeq++
  return `req_${state.requestIdPrefix}${hex8(uniform(state.ctx.seed, 7, n))}${hex8(uniform(state.ctx.seed, 8, n))}`
}
