/**
 * Well-known sandbox credentials. They are fixed strings so tests, demos and `make sandbox`
 * can use them without configuration; the sandbox's default config registers every one of them.
 * They are sandbox-only values, not secrets: toolkit code still wraps them in `Redacted`.
 */

/** Platform API key with a large unit balance (`SANDBOX_DEFAULT_BALANCE`). */
export const SANDBOX_API_KEY = "sk_sandbox_default_7f3a9c2e41d84b06"
/** Units on the default key. */
export const SANDBOX_DEFAULT_BALANCE = 100_000_000
/** Platform API key that answers 401 `credential_revoked`. */
export const REVOKED_API_KEY = "sk_sandbox_revoked_0b5e6d1c9a7f2e43"
/** Platform API key that answers 403 `account_suspended`. */
export const SUSPENDED_API_KEY = "sk_sandbox_suspended_5c8d2a6f0e1b9d37"
/** Platform API key that answers 403 `not_entitled` on every product. */
export const NOT_ENTITLED_API_KEY = "sk_sandbox_notentitled_3e9b7c1d5a2f8e60"
/** Platform API key with `LOW_BALANCE` units: a few 1-unit calls pass, premises search (40) answers 402. */
export const LOW_BALANCE_API_KEY = "sk_sandbox_lowbalance_9d1f4b7e2c6a0e58"
export const LOW_BALANCE = 10
/** OAuth-style access token with scope `ai:read`. */
export const OAUTH_TOKEN = "oat_sandbox_valid_2a7e5c9d1f3b8e04"
/** OAuth-style access token without `ai:read`: 403 `insufficient_scope` on premises search. */
export const OAUTH_TOKEN_NO_AI_READ = "oat_sandbox_noscope_6f2d8b4e0c9a1e75"
/** OAuth-style access token that has expired: 401 `token_expired`. */
export const OAUTH_TOKEN_EXPIRED = "oat_sandbox_expired_1c4e7a9f3d6b2e80"

/** Default token-host user (POST /login). */
export const SANDBOX_USER = { email: "sandbox@example.com", password: "sandbox-password" } as const

/** Status a registered platform credential answers with. */
export type CredentialStatus = "active" | "revoked" | "suspended" | "not_entitled" | "expired"

/** A platform credential as the sandbox registers it. `id` is what stats report (never the key). */
export interface CredentialSpec {
  readonly id: string
  readonly key: string
  readonly kind: "api_key" | "oauth"
  readonly balance: number
  readonly status: CredentialStatus
  readonly scopes: ReadonlyArray<string>
}

/** Every well-known credential, as the default config registers them. */
export const WELL_KNOWN_CREDENTIALS: ReadonlyArray<CredentialSpec> = [
  { id: "key_default", key: SANDBOX_API_KEY, kind: "api_key", balance: SANDBOX_DEFAULT_BALANCE, status: "active", scopes: ["ai:read"] },
  { id: "key_revoked", key: REVOKED_API_KEY, kind: "api_key", balance: 1_000, status: "revoked", scopes: ["ai:read"] },
  { id: "key_suspended", key: SUSPENDED_API_KEY, kind: "api_key", balance: 1_000, status: "suspended", scopes: ["ai:read"] },
  { id: "key_not_entitled", key: NOT_ENTITLED_API_KEY, kind: "api_key", balance: 1_000, status: "not_entitled", scopes: ["ai:read"] },
  { id: "key_low_balance", key: LOW_BALANCE_API_KEY, kind: "api_key", balance: LOW_BALANCE, status: "active", scopes: ["ai:read"] },
  { id: "oauth_valid", key: OAUTH_TOKEN, kind: "oauth", balance: 1_000_000, status: "active", scopes: ["ai:read"] },
  { id: "oauth_no_ai_read", key: OAUTH_TOKEN_NO_AI_READ, kind: "oauth", balance: 1_000_000, status: "active", scopes: [] },
  { id: "oauth_expired", key: OAUTH_TOKEN_EXPIRED, kind: "oauth", balance: 1_000_000, status: "expired", scopes: ["ai:read"] }
]
