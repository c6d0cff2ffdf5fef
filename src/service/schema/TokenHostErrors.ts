/**
 * Error bodies of the token host (spec "Errors / Token host"). All open. A body that matches
 * none of them is still an error: the client maps by status and keeps the raw text.
 */
import { Schema } from "effect"
import { AnyKeys, nullable, open } from "./Open.js"

/** 400: `{message, errors: string[] | null, details: string | null}`. */
export const BadRequestBody = open({
  message: Schema.String,
  errors: nullable(Schema.Array(Schema.String)),
  details: nullable(Schema.String)
})
export type BadRequestBody = typeof BadRequestBody.Type

/** 401 and 403: `{detail}`. */
export const DetailBody = open({
  detail: Schema.String
})
export type DetailBody = typeof DetailBody.Type

/** 404 of DELETE /api/v1/listing-alerts/feeds/{id}: `{errors: object}`. */
export const NotFoundBody = open({
  errors: AnyKeys
})
export type NotFoundBody = typeof NotFoundBody.Type

/** One item of a 422: where (`loc`), what (`msg`, `type`), the input and the context. */
export const ValidationErrorItem = open({
  loc: Schema.Array(Schema.Union(Schema.String, Schema.Int)),
  msg: Schema.String,
  type: Schema.String,
  input: Schema.optional(Schema.Unknown),
  ctx: nullable(AnyKeys)
})
export type ValidationErrorItem = typeof ValidationErrorItem.Type

/** 422: `{detail: [item]}`. */
export const UnprocessableBody = open({
  detail: Schema.Array(ValidationErrorItem)
})
export type UnprocessableBody = typeof UnprocessableBody.Type

/** Any token host error body, tried in the order above (422 before 401/403: both carry `detail`). */
export const TokenHostErrorBody = Schema.Union(UnprocessableBody, BadRequestBody, DetailBody, NotFoundBody)
export type TokenHostErrorBody = typeof TokenHostErrorBody.Type

/** One line per 422 item: `body.comparables_count: Input should be less than or equal to 50`. */
export const formatUnprocessable = (body: UnprocessableBody): string => body.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("\n")
