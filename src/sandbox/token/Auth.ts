/**
 * Authentication of the token host: `POST /login`, `GET /refresh-token`, and the bearer check
 * every other route runs first.
 *
 * - Access and refresh tokens are HS256 JWTs (`Jwt.ts`) with claims `sub, typ, iat, exp, epoch,
 *   jti`; lifetimes come from `ctx.token` and time from `ctx.clock`.
 * - Access tokens are valid only while `epoch === ctx.tokenEpoch.value` (bumping it revokes them).
 *   Refresh tokens ignore the epoch, so a client whose access token was revoked can refresh.
 * - Assumed (docs/ASSUMPTIONS.md): 401 = token missing, invalid or expired; 403 = valid token,
 *   operation outside the subscription.
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import type { SandboxContext } from "../SandboxContext.js"
import { type TokenHostError, forbidden, unauthorized } from "./Errors.js"
import type { Handler } from "./Http.js"
import { jsonBody, ok } from "./Http.js"
import { type TokenClaims, sign, signingKey, verify } from "./Jwt.js"
import { Checker } from "./Validate.js"

/** The products a subscription can include; only `alerts` is enforced by the sandbox. */
export type Subscription = "alerts"

/**
 * Assumed: a second well-known user without the Alerts subscription. Register it in
 * `ctx.token.users` to use it; its alerts routes answer 403 `{detail}`.
 */
export const RESTRICTED_USER = { email: "restricted@example.com", password: "restricted-password" } as const

/**
 * Assumed: a user's subscriptions. `ctx.token.users` has no subscription field yet, so a user
 * may carry an optional `subscriptions` array; without one, every user whose e-mail starts with
 * `restricted@` lacks Alerts and everyone else has it.
 */
export const subscriptionsOf = (ctx: SandboxContext, email: string): ReadonlyArray<Subscription> => {
  const user = ctx.token.users.find((u) => u.email === email) as { readonly subscriptions?: ReadonlyArray<string> } | undefined
  if (user?.subscriptions !== undefined) return user.subscriptions.filter((s): s is Subscription => s === "alerts")
  return email.toLowerCase().startsWith("restricted@") ? [] : ["alerts"]
}

/** Signs tokens for one sandbox instance. */
export const makeIssuer = (ctx: SandboxContext) => {
  const key = signingKey(ctx.seed)
  let serial = 0
  const issue = (sub: string, typ: TokenClaims["typ"]) => {
    const iat = Math.floor(ctx.clock.now() / 1000)
    const ttl = typ === "access" ? ctx.token.accessTokenTtlSeconds : ctx.token.refreshTokenTtlSeconds
    serial += 1
    return sign(key, { sub, typ, iat, exp: iat + ttl, epoch: ctx.tokenEpoch.value, jti: `${typ}-${serial}` })
  }
  /** The claims of a valid, unexpired token of the given type, else the 401 to answer. */
  const check = (token: string | undefined, typ: TokenClaims["typ"]): Effect.Effect<TokenClaims, TokenHostError> => {
    if (token === undefined || token === "") return Effect.fail(unauthorized("Not authenticated"))
    const claims = verify(key, token)
    if (claims === undefined || claims.typ !== typ) return Effect.fail(unauthorized("Could not validate credentials"))
    if (claims.exp * 1000 <= ctx.clock.now()) {
      return Effect.fail(unauthorized(typ === "access" ? "Token has expired" : "Refresh token has expired"))
    }
    if (typ === "access" && claims.epoch !== ctx.tokenEpoch.value) return Effect.fail(unauthorized("Token has been revoked"))
    if (!ctx.token.users.some((u) => u.email === claims.sub)) return Effect.fail(unauthorized("Could not validate credentials"))
    return Effect.succeed(claims)
  }
  return { issue, check }
}
export type Issuer = ReturnType<typeof makeIssuer>

const bearer = Effect.map(HttpServerRequest.HttpServerRequest, (req) => {
  const h = req.headers["authorization"]
  const m = h === undefined ? null : /^Bearer\s+(.+)$/i.exec(h.trim())
  return m?.[1]?.trim()
})

/** The authenticated user of a request; `need` adds the subscription check (403). */
export const authenticate = (ctx: SandboxContext, issuer: Issuer, need?: Subscription) =>
  Effect.gen(function* () {
    const claims = yield* issuer.check(yield* bearer, "access")
    if (need !== undefined && !subscriptionsOf(ctx, claims.sub).includes(need)) {
      return yield* forbidden("Your subscription does not include this product")
    }
    return { email: claims.sub }
  })

export type User = { readonly email: string }

/** `POST /login` {email, password} -> {access_token, refresh_token}; 401 on bad credentials. */
export const login = (ctx: SandboxContext, issuer: Issuer): Handler =>
  Effect.gen(function* () {
    const body = yield* jsonBody()
    const c = new Checker()
    const obj = c.body(body)
    const email = c.string(obj, "email", ["body"], { required: true })
    const password = c.string(obj, "password", ["body"], { required: true })
    yield* c.result
    const user = ctx.token.users.find((u) => u.email === email && u.password === password)
    if (user === undefined) return yield* unauthorized("Incorrect email or password")
    ctx.stats.logins.count += 1
    return ok({ access_token: issuer.issue(user.email, "access"), refresh_token: issuer.issue(user.email, "refresh") })
  })

/** `GET /refresh-token` with the refresh token as bearer -> {access_token}; 401 when expired or invalid. */
export const refresh = (ctx: SandboxContext, issuer: Issuer): Handler =>
  Effect.gen(function* () {
    const claims = yield* issuer.check(yield* bearer, "refresh")
    ctx.stats.refreshes.count += 1
    return ok({ access_token: issuer.issue(claims.sub, "access") })
  })
