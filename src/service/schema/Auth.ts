/**
 * Token host authentication: POST /login and GET /refresh-token. The client keeps the tokens
 * `Redacted`; these schemas only describe the wire bodies.
 */
import { Schema } from "effect"
import { open } from "./Open.js"

/** POST /login body. */
export const LoginRequest = Schema.Struct({
  email: Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || "must not be empty")),
  password: Schema.String.pipe(Schema.filter((s) => s.length > 0 || "must not be empty"))
})
export type LoginRequest = typeof LoginRequest.Type

/** POST /login answer. */
export const LoginTokens = open({
  access_token: Schema.String,
  refresh_token: Schema.String
})
export type LoginTokens = typeof LoginTokens.Type

/**
 * GET /refresh-token answer (refresh token as bearer). Assumed (docs/ASSUMPTIONS.md):
 * `{access_token}`; a `refresh_token` member, if the server ever sends one, is read too.
 */
export const RefreshedToken = open({
  access_token: Schema.String,
  refresh_token: Schema.optional(Schema.String)
})
export type RefreshedToken = typeof RefreshedToken.Type
