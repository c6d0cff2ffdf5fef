/**
 * In-process control and introspection of a running sandbox (tests, benchmarks, demos).
 * The same operations are served over HTTP under `/__sandbox/` on the platform host.
 */
import { Schema } from "effect"
import type { Dialect, DialectFlags, DialectName } from "../config/Dialect.js"
import { activeDialect, decodeDialect, resolveDialect } from "./Dialect.js"
import { FaultSettings, type FaultSettingsInput, type HostName } from "./Faults.js"
import { forgetPaging, type Removal, removals } from "./Paging.js"
import type { RateLimitPolicy, RateUse } from "./RateLimits.js"
import type { SandboxState } from "./SandboxState.js"

/** Plain-JSON view of `SandboxStats`. */
export interface SandboxStatsSnapshot {
  /** Units charged per credential id. */
  readonly unitsSpent: Record<string, number>
  /** Requests per `"METHOD /route/pattern"` (both hosts; `/__sandbox/` excluded). */
  readonly requests: Record<string, number>
  /** Responses per HTTP status (0 = connection reset). */
  readonly statuses: Record<string, number>
  readonly logins: number
  readonly refreshes: number
  readonly tokenEpoch: number
  /** The sandbox clock, ISO date-time. */
  readonly now: string
  /** Per host, what its rate limit counted since its policy was last set (nothing while limits are off). */
  readonly rateUse: Record<HostName, RateUse>
}

export interface SandboxControl {
  readonly stats: () => SandboxStatsSnapshot
  /** Balance of a credential (by id or key); undefined when unknown. */
  readonly getBalance: (idOrKey: string) => number | undefined
  /** Sets a credential's balance; false when unknown. */
  readonly setBalance: (idOrKey: string, units: number) => boolean
  /** Replaces a host's fault settings (absent fields: no fault). Throws on invalid settings. */
  readonly setFaults: (host: HostName, settings: FaultSettingsInput) => void
  readonly setRateLimit: (host: HostName, policy: RateLimitPolicy) => void
  /** Plot search calls per credential and sandbox day; 0 turns the quota off. */
  readonly setPlotDailyQuota: (calls: number) => void
  /** Every access token issued so far answers 401 from now on (refresh tokens still work). */
  readonly expireAccessTokens: () => void
  /** Moves the sandbox clock and the rate-limit windows forward. */
  readonly advanceClock: (ms: number) => void
  readonly now: () => number
  /**
   * Makes both hosts speak a dialect: a preset name of `DIALECTS`, flags (absent flags: default
   * behaviour), or `{name, ...flags}` (the preset with flags over it). Throws on an unknown name
   * or flag. Returns the active flags.
   */
  readonly setDialect: (nameOrFlags: Dialect | (DialectFlags & { readonly name: DialectName })) => DialectFlags
  /** The active dialect's flags. */
  readonly dialect: () => DialectFlags
  /**
   * Dialect `removeAfterFirstPage`: the ids (as text: `prop_`/plot/`lead_` ids, alert ids in
   * decimal, as the world writes them) of every record that left a query, in the order removed,
   * each once. `removals()` says which query each left (a record leaves only the query it was
   * removed from). Setting a dialect or `reset` forgets them.
   */
  readonly removed: () => ReadonlyArray<string>
  readonly removals: () => ReadonlyArray<Removal>
  /** Back to the started state: stats, balances, faults, rate limits, quotas, clock, token epoch, dialect, paging memory. */
  readonly reset: () => void
}

const toRecord = <K>(m: Map<K, number>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [k, v] of m) out[String(k)] = v
  return out
}

export const makeSandboxControl = (state: SandboxState, startMs: number): SandboxControl => {
  const { ctx, config } = state
  const setFaults = (host: HostName, input: FaultSettingsInput) => {
    const settings = Schema.decodeUnknownSync(FaultSettings)(input)
    const f = state.faults[host]
    f.settings = settings
    f.burstLeft = 0
    f.unitsAtApply = state.accounts.totalCharged
    ctx.driftRate[host] = settings.driftRate
  }
  const setDialect = (flags: DialectFlags) => {
    if (ctx.dialect === undefined) throw new Error("This sandbox context carries no dialect")
    ctx.dialect.current = flags
    forgetPaging(ctx)
  }
  return {
    stats: () => ({
      unitsSpent: toRecord(ctx.stats.unitsSpent),
      requests: toRecord(ctx.stats.requests),
      statuses: toRecord(ctx.stats.statuses),
      logins: ctx.stats.logins.count,
      refreshes: ctx.stats.refreshes.count,
      tokenEpoch: ctx.tokenEpoch.value,
      now: new Date(ctx.clock.now()).toISOString(),
      rateUse: { platform: state.rateLimits.platform.use(), token: state.rateLimits.token.use() }
    }),
    getBalance: (id) => state.accounts.find(id)?.balance,
    setBalance: (id, units) => {
      const account = state.accounts.find(id)
      if (account === undefined) return false
      account.balance = units
      return true
    },
    setFaults,
    setRateLimit: (host, policy) => state.rateLimits[host].setPolicy(policy),
    setPlotDailyQuota: (calls) => {
      state.plotDailyQuota = calls
    },
    expireAccessTokens: () => {
      ctx.tokenEpoch.value++
    },
    advanceClock: (ms) => {
      ctx.clock.advance(ms)
      state.rateOffsetMs += ms
    },
    now: () => ctx.clock.now(),
    setDialect: (input) => {
      const flags = decodeDialect(input)
      setDialect(flags)
      return { ...flags }
    },
    dialect: () => ({ ...activeDialect(ctx) }),
    removed: () => [...new Set(removals(ctx).flatMap((r) => r.ids))],
    removals: () => removals(ctx).map((r) => ({ ...r })),
    reset: () => {
      ctx.stats.requests.clear()
      ctx.stats.statuses.clear()
      ctx.stats.unitsSpent.clear()
      ctx.stats.logins.count = 0
      ctx.stats.refreshes.count = 0
      state.accounts.reset()
      for (const host of ["platform", "token"] as const) {
        setFaults(host, config.faults[host])
        state.faults[host].counter = 0
        state.rateLimits[host].setPolicy(config.rateLimit[host])
      }
      state.plotCalls.clear()
      state.plotDailyQuota = config.plotDailyQuota
      state.requestSeq = 0
      ctx.clock.set(startMs)
      ctx.tokenEpoch.value = 0
      setDialect(resolveDialect(config.dialect))
    }
  }
}
