/**
 * Options of a sandbox, as an Effect Schema: every field optional on input, with the default
 * documented next to it. `Sandbox.start(options)` decodes them once; a bad value fails before
 * anything binds.
 */
import { Schema } from "effect"
import { Dialect } from "../config/Dialect.js"
import { WELL_KNOWN_CREDENTIALS, SANDBOX_USER } from "./Credentials.js"
import { FaultSettings, noFaults } from "./Faults.js"
import { RateLimitPolicy } from "./RateLimits.js"

const Port = Schema.Int.pipe(Schema.between(0, 65535))

/** A platform credential (API key or OAuth-style token) and its account state. */
export const CredentialConfig = Schema.Struct({
  /** Identifier reported in stats (never the key itself). */
  id: Schema.String,
  key: Schema.String,
  kind: Schema.optionalWith(Schema.Literal("api_key", "oauth"), { default: () => "api_key" as const }),
  balance: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { default: () => 1_000_000 }),
  status: Schema.optionalWith(Schema.Literal("active", "revoked", "suspended", "not_entitled", "expired"), {
    default: () => "active" as const
  }),
  scopes: Schema.optionalWith(Schema.Array(Schema.String), { default: () => ["ai:read"] })
})
export type CredentialConfig = typeof CredentialConfig.Type

export const UserConfig = Schema.Struct({ email: Schema.String, password: Schema.String })

const perHost = <A, I>(schema: Schema.Schema<A, I>, platform: () => A, token: () => A) =>
  Schema.optionalWith(
    Schema.Struct({
      platform: Schema.optionalWith(schema, { default: platform }),
      token: Schema.optionalWith(schema, { default: token })
    }),
    { default: () => ({ platform: platform(), token: token() }) }
  )

export const SandboxConfig = Schema.Struct({
  /** Seed of the world and of fault injection. Default 42. */
  seed: Schema.optionalWith(Schema.Int, { default: () => 42 }),
  /** World sizes, passed to `makeWorld` (its defaults apply to absent fields). */
  world: Schema.optionalWith(
    Schema.Struct({
      properties: Schema.optional(Schema.Int.pipe(Schema.positive())),
      plots: Schema.optional(Schema.Int.pipe(Schema.positive())),
      premises: Schema.optional(Schema.Int.pipe(Schema.positive())),
      agencies: Schema.optional(Schema.Int.pipe(Schema.positive())),
      alertsPerDay: Schema.optional(Schema.Int.pipe(Schema.positive())),
      /** First day of events, `YYYY-MM-DD`. */
      startDate: Schema.optional(Schema.String)
    }),
    { default: () => ({}) }
  ),
  /** Interface to bind. Default 127.0.0.1. */
  host: Schema.optionalWith(Schema.String, { default: () => "127.0.0.1" }),
  /** Port of the platform host; 0 (default) picks an ephemeral port. */
  platformPort: Schema.optionalWith(Port, { default: () => 0 }),
  /** Port of the token host; 0 (default) picks an ephemeral port. */
  apiPort: Schema.optionalWith(Port, { default: () => 0 }),
  /** Start of the sandbox clock (ISO date-time). Default 2026-06-01T00:00:00Z (the world's default now). */
  startTime: Schema.optionalWith(Schema.String, { default: () => "2026-06-01T00:00:00Z" }),
  /**
   * "fixed" (default): the clock moves only when advanced, so data and token expiry are
   * deterministic; "wall": it runs with real time from `startTime`. Rate-limit windows always
   * follow real time (plus every `advanceClock`).
   */
  clock: Schema.optionalWith(Schema.Literal("wall", "fixed"), { default: () => "fixed" as const }),
  /** Rate limits per host (quota 0 disables). Defaults: platform 20/1 s, token 50/1 s (docs/ASSUMPTIONS.md). */
  rateLimit: perHost(
    RateLimitPolicy,
    () => ({ quota: 20, windowSeconds: 1 }),
    () => ({ quota: 50, windowSeconds: 1 })
  ),
  /** Fault settings per host. Default: none. */
  faults: perHost(FaultSettings, noFaults, noFaults),
  /** Access-token lifetime on the token host, seconds. Default 900. */
  accessTokenTtlSeconds: Schema.optionalWith(Schema.Number.pipe(Schema.positive()), { default: () => 900 }),
  /** Refresh-token lifetime on the token host, seconds. Default 86400. */
  refreshTokenTtlSeconds: Schema.optionalWith(Schema.Number.pipe(Schema.positive()), { default: () => 86_400 }),
  /** Users of the token host. Default: `SANDBOX_USER`. */
  users: Schema.optionalWith(Schema.Array(UserConfig), { default: () => [SANDBOX_USER] }),
  /** Platform credentials and balances. Default: every well-known credential of `Credentials.ts`. */
  credentials: Schema.optionalWith(Schema.Array(CredentialConfig), { default: () => WELL_KNOWN_CREDENTIALS }),
  /**
   * Plot search calls allowed per credential and sandbox day before 429 `quota_reached`.
   * Assumed: 0 (default) disables the quota; the spec does not show the number.
   */
  plotDailyQuota: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 0 }),
  /**
   * Legacy alert feeds every user of the token host starts with (a demo account's saved feeds).
   * Default none. `filter` as in the feed create body.
   */
  legacyFeeds: Schema.optionalWith(
    Schema.Array(Schema.Struct({ name: Schema.String, filter: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })),
    { default: () => [] }
  ),
  /** How often the sandbox delivers pending webhook events, ms; 0 turns the timer off. Default 1000. */
  webhookPollMs: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 1000 }),
  /** Premises search page depth (`offset + limit`). Assumed: 1000 (docs/ASSUMPTIONS.md). */
  premisesPageDepth: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1_000 }),
  /**
   * The dialect both hosts speak (Dialect.ts): a preset name of `DIALECTS` or flags.
   * Default `"default"` (no flag: the sandbox's own reading of the spec).
   */
  dialect: Schema.optionalWith(Dialect, { default: () => "default" as const })
})
export type SandboxConfig = typeof SandboxConfig.Type
/** What callers pass: every field optional. */
export type SandboxOptions = typeof SandboxConfig.Encoded

export { DIALECT_NAMES, DIALECTS, Dialect, DialectFlags, type DialectName } from "../config/Dialect.js"
