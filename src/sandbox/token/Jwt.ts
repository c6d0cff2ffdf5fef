/**
 * Minimal JWT (HS256) for the sandbox's token host: sign and verify with node:crypto.
 * Assumed: the key is SHA-256 of `"token-host:" + seed`, so a sandbox with the same seed issues
 * the same tokens for the same clock; the client never reads the claims (docs/ASSUMPTIONS.md).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"

export interface TokenClaims {
  /** The user's e-mail. */
  readonly sub: string
  readonly typ: "access" | "refresh"
  /** Issued at / expires, seconds since epoch on the sandbox clock. */
  readonly iat: number
  readonly exp: number
  /** `ctx.tokenEpoch.value` when the token was issued. */
  readonly epoch: number
  /** Serial number, so two tokens issued in the same second differ. */
  readonly jti: string
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url")

export const signingKey = (seed: number): Buffer => createHash("sha256").update(`token-host:${seed}`).digest()

const HEADER = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))

export const sign = (key: Buffer, claims: TokenClaims): string => {
  const payload = b64url(JSON.stringify(claims))
  const sig = createHmac("sha256", key).update(`${HEADER}.${payload}`).digest("base64url")
  return `${HEADER}.${payload}.${sig}`
}

/** The claims of a well-formed token with a valid signature, else undefined (expiry is the caller's). */
export const verify = (key: Buffer, token: string): TokenClaims | undefined => {
  const parts = token.split(".")
  if (parts.length !== 3) return undefined
  const [h, p, s] = parts as [string, string, string]
  const expected = createHmac("sha256", key).update(`${h}.${p}`).digest()
  const given = Buffer.from(s, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const header = JSON.parse(Buffer.from(h, "base64url").toString("utf8")) as { alg?: unknown }
    if (header.alg !== "HS256") return undefined
    const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as Partial<TokenClaims>
    if (typeof claims.sub !== "string" || (claims.typ !== "access" && claims.typ !== "refresh")) return undefined
    if (typeof claims.exp !== "number" || typeof claims.epoch !== "number") return undefined
    return claims as TokenClaims
  } catch {
    return undefined
  }
}
