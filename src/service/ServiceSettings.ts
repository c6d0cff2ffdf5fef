/**
 * Settings of both host clients and their policies (timeouts, retries, pacing, unit caps), built
 * with `ServiceSettings.make({...})` from the settings file and the environment's credentials
 * (`wiring/Environment.ts`). Secrets are `Redacted` and never leave as text.
 */
import { Context, Layer, Option, Redacted } from "effect"
import { DEFAULT_UNIT_COSTS } from "../config/UnitCosts.js"
import { DEFAULT_PAYMENT_LINK_MEMBER } from "./ErrorMapping.js"
import type { ShapeOverride } from "./ResponseShape.js"

export interface ServiceSettingsShape {
  /** Base URL of the platform host. no default. */
  readonly platformUrl: string
  /** Base URL of the token host. no default. */
  readonly apiUrl: string
  /** Platform API key, sent only as `Authorization: Bearer`. default none (platform calls fail with `AuthenticationFailed`). */
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  /** Token-host login e-mail. default none. */
  readonly email: Option.Option<string>
  /** Token-host password. default none. */
  readonly password: Option.Option<Redacted.Redacted<string>>
  /** Per-attempt timeout covering the request and its whole body, ms. default 30000. */
  readonly timeoutMs: number
  /** Retries of one request at most (after the first attempt). default 5. */
  readonly maxRetries: number
  /** First backoff delay, ms; doubles each retry, with full jitter. default 500. */
  readonly retryBaseMs: number
  /** Cap of one backoff delay, ms (also caps `Retry-After`). default 60000. */
  readonly retryMaxMs: number
  /** Least delay between two attempts, so `Retry-After: 0` is no busy loop, ms. default 200. */
  readonly retryMinMs: number
  /** Run-wide retries allowed per request sent. default 0.1. */
  readonly retryRatio: number
  /** Run-wide retries always allowed. default 10. */
  readonly retryFloor: number
  /**
   * Retry a paid call that got no answer (a timeout, a connection cut after it was sent). Default
   * false: nothing shows whether such a call was charged (the spec says premises costs 40 units
   * "per successful call" and nothing of failed ones), so it is not sent again within the run; the
   * run pauses (exit 3) and a resume asks again. Set true once the balance shows unanswered calls
   * are not charged.
   */
  readonly retryUnansweredPaid: boolean
  /**
   * Platform rate before any `RateLimit-Policy` is seen, requests/s. default 20.
   * Assumed (docs/ASSUMPTIONS.md): the platform allows 20 requests/s.
   */
  readonly platformRate: number
  /** Token-host rate before any policy is seen, requests/s. default 50 (Assumed, as above). */
  readonly apiRate: number
  /** Share (0..1] of a policy's rate the pacer aims at, leaving room for clock and network jitter. default 0.97 (Assumed: the quota is this client's alone; lower it when other jobs share the key). */
  readonly pacingHeadroom: number
  /** Run cap of units; a call that would cross it is refused before sending. default none. */
  readonly maxUnits: Option.Option<number>
  /** Daily cap of units across runs (with the warehouse ledger's `spentToday`). default none. */
  readonly dailyUnits: Option.Option<number>
  /** Declared cost per operation, merged over `DEFAULT_UNIT_COSTS` (config/UnitCosts.ts). default `DEFAULT_UNIT_COSTS`. */
  readonly costs: Readonly<Record<string, number>>
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
} & Partial<
    Omit<ServiceSettingsShape, "platformUrl" | "apiUrl" | "apiKey" | "email" | "password" | "maxUnits" | "dailyUnits" | "apiKeyHeader">
  > & {
    readonly maxUnits?: number
    readonly dailyUnits?: number
    readonly apiKeyHeader?: string | undefined
  }

export const DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 5,
  retryBaseMs: 500,
  retryMaxMs: 60_000,
  retryMinMs: 200,
  retryRatio: 0.1,
  retryFloor: 10,
  retryUnansweredPaid: false,
  platformRate: 20,
  apiRate: 50,
  pacingHeadroom: 0.97,
  shapes: {},
  paymentLinkMember: DEFAULT_PAYMENT_LINK_MEMBER
} as const

const redact = (s: Redacted.Redacted<string> | string | undefined) =>
  s === undefined ? Option.none() : Option.some(typeof s === "string" ? Redacted.make(s) : s)

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
    costs: { ...DEFAULT_UNIT_COSTS, ...input.costs },
    apiKeyHeader: Option.fromNullable(input.apiKeyHeader).pipe(Option.filter((h) => h.length > 0))
  })

  static layer = (settings: ServiceSettingsShape | ServiceSettingsInput) =>
    Layer.succeed(
      ServiceSettings,
      "timeoutMs" in settings && Option.isOption(settings.apiKey)
        ? (settings as ServiceSettingsShape)
        : ServiceSettings.make(settings as ServiceSettingsInput)
    )
}
