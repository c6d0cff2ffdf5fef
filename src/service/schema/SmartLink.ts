/**
 * Smart links (beta), POST /api/v1/properties/smart-links: the request with its rules and the
 * `{id, url}` record.
 */
import { Schema } from "effect"
import { SmartLinkComponent, SmartLinkLanguage } from "./Enums.js"
import { open } from "./Open.js"
import { intBetween, items, oneOf, show } from "./Rules.js"

const nonEmpty = Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || "must not be empty"))

const Email = Schema.String.pipe(Schema.filter((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s) || `must be an e-mail address (got ${show(s)})`))

const isUri = (s: string): boolean => {
  try {
    return new URL(s).protocol.length > 0
  } catch {
    return false
  }
}
const Uri = Schema.String.pipe(Schema.filter((s) => isUri(s) || `must be an absolute URI (got ${show(s)})`))

export const SmartLinkSettings = Schema.Struct({
  language: oneOf(SmartLinkLanguage.values),
  /** Default false. */
  is_indexing_by_search_engine: Schema.optional(Schema.Boolean),
  /** Default false; removes the sourced-by label from the page. */
  is_hide_source: Schema.optional(Schema.Boolean),
  brand_color: Schema.optional(Schema.String.pipe(Schema.filter((s) => s.length <= 9 || `at most 9 characters (got ${s.length})`))),
  /** Default [price]. */
  components_to_include: Schema.optional(Schema.Array(oneOf(SmartLinkComponent.values)))
})

export const SmartLinkUser = Schema.Struct({
  first_name: nonEmpty,
  last_name: nonEmpty,
  phone: nonEmpty,
  email: Email,
  photo_url: Schema.optional(Uri),
  about_me: Schema.optional(Schema.String)
})

export const SmartLinkCompany = Schema.Struct({
  name: nonEmpty,
  logo_url: Schema.optional(Uri)
})

export const SmartLinkRequest = Schema.Struct({
  primary_listing_ids: items(intBetween(1, 2147483647), 1, 10),
  settings: SmartLinkSettings,
  user: SmartLinkUser,
  company: Schema.optional(SmartLinkCompany)
})
export type SmartLinkRequest = typeof SmartLinkRequest.Type

/** The smart link record. */
export const SmartLink = open({
  id: Schema.String,
  url: Schema.String
})
export type SmartLink = typeof SmartLink.Type
