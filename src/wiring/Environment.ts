/**
 * The one place where layers are wired: settings -> the service (the embedded sandbox, or the
 * real hosts from configuration and the environment) -> host clients with their retry budget,
 * pacing and cost guard -> the warehouse -> progress output.
 *
 * Pointing at the real service is a settings change (`service.target: "remote"`, URLs, and
 * credentials in the environment), never a code change.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { blockSizeBytes, type Settings } from "../config/Settings.js"
import { type KeyOptions, TableKeys } from "../extract/Sources.js"
import type { OpenOptions } from "../load/Database.js"
import { Warehouse, warehouseLayer as openWarehouse } from "../load/Warehouse.js"
import { Progress } from "../pipeline/Progress.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../sandbox/Credentials.js"
import type { SandboxHandle } from "../sandbox/Sandbox.js"
import { CostGuard } from "../service/CostGuard.js"
import { ServiceLayer } from "../service/ServiceLayer.js"
import type { ShapeOverride } from "../service/ResponseShape.js"
import { ServiceSettings } from "../service/ServiceSettings.js"

export interface EnvironmentOptions {
  readonly settings: Settings
  /** Overrides `settings.warehouse`. */
  readonly warehouse?: string | undefined
  /** Overrides `settings.budget.maxUnits` (the cap of this invocation). */
  readonly maxUnits?: number | undefined
  readonly progress: Layer.Layer<Progress>
  /** An already running sandbox to use instead of starting one (tests, `demo`). */
  readonly sandbox?: SandboxHandle | undefined
  /** Open the warehouse read-only (`plan`): nothing is created or written. */
  readonly readOnly?: boolean | undefined
  /** How long to wait for a warehouse another process holds, and who is told (`cli/LockWait.ts`). Default: no wait. */
  readonly lock?: Pick<OpenOptions, "lockTimeout" | "onLocked"> | undefined
  /**
   * Told when a source reads its keys from a table the warehouse does not hold (yet): the read
   * then gives no keys instead of failing, so a plan or a run before the pipeline that writes the
   * table says "0 keys yet" rather than stopping on a catalog error. Without it such a read fails
   * naming the table.
   */
  readonly onMissingKeyTable?: ((table: string, column: string) => void) | undefined
}

/** The embedded sandbox of `target: "sandbox"`, started for the layer's scope. */
export class EmbeddedSandbox extends Context.Tag("wiring/EmbeddedSandbox")<EmbeddedSandbox, Option.Option<SandboxHandle>>() {}

const today = () => `${new Date().toISOString().slice(0, 10)}T00:00:00Z`

const envOr = (name: string) => Option.fromNullable(process.env[name]).pipe(Option.filter((v) => v.length > 0))

/**
 * The real service's base URLs as the settings hold them: the environment's `SVC_PLATFORM_URL` and
 * `SVC_API_URL` were laid over them where settings are loaded (config/SettingsEnv.ts), once.
 */
export const remoteUrls = (settings: Settings) => ({
  platformUrl: Option.fromNullable(settings.service.platformUrl),
  apiUrl: Option.fromNullable(settings.service.apiUrl)
})

/**
 * The names of the environment variables a remote run reading `host` needs and that are not set
 * (empty counts as unset): the API key for the platform host, the e-mail and password for the
 * token host. Only names, never values.
 */
export const missingCredentials = (settings: Settings, host: "platform" | "token"): ReadonlyArray<string> => {
  const s = settings.service
  const needed = host === "platform" ? [s.apiKeyEnv] : [s.emailEnv, s.passwordEnv]
  return needed.filter((name) => Option.isNone(envOr(name)))
}

