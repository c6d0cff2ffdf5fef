/**
 * Settings of both host clients and their policies (timeouts, retries, pacing, unit caps).
 * Read from the environment with `ServiceSettings.layerConfig` (variable names below), or
 * built directly with `ServiceSettings.layer(ServiceSettings.make({...}))` (the CLI does that
 * from its config files). Secrets are `Redacted` and never leave as text.
 */
import { Config, ConfigError, Context, Either, Layer, Option, Redacted } from "effect"
import { DEFAULT_PAYMENT_LINK_MEMBER } from "./ErrorMapping.js"
import type { ShapeOverride } from "./ResponseShape.js"

/**
 * Declared unit cost per platform operation.
 * Assumed (docs/ASSUMPTIONS.md, "Unit costs"): only premises search's 40 is from the spec.
 */
export const DEFAULT_UNIT_COSTS: Readonly<Record<string, number>> = {
  ai_search_premises: 40,
  plot_search: 1,
  sourcing_search: 1,
  sourcing_next: 1,
  sourcing_describe: 2,
  sourcing_property: 1,
  sourcing_resolve: 1,
  seller_leads: 1,
  seller_lead: 1
}

export interface ServiceSettingsShape {
  /** Base URL of the platform host. Env `SVC_PLATFORM_URL`; no default. */
  readonly platformUrl: string
  /** Base URL of the token host. Env `SVC_API_URL`; no default. */
  readonly apiUrl: string
  /** Platform API key, sent only as `Authorization: Bearer`. Env `SVC_API_KEY`; default none (platform calls fail with `AuthenticationFailed`). */
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  /** Token-host login e-mail. Env `SVC_EMAIL`; default none. */
  readonly email: Option.Option<string>
  /** Token-host password. Env `SVC_PASSWORD`; default none. */
  readonly password: Option.Option<Redacted.Redacted<string>>
  /** Per-attempt timeout covering the request and its whole body, ms. Env `SVC_REQUEST_TIMEOUT_MS`; default 30000. */
  readonly requestTimeoutMs: number
  /** Retries of one request at most (after the first attempt). Env `SVC_MAX_RETRIES`; default 5. */
  readonly maxRetries: number
  /** First backoff delay, ms; doubles each retry, with full jitter. Env `SVC_RETRY_BASE_MS`; default 500. */
  readonly retryBaseMs: number
  /** Cap of one backoff delay, ms (also caps `Retry-After`). Env `SVC_RETRY_MAX_MS`; default 60000. */
  readonly retryMaxMs: number
  /** Least delay between two attempts, so `Retry-After: 0` is no busy loop, ms. Env `SVC_RETRY_MIN_MS`; default 200. */
  readonly retryMinMs: number
  /** Run-wide retries allowed per request sent. Env `SVC_RETRY_BUDGET_RATIO`; default 0.1. */
  readonly retryBudgetRatio: number
  /** Run-wide retries always allowed. Env `SVC_RETRY_BUDGET_FLOOR`; default 10. */
  readonly retryBudgetFloor: number
  /**
   * Platform rate before any `RateLimit-Policy` is seen, requests/s. Env `SVC_PLATFORM_RATE`; default 20.
   * Assumed (docs/ASSUMPTIONS.md): the platform allows 20 requests/s.
   */
  readonly platformRatePerSecond: number
  /** Token-host rate before any policy is seen, requests/s. Env `SVC_API_RATE`; default 50 (Assumed, as above). */
  readonly apiRatePerSecond: number
  /** Share (0..1] of a policy's rate the pacer aims at, leaving room for clock and network jitter. Env `SVC_PACING_HEADROOM`; default 0.97 (Assumed: the quota is this client's alone; lower it when other jobs share the key). */
  readonly pacingHeadroom: number
  /** Run cap of units; a call that would cross it is refused before sending. Env `SVC_MAX_UNITS`; default none. */
  readonly maxUnits: Option.Option<number>
  /** Daily cap of units across runs (with the warehouse ledger's `spentToday`). Env `SVC_DAILY_UNITS`; default none. */
  readonly dailyUnits: Option.Option<number>
  /** Declared cost per operation, merged over `DEFAULT_UNIT_COSTS`. Env `SVC_UNIT_COSTS` as `op=n,op=n`; default `DEFAULT_UNIT_COSTS`. */
  readonly unitCosts: Readonly<Record<string, number>>
  /** Response shapes by operation, over each operation's declared default (see `Shapes.ts`). Default none. */
  readonly shapes: Readonly<Record<string, ShapeOverride>>
  /** Member of the 402 problem that holds the payment link. Default `payment_url` (Assumed, see `ErrorMapping.ts`). */
  readonly paymentLinkMember: string
  /**
   * Send the API key in this request header instead of `Authorization: Bearer` (the spec: premises
   * search "also accepts an API key in a request header", name not shown). Default none: Bearer.
   */
  readonly apiKeyHeader: Option.Option<string>
}

export type ServiceSettingsInput = Pick<ServiceSettingsShape, "platformUrl" | "apiUrl"> & {
  readonly apiKey?: Redacted.Redacted<string> | string
  readonly email?: string
  readonly password?: Redacted.Redacted<string> | string
} & Partial<Omit<ServiceSettingsShape, "platformUrl" | "apiUrl" | "apiKey" | "email" | "password" | "maxUnits" | "dailyUnits" | "apiKeyHeader">> & {
  readonly maxUnits?: number
  readonly dailyUnits?: number
  readonly apiKeyHeader?: string | undefined
}

