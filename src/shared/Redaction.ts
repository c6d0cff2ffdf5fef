/**
 * Text that may hold a credential, made safe to print: every error message (`ErrorClass.ts`
 * `messageOf`), `config show`, decode errors and body excerpts pass through `redactText`. What
 * looks like a credential, whatever holds it: an API key (`sk_...`, `sk-...`, `rk_...`, `oat_...`
 * and a few well-known issuers' prefixes), a JWT, a webhook secret (`whsec_...`), a long random
 * token, and the values of the credential environment variables. The settings' checks judge whole
 * values with the same rules (`config/Credentials.ts` `credentialLook`).
 */

/** What is shown instead of a credential. */
export const REDACTED = "<redacted>"

/** The environment variables the credentials come from by default (the settings' `service.apiKeyEnv`, ...). */
export const DEFAULT_CREDENTIAL_ENV = { apiKeyEnv: "SVC_API_KEY", emailEnv: "SVC_EMAIL", passwordEnv: "SVC_PASSWORD" } as const
export type CredentialEnv = { readonly [K in keyof typeof DEFAULT_CREDENTIAL_ENV]: string }

/** A credential variable's value, as text may hold it. */
export interface EnvSecret {
  readonly variable: string
  readonly value: string
}

/** Shorter values are too likely to be ordinary words of a message to be searched for in text. */
const MIN_SECRET_IN_TEXT = 6

/** The values of the credential variables `names` (and the default ones) in `env` (the environment after `.env`), set ones only. */
export const environmentSecrets = (names: CredentialEnv = DEFAULT_CREDENTIAL_ENV, env: NodeJS.ProcessEnv = process.env): Array<EnvSecret> =>
  [...new Set([names.apiKeyEnv, names.emailEnv, names.passwordEnv, ...Object.values(DEFAULT_CREDENTIAL_ENV)])].flatMap((variable) => {
    const value = env[variable]
    return value !== undefined && value.trim() !== "" ? [{ variable, value }] : []
  })

export const JWT = /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g
export const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=_-]{8,}/g
/**
 * API keys as services issue them: a short issuer prefix, then a tail with a digit in it (so
 * `sk-something-long` as a name is not one). `sk`/`rk`: secret and restricted keys (this service's
 * `sk_sandbox_...`, `sk-live-...`), `oat`: OAuth access tokens; GitHub, GitLab, Slack and AWS keys.
 */
export const API_KEY =
  /(?<![A-Za-z0-9])(?:(?:sk|rk|oat)[_-](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})/g
/** Candidates for a long random token inside text (no `/`: paths are text too). */
const TOKEN_IN_TEXT = /[A-Za-z0-9_+=-]{32,}/g

const classOf = (c: string) => (c >= "a" && c <= "z" ? 0 : c >= "A" && c <= "Z" ? 1 : c >= "0" && c <= "9" ? 2 : 3)

/**
 * A long random token: 32 or more characters of base64 or base64url that mix upper case, lower
 * case and digits and change character class at least at 45% of neighbours (random base64 does at
 * about 64%; identifiers and paths, made of words, far less), or 40 or more hex digits.
 */
export const isRandomToken = (s: string): boolean => {
  if (s.length < 32 || !/^[A-Za-z0-9_+/=-]+$/.test(s)) return false
  if (s.length >= 40 && /^[0-9a-f]+$/i.test(s) && /\d/.test(s) && /[a-f]/i.test(s)) return true
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || !/\d/.test(s)) return false
  let switches = 0
  for (let i = 1; i < s.length; i++) if (classOf(s[i]!) !== classOf(s[i - 1]!)) switches++
  return switches >= 0.45 * (s.length - 1)
}

/**
 * `text` with everything in it that looks like a credential replaced by `<redacted>`: the
 * credential variables' values (`secrets`: quoted always; bare when long enough not to be an
 * ordinary word), JWTs, webhook secrets, API keys and long random tokens.
 */
export const redactText = (text: string, secrets: ReadonlyArray<EnvSecret> = environmentSecrets()): string => {
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
