/**
 * Credentials never belong in the settings file or in parameters, and their values are never
 * echoed. Two ways to look like one:
 * - by its key: a key whose name contains `key`, `token`, `secret` or `password` (any case, e.g.
 *   `apiKey`, `api_key`, `SVC_API_KEY`, `refreshToken`) holds a credential, except the settings'
 *   own fields that name where credentials come from (`apiKeyEnv`, `passwordEnv`...);
 * - by its value, under any key (`credentialLook`): an API key (`sk_...`, `sk-...`, `rk_...`,
 *   `oat_...` and a few well-known issuers' prefixes), a JWT, a webhook secret (`whsec_...`), a
 *   long random token, or the value of a credential environment variable (`SVC_API_KEY`,
 *   `SVC_EMAIL`, `SVC_PASSWORD`, or the names the settings give them).
 */
import {
  API_KEY,
  type CredentialEnv,
  DEFAULT_CREDENTIAL_ENV,
  type EnvSecret,
  environmentSecrets,
  isRandomToken,
  JWT,
  REDACTED,
  redactText,
  WEBHOOK_SECRET
} from "../shared/Redaction.js"

export { type CredentialEnv, DEFAULT_CREDENTIAL_ENV, type EnvSecret, environmentSecrets, REDACTED, redactText }

const CREDENTIAL = /key|token|secret|passw(or)?d/i

/** Declared fields whose names look like credentials but hold none (env var or header names, search words). */
const NOT_CREDENTIALS = new Set(["apikeyenv", "emailenv", "passwordenv", "apikeyheader", "keywords"])

/** Whether a key (object member name) names a credential. */
export const isCredentialKey = (key: PropertyKey): boolean =>
  typeof key === "string" && CREDENTIAL.test(key) && !NOT_CREDENTIALS.has(key.toLowerCase())

// --- values that look like credentials -----------------------------------------------------------

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The credential variables raw (or decoded) settings name (`service.apiKeyEnv`...), else the defaults. */
export const credentialEnvOf = (settings: unknown): CredentialEnv => {
  const service = (settings as { service?: unknown } | null)?.service
  const pick = (k: keyof typeof DEFAULT_CREDENTIAL_ENV) => {
    const v = isPlainObject(service) ? service[k] : undefined
    // a credential put where its variable's name belongs is no name (and must not be shown as one)
    return typeof v === "string" && ENV_NAME.test(v) && credentialLook(v) === undefined ? v : DEFAULT_CREDENTIAL_ENV[k]
  }
  return { apiKeyEnv: pick("apiKeyEnv"), emailEnv: pick("emailEnv"), passwordEnv: pick("passwordEnv") }
}

const whole = (re: RegExp, s: string) => new RegExp(`^(?:${re.source})$`).test(s)

/**
 * What a value looks like when it looks like a credential (`an API key`, `a JWT`, `a webhook
 * secret`, `a random token`, `the value of SVC_PASSWORD`), else `undefined`. The whole value is
 * judged by the rules `redactText` applies to text (`shared/Redaction.ts`); a path (starting with
 * `/`, `.` or `~`) is never taken for a random token.
 */
export const credentialLook = (value: string, secrets: ReadonlyArray<EnvSecret> = []): string | undefined => {
  const v = value.trim()
  const env = secrets.find((s) => s.value === v)
  if (env !== undefined) return `the value of ${env.variable}`
  if (whole(JWT, v)) return "a JWT"
  if (whole(WEBHOOK_SECRET, v)) return "a webhook secret (whsec_)"
  if (whole(API_KEY, v)) return "an API key"
  if (!/^[/.~]/.test(v) && isRandomToken(v)) return "a random token"
  return undefined
}

// --- walking settings and parameters -------------------------------------------------------------

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * `value` with the value of every credential-looking key, at any depth, replaced by `<redacted>`,
 * and anything that looks like a credential inside its strings too (`redactText`).
 */
export const redactValue = (value: unknown, secrets: ReadonlyArray<EnvSecret> = environmentSecrets()): unknown => {
  if (typeof value === "string") return redactText(value, secrets)
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets))
  if (!isPlainObject(value)) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isCredentialKey(k) ? REDACTED : redactValue(v, secrets)]))
}

/** Every credential-looking key, at any depth, with its path and value. */
export const credentialsIn = (
  value: unknown,
  path: ReadonlyArray<string> = []
): Array<{ readonly path: ReadonlyArray<string>; readonly value: unknown }> => {
  if (Array.isArray(value)) return value.flatMap((v, i) => credentialsIn(v, [...path, String(i)]))
  if (!isPlainObject(value)) return []
  return Object.entries(value).flatMap(([k, v]) =>
    isCredentialKey(k) ? [{ path: [...path, k], value: v }] : credentialsIn(v, [...path, k])
  )
}

/**
 * Every string, at any depth, that looks like a credential (`credentialLook`), with its path and
 * what it looks like; a map's key (a set's name, say) is judged too (`key: true`).
 */
export const credentialValuesIn = (
  value: unknown,
  secrets: ReadonlyArray<EnvSecret> = [],
  path: ReadonlyArray<string> = []
): Array<{ readonly path: ReadonlyArray<string>; readonly look: string; readonly key: boolean }> => {
  if (typeof value === "string") {
    const look = credentialLook(value, secrets)
    return look === undefined ? [] : [{ path, look, key: false }]
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => credentialValuesIn(v, secrets, [...path, String(i)]))
  if (!isPlainObject(value)) return []
  return Object.entries(value).flatMap(([k, v]) => {
    const look = credentialLook(k, secrets)
    // the key is not shown: its path ends at the map that holds it
    return look !== undefined ? [{ path, look, key: true }] : credentialValuesIn(v, secrets, [...path, k])
  })
}

const leaves = (value: unknown): Array<string> => {
  if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") return [String(value)]
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(leaves)
  return []
}

/** Every string or number held under a credential-looking key, at any depth (to scrub from text). */
const secretsIn = (value: unknown): Array<string> => credentialsIn(value).flatMap(({ value: v }) => leaves(v))

/**
 * `text` with every credential value found in `input` replaced by `<redacted>` (its quoted form
 * always, its bare form when it is long enough not to be an ordinary word of the message), and
 * whatever else looks like a credential (`redactText`, with the credential variables' values).
 */
export const scrub = (text: string, input: unknown, secrets: ReadonlyArray<EnvSecret> = environmentSecrets()): string => {
  let out = text
  for (const secret of [...new Set(secretsIn(input))].sort((a, b) => b.length - a.length)) {
    if (secret === "") continue
    out = out.split(JSON.stringify(secret)).join(JSON.stringify(REDACTED))
    if (secret.length >= 4) out = out.split(secret).join(REDACTED)
  }
  return redactText(out, secrets)
}
