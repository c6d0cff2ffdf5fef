/**
 * The settings checks a schema cannot make alone:
 * - `credentialInSettings`: a credential in the file is refused, naming the environment variable
 *   to use, never the value: a credential-looking key with a string value, or a value that looks
 *   like a credential under any key (an API key, a JWT, a `whsec_` secret, a long random token, the
 *   value of a credential variable; `Credentials.ts`), at any depth;
 * - `forbiddenKeyIn`: `__proto__`, `constructor` and `prototype` are refused as keys anywhere (a
 *   pipeline's parameters included): they name JavaScript's object machinery, not settings;
 * - `checkSettingsAgainst`: the names the settings' maps use must be known: pipelines under
 *   `pipelines` and in `sets`, operations under `budget.costs` (each with the closest known name).
 *   The known names are an argument (the catalogue, plus whatever pipelines the caller loads), so
 *   this module imports no pipeline.
 * All fail with `InvalidInput` (exit 2), before any request.
 */
import { Either } from "effect"
import { DEFAULT_UNIT_COSTS } from "./UnitCosts.js"
import { InvalidInput } from "../shared/InvalidInput.js"
import {
  type CredentialEnv,
  credentialEnvOf,
  DEFAULT_CREDENTIAL_ENV,
  credentialsIn,
  credentialValuesIn,
  environmentSecrets,
  isCredentialKey
} from "./Credentials.js"
import type { Settings } from "./Settings.js"
import { suggestion } from "./Suggest.js"

/** Where the credential named `key` (or looking like `look`) comes from instead. */
const whereInstead = (key: string, env: CredentialEnv, look = ""): string =>
  /passw(or)?d/i.test(key) || look.endsWith(env.passwordEnv)
    ? `remove it and set the environment variable ${env.passwordEnv} instead`
    : look.endsWith(env.emailEnv)
      ? `remove it and set the environment variable ${env.emailEnv} instead`
      : /whsec/.test(look)
        ? "remove it: webhook secrets go in the receiver's secrets file (serve-alerts --secrets-file) or its environment variable (ALERTS_WEBHOOK_SECRETS)"
        : /token/i.test(key) || look === "a JWT"
          ? `remove it: tokens come from signing in with the environment variables ${env.emailEnv} and ${env.passwordEnv}`
          : `remove it and set the environment variable ${env.apiKeyEnv} instead`

/** The settings' own fields that name a credential's variable, and the credential each names. */
const ENV_NAME_FIELDS: Record<string, keyof CredentialEnv> = { apiKeyEnv: "apiKeyEnv", emailEnv: "emailEnv", passwordEnv: "passwordEnv" }

/**
 * A credential found in the raw settings (`service.apiKey: "..."`, or a key under any name), as
 * an error naming the field and the environment variable to use; the value is never shown.
 * `env`: the environment after `.env`, whose credential variables' values are credentials too.
 * `undefined` when there is none.
 */
export const credentialInSettings = (input: unknown, source: string, env: NodeJS.ProcessEnv = process.env): InvalidInput | undefined => {
  const names = credentialEnvOf(input)
  const found = credentialsIn(input).filter((c) => typeof c.value === "string" || typeof c.value === "number")
  if (found.length > 0) {
    const first = found[0]!
    const key = first.path[first.path.length - 1]!
    const more =
      found.length > 1
        ? ` (also ${found
            .slice(1)
            .map((c) => c.path.join("."))
            .join(", ")})`
        : ""
    return new InvalidInput({
      field: `${source}: ${first.path.join(".")}`,
      detail: `credentials are never read from the settings file; ${whereInstead(key, names)}${more}`
    })
  }
  const looks = credentialValuesIn(input, environmentSecrets(names, env))
  if (looks.length === 0) return undefined
  const { path: at, look, key: isKey } = looks[0]!
  // inside a credential-named member (`apiKey: ["sk_..."]`): that member is the field
  const named = at.findIndex(isCredentialKey)
  if (named >= 0)
    return new InvalidInput({
      field: `${source}: ${at.slice(0, named + 1).join(".")}`,
      detail: `credentials are never read from the settings file; ${whereInstead(at[named]!, names)}`
    })
  const path = at
  const key = path[path.length - 1] ?? ""
  const more =
    looks.length > 1
      ? ` (also ${looks
          .slice(1)
          .map((c) => c.path.join("."))
          .join(", ")})`
      : ""
  const own = ENV_NAME_FIELDS[key]
  const detail =
    own !== undefined && path.length === 2 && path[0] === "service"
      ? `names the environment variable that holds the credential, and this value looks like the credential itself (${look}); ` +
        `put the secret in an environment variable (default ${DEFAULT_CREDENTIAL_ENV[own]}) and set ${key} to that variable's name, or leave it out`
      : `${isKey ? "a key of this map" : "this value"} looks like a credential (${look}); credentials are never read from the settings file; ${whereInstead(isKey ? "" : key, names, look)}`
  return new InvalidInput({ field: `${source}: ${path.length > 0 ? path.join(".") : "(settings)"}`, detail: `${detail}${more}` })
}

