/**
 * Contracts shared by the sandbox's parts: the world (deterministic data), the clock,
 * the per-host statistics and the settings each host reads. The server (`Sandbox.ts`)
 * builds one `SandboxContext` and hands it to both host routers.
 */
import type { DialectRef } from "./Dialect.js"
import type { World } from "./world/World.js"

/** The sandbox's notion of "now": a fixed, settable instant so data and expiries are deterministic. */
export interface SandboxClock {
  /** Milliseconds since epoch, as the sandbox sees it. */
  readonly now: () => number
  /** Moves the sandbox's time forward (tests, incremental feeds). */
  readonly advance: (ms: number) => void
  readonly set: (epochMs: number) => void
}

export const makeSandboxClock = (startMs: number, follow: "fixed" | "wall" = "fixed"): SandboxClock => {
  let offset = 0
  let fixed = startMs
  const wallStart = Date.now()
  return {
    now: () => (follow === "wall" ? startMs + (Date.now() - wallStart) + offset : fixed + offset),
    advance: (ms) => {
      offset += ms
    },
    set: (epochMs) => {
      offset = 0
      fixed = epochMs
    }
  }
}

/** Counters the introspection API reports. Keys of `requests` are `"METHOD /route/pattern"`. */
export interface SandboxStats {
  readonly requests: Map<string, number>
  readonly statuses: Map<number, number>
  /** Units charged per API key id (not the key itself). */
  readonly unitsSpent: Map<string, number>
  readonly logins: { count: number }
  readonly refreshes: { count: number }
}

export const makeSandboxStats = (): SandboxStats => ({
  requests: new Map(),
  statuses: new Map(),
  unitsSpent: new Map(),
  logins: { count: 0 },
  refreshes: { count: 0 }
})

export const bump = <K>(m: Map<K, number>, k: K, by = 1) => m.set(k, (m.get(k) ?? 0) + by)

/** Token host settings. */
export interface TokenHostSettings {
  /** Users allowed to log in. */
  readonly users: ReadonlyArray<{ readonly email: string; readonly password: string }>
  /** Access-token lifetime in seconds (Assumed: 900 by default; the spec does not show it). */
  readonly accessTokenTtlSeconds: number
  /** Refresh-token lifetime in seconds (Assumed: 86400 by default). */
  readonly refreshTokenTtlSeconds: number
}

/** What each host router receives. */
export interface SandboxContext {
  readonly seed: number
  readonly world: World
  readonly clock: SandboxClock
  readonly stats: SandboxStats
  /** Base URLs as clients reach them (used to build `next`/`previous` links and problem `type`s). */
  readonly platformUrl: () => string
  readonly apiUrl: () => string
  readonly token: TokenHostSettings
  /**
   * Revision of access tokens: bumping it makes every access token issued before answer 401
   * (fault injection and tests of single-flight refresh).
   */
  readonly tokenEpoch: { value: number }
  /**
   * Share (0..1) of drifted records: a record whose fields drift from the spec (a number sent as
   * a string, a renamed field). Decided per record by `world.drift(record, kind, rate)` (or `world.isDrifted(kind, id, rate)`); hosts apply it.
   */
  readonly driftRate: { platform: number; token: number }
  /** Legacy alert feeds each user starts with (`SandboxConfig.legacyFeeds`). */
  readonly initialFeeds?: ReadonlyArray<{ readonly name: string; readonly filter: Readonly<Record<string, unknown>> }>
  /**
   * The active dialect of both hosts (Dialect.ts); read it with `activeDialect(ctx)`. Absent:
   * the default dialect.
   */
  readonly dialect?: DialectRef
}
