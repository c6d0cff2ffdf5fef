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

/** What an error shows instead of a credential's value. */
export const REDACTED = "<redacted>"

const CREDENTIAL = /key|token|secret|passw(or)?d/i

/** Declared fields whose names look like credentials but hold none (env var or header names, search words). */
const NOT_CREDENTIALS = new Set(["apikeyenv", "emailenv", "passwordenv", "apikeyheader", "keywords"])

/** Whether a key (object member name) names a credential. */
export const isCredentialKey = (key: PropertyKey): boolean =>
  typeof key === "string" && CREDENTIAL.test(key) && !NOT_CREDENTIALS.has(key.toLowerCase())

// --- values that look like credentials -----------------------------------------------------------

/** The environment variables the credentials come from by default (`service.apiKeyEnv`, ...). */
export const DEFAULT_CREDENTIAL_ENV = { apiKeyEnv: "SVC_API_KEY", emailEnv: "SVC_EMAIL", passwordEnv: "SVC_PASSWORD" } as const
export type CredentialEnv = { readonly [K in keyof typeof DEFAULT_CREDENTIAL_ENV]: string }

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

/** A credential variable's value, as text may hold it. */
export interface EnvSecret {
  readonly variable: string
  readonly value: string
}

/** Shorter values are too likely to be ordinary words of a message to be searched for in text. */
const MIN_SECRET_IN_TEXT = 6

/** The values of the credential variables (`env` is the environment after `.env`), set ones only. */
export const environmentSecrets = (names: CredentialEnv = DEFAULT_CREDENTIAL_ENV, env: NodeJS.ProcessEnv = process.env): Array<EnvSecret> =>
  [...new Set([names.apiKeyEnv, names.emailEnv, names.passwordEnv, ...Object.values(DEFAULT_CREDENTIAL_ENV)])].flatMap((variable) => {
    const value = env[variable]
    return value !== undefined && value.trim() !== "" ? [{ variable, value }] : []
  })

const JWT = /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=_-]{8,}/g
/**
 * API keys as services issue them: a short issuer prefix, then a tail with a digit in it (so
 * `sk-something-long` as a name is not one). `sk`/`rk`: secret and restricted keys (this service's
 * `sk_sandbox_...`, `sk-live-...`), `oat`: OAuth access tokens; GitHub, GitLab, Slack and AWS keys.
 */
const API_KEY =
  /(?<![A-Za-z0-9])(?:(?:sk|rk|oat)[_-](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})/g
/** Candidates for a long random token inside text (no `/`: paths are text too). */
const TOKEN_IN_TEXT = /[A-Za-z0-9_+=-]{32,}/g

const classOf = (c: string) => (c >= "a" && c <= "z" ? 0 : c >= "A" && c <= "Z" ? 1 : c >= "0" && c <= "9" ? 2 : 3)

/**
 * A long random token: 32 or more characters of base64 or base64url that mix upper case, lower
 * case and digits and change character class at least at 45% of neighbours (random base64 does at
 * about 64%; identifiers and paths, made of words, far less), or 40 or more hex digits.
 */
const isRandomToken = (s: string): boolean => {
  if (s.length < 32 || !/^[A-Za-z0-9_+/=-]+$/.test(s)) return false
  if (s.length >= 40 && /^[0-9a-f]+$/i.test(s) && /\d/.test(s) && /[a-f]/i.test(s)) return true
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || !/\d/.test(s)) return false
  let switches = 0
  for (let i = 1; i < s.length; i++) if (classOf(s[i]!) !== classOf(s[i - 1]!)) switches++
  return switches >= 0.45 * (s.length - 1)
}

const whole = (re: RegExp, s: string) => {
  const m = s.match(new RegExp(`^(?:${re.source})$`))
  return m !== null
}

/**
 * What a value looks like when it looks like a credential (`an API key`, `a JWT`, `a webhook
 * secret`, `a random token`, `the value of SVC_PASSWORD`), else `undefined`. The whole value is
 * judged; a path (starting with `/`, `.` or `~`) is never taken for a random token.
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

/**
 * `text` with everything in it that looks like a credential replaced by `<redacted>`: JWTs,
 * webhook secrets, API keys, long random tokens, and the credential variables' values (quoted
 * always; bare when long enough not to be an ordinary word).
 */
export const redactText = (text: string, secrets: ReadonlyArray<EnvSecret> = []): string => {
  let out = text
  for (const { value } of [...secrets].sort((a, b) => b.value.length - a.value.length)) {
    out = out.split(JSON.stringify(value)).join(JSON.stringify(REDACTED))
    if (value.length >= MIN_SECRET_IN_TEXT) out = out.split(value).join(REDACTED)
  }
  return out
    .replace(JWT, REDACTED)
    .replace(WEBHOOK_SECRET, REDACTED)
    .replace(API_KEY, REDACTED)
    .replace(TOKEN_IN_TEXT, (m) => (isRandomToken(m) ? REDACTED : m))
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
export const redactValue = (value: unknown, secrets: ReadonlyArray<EnvSecret> = []): unknown => {
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
