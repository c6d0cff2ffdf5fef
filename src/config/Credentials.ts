/**
 * Credentials never belong in the settings file or in parameters, and their values are never
 * echoed: a key whose name contains `key`, `token`, `secret` or `password` (any case, e.g.
 * `apiKey`, `api_key`, `SVC_API_KEY`, `refreshToken`) holds a credential, except the settings'
 * own fields that name where credentials come from (`apiKeyEnv`, `passwordEnv`...).
 */

/** What an error shows instead of a credential's value. */
export const REDACTED = "<redacted>"

const CREDENTIAL = /key|token|secret|passw(or)?d/i

/** Declared fields whose names look like credentials but hold none (env var or header names, search words). */
const NOT_CREDENTIALS = new Set(["apikeyenv", "emailenv", "passwordenv", "apikeyheader", "keywords"])

/** Whether a key (object member name) names a credential. */
export const isCredentialKey = (key: PropertyKey): boolean =>
  typeof key === "string" && CREDENTIAL.test(key) && !NOT_CREDENTIALS.has(key.toLowerCase())

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** `value` with the value of every credential-looking key, at any depth, replaced by `<redacted>`. */
export const redactValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(redactValue)
  if (!isPlainObject(value)) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isCredentialKey(k) ? REDACTED : redactValue(v)]))
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

const leaves = (value: unknown): Array<string> => {
  if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") return [String(value)]
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(leaves)
  return []
}

/** Every string or number held under a credential-looking key, at any depth (to scrub from text). */
const secretsIn = (value: unknown): Array<string> => credentialsIn(value).flatMap(({ value: v }) => leaves(v))

/**
 * `text` with every credential value found in `input` replaced by `<redacted>`: its quoted form
 * always, its bare form when it is long enough not to be an ordinary word of the message.
 */
export const scrub = (text: string, input: unknown): string => {
  let out = text
  for (const secret of [...new Set(secretsIn(input))].sort((a, b) => b.length - a.length)) {
    if (secret === "") continue
    out = out.split(JSON.stringify(secret)).join(JSON.stringify(REDACTED))
    if (secret.length >= 4) out = out.split(secret).join(REDACTED)
  }
  return out
}
