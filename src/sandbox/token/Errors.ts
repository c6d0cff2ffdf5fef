/**
 * Error bodies of the token host, exactly as the spec's "Errors / Token host" table shows them:
 *
 * | status   | body                                                        |
 * |----------|-------------------------------------------------------------|
 * | 400      | `{message, errors: string[] | null, details: string | null}` |
 * | 401, 403 | `{detail}`                                                  |
 * | 404      | `{errors: object}` (v1 feeds); Assumed: `{detail}` elsewhere |
 * | 422      | `{detail: [{loc, msg, type, input, ctx}]}`                  |
 *
 * Handlers fail with `TokenHostError`; `respond` in `Http.ts` turns it into the response.
 */
import { Data } from "effect"
import { HttpServerResponse } from "@effect/platform"

/** One item of a 422 body (pydantic v2 style, which the spec's field names follow). */
export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
  readonly input: unknown
  readonly ctx: Record<string, unknown>
}

export class TokenHostError extends Data.TaggedError("TokenHostError")<{
  readonly reason: "BadRequest" | "Unauthorized" | "Forbidden" | "NotFound" | "Conflict" | "Unprocessable"
  readonly status: 400 | 401 | 403 | 404 | 409 | 422
  readonly body: unknown
}> {
  override get message() {
    return `${this.status} ${this.reason}: ${JSON.stringify(this.body)}`
  }
}

export const badRequest = (message: string, errors: ReadonlyArray<string> | null = null, details: string | null = null) =>
  new TokenHostError({ reason: "BadRequest", status: 400, body: { message, errors, details } })

export const unauthorized = (detail: string) => new TokenHostError({ reason: "Unauthorized", status: 401, body: { detail } })

export const forbidden = (detail: string) => new TokenHostError({ reason: "Forbidden", status: 403, body: { detail } })

/** Assumed: `errors` holds `{<field>: [message]}`, Django REST style, e.g. `{id: ["Feed not found."]}`. */
export const notFound = (field: string, message: string) =>
  new TokenHostError({ reason: "NotFound", status: 404, body: { errors: { [field]: [message] } } })

/**
 * Assumed: a 404 outside the v1 feeds (unknown property, feed of the webhook family, location,
 * zip code, unresolvable target point) is `{detail}`, FastAPI's default body.
 */
export const notFoundDetail = (detail: string) => new TokenHostError({ reason: "NotFound", status: 404, body: { detail } })

export const unprocessable = (issues: ReadonlyArray<ValidationIssue>) =>
  new TokenHostError({ reason: "Unprocessable", status: 422, body: { detail: issues } })

/** A single-issue 422. */
export const unprocessableOne = (
  loc: ReadonlyArray<string | number>,
  type: string,
  msg: string,
  input: unknown,
  ctx: Record<string, unknown> = {}
) => unprocessable([{ loc, msg, type, input, ctx }])

export const toResponse = (e: TokenHostError): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(e.body, { status: e.status })
