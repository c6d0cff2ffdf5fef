/**
 * Authentication of the platform host: the credential from `Authorization: Bearer` or the
 * API key header (`X-Api-Key`, or the dialect's `apiKeyHeader`), the `key_in_query` refusal, and the account checks in the spec's order
 * (400 before 401 before 403).
 */
import type { Account } from "../Accounts.js"
import { activeDialect, apiKeyHeaderOf } from "../Dialect.js"
import type { SandboxState } from "../SandboxState.js"
import type { ProblemCode } from "./Problem.js"

/**
 * Query parameter names that look like a credential (compared lower-case, `-` as `_`).
 * Assumed: the spec names no list; these are the usual spellings.
 */
const CREDENTIAL_PARAMS = new Set([
  "api_key",
  "apikey",
  "key",
  "token",
  "access_token",
  "accesstoken",
  "auth",
  "authorization",
  "bearer",
  "x_api_key",
  "secret",
  "client_secret",
  "refresh_token",
  "id_token",
  "password",
  "sig",
  "signature"
])

export interface AuthFailure {
  readonly code: ProblemCode
  readonly detail: string
}

export type AuthResult = { readonly ok: true; readonly account: Account } | { readonly ok: false; readonly failure: AuthFailure }

const fail = (code: ProblemCode, detail: string): AuthResult => ({ ok: false, failure: { code, detail } })

/** Whether the URL's query carries a credential-like parameter. */
export const hasKeyInQuery = (url: string): boolean => {
  const q = url.indexOf("?")
  if (q === -1) return false
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase().replace(/-/g, "_"))) return true
  }
  return false
}

/**
 * Resolves the credential of a request. `scope`: the scope an OAuth token must carry
 * (premises search: `ai:read`); API keys carry every scope of their account.
 * Assumed: `X-Api-Key` carries API keys only; an OAuth token there is an invalid credential.
 * Dialect: `apiKeyHeader` renames that header (the old name then carries nothing);
 * `bearerKeys: false` refuses API keys sent as `Authorization: Bearer` (OAuth tokens still go there).
 */
export const authenticate = (
  state: SandboxState,
  url: string,
  headers: Readonly<Record<string, string | undefined>>,
  scope?: string
): AuthResult => {
  if (hasKeyInQuery(url)) return fail("key_in_query", "Credentials must not be sent in the URL query; use the Authorization header")
  const dialect = activeDialect(state.ctx)
  const authorization = headers["authorization"]
  const headerKey = headers[apiKeyHeaderOf(dialect)]
  let key: string | undefined
  if (authorization !== undefined) {
    const m = /^Bearer\s+(.+)$/i.exec(authorization.trim())
    if (m === null) return fail("invalid_credential", "The Authorization header must be `Bearer <credential>`")
    key = m[1]!.trim()
  } else if (headerKey !== undefined && headerKey.trim() !== "") {
    key = headerKey.trim()
  }
  if (key === undefined) return fail("unauthorized", "No credential was sent")
  const account = state.accounts.lookup(key)
  if (account === undefined) return fail("invalid_credential", "The credential is not valid")
  if (authorization === undefined && account.spec.kind === "oauth") {
    return fail("invalid_credential", "The API key header carries API keys only")
  }
  if (authorization !== undefined && account.spec.kind === "api_key" && dialect.bearerKeys === false) {
    return fail("invalid_credential", "API keys go in the API key header, not in Authorization")
  }
  switch (account.spec.status) {
    case "revoked":
      return fail("credential_revoked", "The credential has been revoked")
    case "expired":
      return fail("token_expired", "The access token has expired")
    case "suspended":
      return fail("account_suspended", "The account is suspended")
    case "not_entitled":
      return fail("not_entitled", "The account is not entitled to this product")
  }
  if (scope !== undefined && account.spec.kind === "oauth" && !account.spec.scopes.includes(scope)) {
    return fail("insufficient_scope", `The access token lacks the scope ${scope}`)
  }
  return { ok: true, account }
}