export const DEFAULTS = {
  requestTimeoutMs: 30_000,
  maxRetries: 5,
  retryBaseMs: 500,
  retryMaxMs: 60_000,
  retryMinMs: 200,
  retryBudgetRatio: 0.1,
  retryBudgetFloor: 10,
  platformRatePerSecond: 20,
  apiRatePerSecond: 50,
  pacingHeadroom: 0.97,
  shapes: {},
  paymentLinkMember: DEFAULT_PAYMENT_LINK_MEMBER
} as const

const redact = (s: Redacted.Redacted<string> | string | undefined) =>
  s === undefined ? Option.none() : Option.some(typeof s === "string" ? Redacted.make(s) : s)

/** Parses `op=n,op=n` (blank allowed). */
export const parseUnitCosts = (text: string): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const part of text.split(",")) {
    const [k, v] = part.split("=").map((x) => x.trim())
    if (!k) continue
    const n = Number(v)
    if (!Number.isFinite(n) || n < 0) throw new Error(`unit cost of ${k} must be a number >= 0`)
    out[k] = n
  }
  return out
}

export class ServiceSettings extends Context.Tag("service/ServiceSettings")<ServiceSettings, ServiceSettingsShape>() {
  /** Settings from values, defaults filled in. */
  static make = (input: ServiceSettingsInput): ServiceSettingsShape => ({
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
    platformUrl: input.platformUrl.replace(/\/+$/, ""),
    apiUrl: input.apiUrl.replace(/\/+$/, ""),
    apiKey: redact(input.apiKey),
    email: Option.fromNullable(input.email),
    password: redact(input.password),
    maxUnits: Option.fromNullable(input.maxUnits),
    dailyUnits: Option.fromNullable(input.dailyUnits),
    unitCosts: { ...DEFAULT_UNIT_COSTS, ...input.unitCosts },
    apiKeyHeader: Option.fromNullable(input.apiKeyHeader).pipe(Option.filter((h) => h.length > 0))
  })

  static layer = (settings: ServiceSettingsShape | ServiceSettingsInput) =>
    Layer.succeed(ServiceSettings, "requestTimeoutMs" in settings && Option.isOption(settings.apiKey)
      ? (settings as ServiceSettingsShape)
      : ServiceSettings.make(settings as ServiceSettingsInput))

  /** The environment's settings (variable names on each field). */
  static config: Config.Config<ServiceSettingsShape> = Config.all({
    platformUrl: Config.string("SVC_PLATFORM_URL").pipe(Config.map((u) => u.replace(/\/+$/, ""))),
    apiUrl: Config.string("SVC_API_URL").pipe(Config.map((u) => u.replace(/\/+$/, ""))),
    apiKey: Config.option(Config.redacted("SVC_API_KEY")),
    email: Config.option(Config.string("SVC_EMAIL")),
    password: Config.option(Config.redacted("SVC_PASSWORD")),
    requestTimeoutMs: Config.integer("SVC_REQUEST_TIMEOUT_MS").pipe(Config.withDefault(DEFAULTS.requestTimeoutMs)),
    maxRetries: Config.integer("SVC_MAX_RETRIES").pipe(Config.withDefault(DEFAULTS.maxRetries)),
    retryBaseMs: Config.integer("SVC_RETRY_BASE_MS").pipe(Config.withDefault(DEFAULTS.retryBaseMs)),
    retryMaxMs: Config.integer("SVC_RETRY_MAX_MS").pipe(Config.withDefault(DEFAULTS.retryMaxMs)),
    retryMinMs: Config.integer("SVC_RETRY_MIN_MS").pipe(Config.withDefault(DEFAULTS.retryMinMs)),
    retryBudgetRatio: Config.number("SVC_RETRY_BUDGET_RATIO").pipe(Config.withDefault(DEFAULTS.retryBudgetRatio)),
    retryBudgetFloor: Config.integer("SVC_RETRY_BUDGET_FLOOR").pipe(Config.withDefault(DEFAULTS.retryBudgetFloor)),
    platformRatePerSecond: Config.number("SVC_PLATFORM_RATE").pipe(Config.withDefault(DEFAULTS.platformRatePerSecond)),
    apiRatePerSecond: Config.number("SVC_API_RATE").pipe(Config.withDefault(DEFAULTS.apiRatePerSecond)),
    pacingHeadroom: Config.number("SVC_PACING_HEADROOM").pipe(
      Config.validate({ message: "must be in (0, 1]", validation: (n) => n > 0 && n <= 1 }),
      Config.withDefault(DEFAULTS.pacingHeadroom)
    ),
    shapes: Config.succeed({}),
    paymentLinkMember: Config.string("SVC_PAYMENT_LINK_MEMBER").pipe(Config.withDefault(DEFAULT_PAYMENT_LINK_MEMBER)),
    apiKeyHeader: Config.option(Config.string("SVC_API_KEY_HEADER")),
    maxUnits: Config.option(Config.integer("SVC_MAX_UNITS")),
    dailyUnits: Config.option(Config.integer("SVC_DAILY_UNITS")),
    unitCosts: Config.string("SVC_UNIT_COSTS").pipe(
      Config.withDefault(""),
      Config.mapOrFail((text) => {
        try {
          return Either.right({ ...DEFAULT_UNIT_COSTS, ...parseUnitCosts(text) })
        } catch (e) {
          return Either.left(ConfigError.InvalidData(["SVC_UNIT_COSTS"], (e as Error).message))
        }
      })
    )
  })

  static layerConfig = Layer.effect(ServiceSettings, ServiceSettings.config)
}