/** Keys that reach JavaScript's object machinery instead of data: refused as setting and parameter keys. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/** The path of the first forbidden key (`FORBIDDEN_KEYS`) at any depth of `value`, own keys only. */
export const forbiddenKeyIn = (value: unknown, path: ReadonlyArray<string> = []): ReadonlyArray<string> | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]])
  for (const [k, v] of entries) {
    if (!Array.isArray(value) && FORBIDDEN_KEYS.has(k)) return [...path, k]
    const below = forbiddenKeyIn(v, [...path, k])
    if (below !== undefined) return below
  }
  return undefined
}

/** The error for a forbidden key at `path` (see `FORBIDDEN_KEYS`). */
export const forbiddenKeyError = (field: string, key: string): InvalidInput =>
  new InvalidInput({
    field,
    detail: `${JSON.stringify(key)} is not allowed as a key (it names JavaScript's object machinery, not a setting or parameter)`
  })

/**
 * The names the settings' maps may use. `operations`: operations the catalogue's pipelines call
 * on the metered host, beyond the built-in table (`DEFAULT_UNIT_COSTS`).
 */
export interface KnownNames {
  readonly pipelines: ReadonlyArray<string>
  readonly operations?: ReadonlyArray<string> | undefined
}

/** The operations `budget.costs` may name: the built-in cost table's and `extra` (a user pipeline's own). */
export const meteredOperations = (extra: ReadonlyArray<string> = []): Array<string> => [
  ...new Set([...Object.keys(DEFAULT_UNIT_COSTS), ...extra])
]

/**
 * Every name under `pipelines` and every member of `sets` must be a known pipeline, and every
 * operation under `budget.costs` a known metered operation; the first that is not fails, with the
 * closest known name (or the list of them). `known`: the names, or the pipeline names alone.
 */
export const checkSettingsAgainst = (
  settings: Settings,
  known: KnownNames | ReadonlyArray<string>,
  source = "settings"
): Either.Either<Settings, InvalidInput> => {
  const { pipelines: knownPipelineNames, operations } = isNames(known) ? { pipelines: known, operations: undefined } : known
  const pipelines = new Set(knownPipelineNames)
  for (const name of Object.keys(settings.pipelines)) {
    if (!pipelines.has(name)) {
      return Either.left(
        new InvalidInput({ field: `${source}: pipelines.${name}`, detail: `unknown pipeline${suggestion(name, knownPipelineNames)}` })
      )
    }
  }
  for (const [set, members] of Object.entries(settings.sets)) {
    for (const m of members) {
      if (!pipelines.has(m)) {
        return Either.left(
          new InvalidInput({
            field: `${source}: sets.${set}`,
            detail: `unknown pipeline ${JSON.stringify(m)}${suggestion(m, knownPipelineNames)}`
          })
        )
      }
    }
  }
  const metered = meteredOperations(operations)
  for (const op of Object.keys(settings.budget.costs)) {
    if (!metered.includes(op)) {
      return Either.left(
        new InvalidInput({
          field: `${source}: budget.costs.${op}`,
          detail: `unknown operation${suggestion(op, metered)} (units are per call of a platform operation; token-host calls cost none)`
        })
      )
    }
  }
  return Either.right(settings)
}

const isNames = (known: KnownNames | ReadonlyArray<string>): known is ReadonlyArray<string> => Array.isArray(known)