/** Service settings for the configured target; credentials only from the environment (or the sandbox). */
const serviceSettings = (settings: Settings, sandbox: Option.Option<SandboxHandle>) =>
  Effect.gen(function* () {
    const s = settings.service
    const base = {
      timeoutMs: s.timeoutMs,
      maxRetries: s.maxRetries,
      retryBaseMs: s.retryBaseMs,
      retryMaxMs: s.retryMaxMs,
      platformRate: s.platformRate,
      apiRate: s.apiRate,
      pacingHeadroom: s.pacingHeadroom,
      shapes: s.shapes as Readonly<Record<string, ShapeOverride>>,
      paymentLinkMember: s.paymentLinkMember,
      apiKeyHeader: s.apiKeyHeader,
      retryRatio: settings.budget.retryRatio,
      retryFloor: settings.budget.retryFloor,
      retryUnansweredPaid: settings.budget.retryUnansweredPaid,
      costs: settings.budget.costs
    }
    if (Option.isSome(sandbox)) {
      return ServiceSettings.make({
        ...base,
        platformUrl: sandbox.value.platformUrl,
        apiUrl: sandbox.value.apiUrl,
        apiKey: Redacted.make(SANDBOX_API_KEY),
        email: SANDBOX_USER.email,
        password: Redacted.make(SANDBOX_USER.password)
      })
    }
    const { platformUrl, apiUrl } = remoteUrls(settings)
    if (Option.isNone(platformUrl) || Option.isNone(apiUrl)) {
      return yield* new InvalidInput({
        field: "service.platformUrl / service.apiUrl",
        detail: "a remote target needs both base URLs (settings, or SVC_PLATFORM_URL and SVC_API_URL)"
      })
    }
    const apiKey = envOr(s.apiKeyEnv)
    const email = envOr(s.emailEnv)
    const password = envOr(s.passwordEnv)
    return ServiceSettings.make({
      ...base,
      platformUrl: platformUrl.value,
      apiUrl: apiUrl.value,
      ...(Option.isSome(apiKey) ? { apiKey: Redacted.make(apiKey.value) } : {}),
      ...(Option.isSome(email) ? { email: email.value } : {}),
      ...(Option.isSome(password) ? { password: Redacted.make(password.value) } : {})
    })
  })

/** Everything a run needs, for the scope of one CLI invocation (or one library call). */
export const makeEnvironment = (options: EnvironmentOptions) => {
  const { settings } = options
  const sandboxLayer = Layer.scoped(
    EmbeddedSandbox,
    options.sandbox
      ? Effect.succeed(Option.some(options.sandbox))
      : settings.service.target === "sandbox"
        ? Effect.map(
            // the simulator's code loads only when a run targets it
            Effect.flatMap(
              Effect.promise(() => import("../sandbox/Sandbox.js")),
              ({ Sandbox }) =>
                Sandbox.start({
                  seed: settings.sandbox.seed,
                  world: { properties: settings.sandbox.properties },
                  legacyFeeds: settings.sandbox.legacyFeeds,
                  dialect: settings.sandbox.dialect
                })
            ),
            Option.some
          )
        : Effect.succeed(Option.none())
  )
  const settingsLayer = Layer.effect(
    ServiceSettings,
    Effect.flatMap(EmbeddedSandbox, (sb) => serviceSettings(settings, sb))
  )
  const warehouseLayer = openWarehouse({
    path: options.warehouse ?? settings.warehouse,
    memoryLimit: settings.duckdb.memoryLimit,
    checkpointThreshold: settings.duckdb.checkpointThreshold,
    threads: settings.duckdb.threads,
    blockSize: settings.duckdb.blockSize === undefined ? undefined : blockSizeBytes(settings.duckdb.blockSize),
    readOnly: options.readOnly,
    ...options.lock
  })
  // the run's cost guard: caps from the settings, today's spend from the warehouse ledger (read
  // only for a daily cap: it scans the ledger, which grows with every run)
  const guardLayer = Layer.unwrapEffect(
    Effect.gen(function* () {
      const spentToday = settings.budget.dailyMaxUnits === undefined ? 0 : yield* (yield* Warehouse).unitsSpentSince(today())
      const s = yield* ServiceSettings
      return CostGuard.layer({
        runId: "cli",
        maxUnits: options.maxUnits ?? settings.budget.maxUnits,
        dailyUnits: settings.budget.dailyMaxUnits,
        spentToday,
        costs: s.costs,
        maxInFlight: settings.budget.paidInFlight === 0 ? undefined : settings.budget.paidInFlight
      })
    })
  )
  const tableKeys = Layer.effect(
    TableKeys,
    Effect.map(Warehouse, (w) => ({
      read: (table: string, column: string, keyOptions?: KeyOptions) =>
        Effect.gen(function* () {
          const keys = yield* w.keysOf(table, column, keyOptions)
          if (keys !== undefined) return keys
          if (keyOptions?.optional) return [] as ReadonlyArray<string>
          if (options.onMissingKeyTable === undefined) {
            return yield* Effect.fail(
              new Error(
                `keys come from ${table}.${column}, but the warehouse has no table ${table} yet; run the pipeline that writes it first`
              )
            )
          }
          options.onMissingKeyTable(table, column)
          return [] as ReadonlyArray<string>
        }).pipe(Effect.mapError((e) => new Error(e.message))),
      lastFullRead: (pipeline: string) => w.lastFullRead(pipeline).pipe(Effect.mapError((e) => new Error(e.message)))
    }))
  )
  return Layer.mergeAll(ServiceLayer.clients(guardLayer), tableKeys, options.progress).pipe(
    Layer.provideMerge(warehouseLayer),
    Layer.provideMerge(settingsLayer),
    Layer.provideMerge(sandboxLayer)
  )
}
