/**
 * The settings the environment may override, and where each value came from. One precedence for
 * all of them:
 *
 *   flag (`--config`, `--warehouse`) > process environment > `.env` > settings file > default
 *
 * (`.env` reaches the environment only for variables the environment leaves unset, see
 * `DotEnv.ts`, so "the environment" below means both; `sourceOf` tells them apart.) An empty
 * variable counts as unset. The credentials follow the same order without a flag or a file:
 * environment, then `.env` (their variable names are settings: `service.apiKeyEnv`, ...).
 */
import { Either } from "effect"
import { InvalidInput } from "../shared/InvalidInput.js"
import { dotEnvFileOf } from "./DotEnv.js"
import type { Settings } from "./Settings.js"
import { suggestion } from "./Suggest.js"

/** The environment variables that override settings (the command line reads all of them). */
export const SETTINGS_ENV = {
  /** The settings file when `--config` is not given. */
  config: "ESTATE_ETL_CONFIG",
  /** `warehouse` (the `--warehouse` flag wins). */
  warehouse: "ESTATE_ETL_WAREHOUSE",
  /** `metricsFile` (the `--metrics-file` flag wins). */
  metricsFile: "ESTATE_ETL_METRICS_FILE",
  /** `service.target`: `sandbox` or `remote`. */
  target: "ESTATE_ETL_TARGET",
  /** `service.platformUrl` (also over a library session's settings object: `serviceUrlsFromEnv`). */
  platformUrl: "SVC_PLATFORM_URL",
  /** `service.apiUrl` (as `platformUrl`). */
  apiUrl: "SVC_API_URL"
} as const

/** Where a value came from. */
export type Source =
  | { readonly kind: "flag"; readonly name: string }
  | { readonly kind: "env"; readonly name: string }
  | { readonly kind: ".env"; readonly name: string; readonly file: string }
  | { readonly kind: "file"; readonly file: string }
  | { readonly kind: "overlay"; readonly file: string; readonly env: string; readonly via: string }
  | { readonly kind: "default" }

/**
 * One line for people: `flag --warehouse`, `env ESTATE_ETL_WAREHOUSE`, `.env SVC_API_KEY`, `file x.json`,
 * `overlay config/production.json (--env production)`, `default`.
 */
export const describeSource = (s: Source): string =>
  s.kind === "default"
    ? "default"
    : s.kind === "file"
      ? `file ${s.file}`
      : s.kind === "overlay"
        ? `overlay ${s.file} (${s.via === "--env" ? `--env ${s.env}` : `${s.via}=${s.env}`})`
        : `${s.kind} ${s.name}`

/** A variable's value when set (non-empty), with where it came from. */
export const envValue = (
  name: string,
  env: NodeJS.ProcessEnv = process.env
): { readonly value: string; readonly source: Source } | undefined => {
  const value = env[name]
  if (value === undefined || value === "") return undefined
  const file = dotEnvFileOf(name, env)
  return { value, source: file !== undefined ? { kind: ".env", name, file } : { kind: "env", name } }
}

/** Dotted setting paths the environment overrides, with the variable that did it. */
export type EnvOverrides = ReadonlyMap<string, Source>

const TARGETS = ["sandbox", "remote"] as const

/**
 * `settings` with the environment's overrides applied (`warehouse`, `metricsFile`,
 * `service.target`, the two base URLs), and which paths they set. A target other than `sandbox` or `remote` is refused,
 * naming the variable (and `.env` when it came from there).
 */
export const applySettingsEnv = (
  settings: Settings,
  env: NodeJS.ProcessEnv = process.env
): Either.Either<{ readonly settings: Settings; readonly overrides: EnvOverrides }, InvalidInput> => {
  const overrides = new Map<string, Source>()
  const warehouse = envValue(SETTINGS_ENV.warehouse, env)
  const metricsFile = envValue(SETTINGS_ENV.metricsFile, env)
  const target = envValue(SETTINGS_ENV.target, env)
  const platformUrl = envValue(SETTINGS_ENV.platformUrl, env)
  const apiUrl = envValue(SETTINGS_ENV.apiUrl, env)
  if (target !== undefined && !(TARGETS as ReadonlyArray<string>).includes(target.value)) {
    return Either.left(
      new InvalidInput({
        field: target.source.kind === ".env" ? `${SETTINGS_ENV.target} (.env)` : SETTINGS_ENV.target,
        detail: `must be sandbox or remote${suggestion(target.value, TARGETS, { listAllowed: false, quote: false })}`
      })
    )
  }
  if (warehouse) overrides.set("warehouse", warehouse.source)
  if (metricsFile) overrides.set("metricsFile", metricsFile.source)
  if (target) overrides.set("service.target", target.source)
  if (platformUrl) overrides.set("service.platformUrl", platformUrl.source)
  if (apiUrl) overrides.set("service.apiUrl", apiUrl.source)
  return Either.right({
    settings: {
      ...settings,
      ...(warehouse ? { warehouse: warehouse.value } : {}),
      ...(metricsFile ? { metricsFile: metricsFile.value } : {}),
      service: {
        ...settings.service,
        ...(target ? { target: target.value as (typeof TARGETS)[number] } : {}),
        ...(platformUrl ? { platformUrl: platformUrl.value } : {}),
        ...(apiUrl ? { apiUrl: apiUrl.value } : {})
      }
    },
    overrides
  })
}

/**
 * `settings` with only the environment's base URLs laid over them: what a library session given a
 * settings object takes from the environment (the variables of a file's settings, `warehouse` and
 * the rest, are for the CLI and settings files; an object says what it means).
 */
export const serviceUrlsFromEnv = (settings: Settings, env: NodeJS.ProcessEnv = process.env): Settings => {
  const platformUrl = envValue(SETTINGS_ENV.platformUrl, env)
  const apiUrl = envValue(SETTINGS_ENV.apiUrl, env)
  if (platformUrl === undefined && apiUrl === undefined) return settings
  return {
    ...settings,
    service: {
      ...settings.service,
      ...(platformUrl ? { platformUrl: platformUrl.value } : {}),
      ...(apiUrl ? { apiUrl: apiUrl.value } : {})
    }
  }
}
