/**
 * RFC 9457 problem record of the platform host (`application/problem+json`), with the codes of
 * the spec. Open: extensions are kept (RFC 9457 says clients ignore unknown ones; we keep them).
 */
import { Schema } from "effect"
import { nullable, open } from "./Open.js"

/** The platform host's problem codes (spec "Errors"). Codes above 413: not shown. */
export const PROBLEM_CODES = [
  "invalid_request",
  "key_in_query",
  "page_depth_exceeded",
  "unauthorized",
  "invalid_credential",
  "credential_revoked",
  "token_expired",
  "payment_required",
  "insufficient_scope",
  "not_entitled",
  "account_suspended",
  "not_found",
  "method_not_allowed",
  "conflict",
  "payload_too_large"
] as const
export type ProblemCode = (typeof PROBLEM_CODES)[number]

/**
 * The problem record. `code` stays a string (unknown codes must decode); `isProblemCode`
 * narrows it. `type` is `{platform_url}/errors/<code with hyphens>`; `request_id` starts `req_`.
 */
export const Problem = open({
  type: nullable(Schema.String),
  title: nullable(Schema.String),
  status: Schema.Int,
  detail: nullable(Schema.String),
  instance: nullable(Schema.String),
  code: nullable(Schema.String),
  request_id: nullable(Schema.String),
  /** Assumed (docs/ASSUMPTIONS.md): the payment link of a 402 `payment_required`, opened by a person. */
  payment_url: nullable(Schema.String)
})
export type Problem = typeof Problem.Type

export const isProblemCode = (code: unknown): code is ProblemCode =>
  typeof code === "string" && (PROBLEM_CODES as ReadonlyArray<string>).includes(code)

/** The `type` URI of a code: `{platform_url}/errors/<code>` with underscores written as hyphens. */
export const problemType = (platformUrl: string, code: string): string =>
  `${platformUrl.replace(/\/+$/, "")}/errors/${code.replace(/_/g, "-")}`
