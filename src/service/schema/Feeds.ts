/**
 * Alert feeds of both families: the legacy `/api/v1/listing-alerts/feeds` and the webhook
 * `/alerts-api` feeds, the webhook URL and secret rotation. Feed bodies are not shown by the
 * spec beyond "the filter carries `alert_subtypes` and may carry the alert and creation date
 * filters"; the shapes follow docs/ASSUMPTIONS.md ("Legacy feed", "Alerts-api feed").
 */
import { Schema } from "effect"
import { AlertSubtype, Operation, PROPERTY_TYPES, TYPE_GROUPS } from "./Enums.js"
import { Alert } from "./Alert.js"
import { DateTimeString, nullable, open } from "./Open.js"
import { DateOnly, DateTime, intBetween, items, oneOf, show, typesOfOneGroup } from "./Rules.js"
import { Envelope } from "./Shared.js"
import { BARE_LIST, ENVELOPE, type ResponseShape } from "../ResponseShape.js"

const nonEmpty = Schema.String.pipe(Schema.filter((s) => s.trim().length > 0 || "must not be empty"))

/** Assumed: the feed filter as a request member. */
export const FeedFilterRequest = Schema.Struct({
  location_ids: Schema.optional(items(intBetween(1, 2147483647), 1)),
  types: Schema.optional(typesOfOneGroup(oneOf(PROPERTY_TYPES), TYPE_GROUPS, 1)),
  operation: Schema.optional(oneOf(Operation.values)),
  alert_subtypes: Schema.optional(items(oneOf(AlertSubtype.values), 1)),
  alert_date_from: Schema.optional(DateOnly),
  alert_date_to: Schema.optional(DateOnly),
  created_at_from: Schema.optional(DateTime),
  created_at_to: Schema.optional(DateTime)
})

/** Assumed: create/update body of both families, `{name, filter}`. */
export const FeedRequest = Schema.Struct({
  name: nonEmpty,
  filter: FeedFilterRequest
})
export type FeedRequest = typeof FeedRequest.Type

/** Assumed: the feed filter as the server echoes it (open; every member may be absent or null). */
export const FeedFilter = open({
  location_ids: nullable(Schema.Array(Schema.Int)),
  types: nullable(Schema.Array(Schema.String)),
  operation: nullable(Schema.String),
  alert_subtypes: nullable(Schema.Array(AlertSubtype.schema)),
  alert_date_from: nullable(Schema.String),
  alert_date_to: nullable(Schema.String),
  created_at_from: nullable(Schema.String),
  created_at_to: nullable(Schema.String)
})
export type FeedFilter = typeof FeedFilter.Type

/**
 * Legacy feed id: an integer, or a string holding one (spec: "`{id}` of the v1 feed paths is a
 * string holding an integer"; a service may send it that way in bodies too).
 */
export const LegacyFeedId = Schema.Union(Schema.Int, Schema.String.pipe(Schema.pattern(/^\d+$/)))

/** The integer of a legacy feed id as the service sent it, or undefined when it is none. */
export const legacyFeedId = (id: unknown): number | undefined =>
  typeof id === "number" && Number.isSafeInteger(id) && id > 0
    ? id
    : typeof id === "string" && /^\d+$/.test(id) && Number.isSafeInteger(Number(id))
      ? Number(id)
      : undefined

/** Assumed: a legacy feed `{id: int, name, filter, created_at}` (`id` may be a string holding the integer). */
export const LegacyFeed = open({
  id: LegacyFeedId,
  name: nullable(Schema.String),
  filter: nullable(FeedFilter),
  created_at: nullable(DateTimeString)
})
export type LegacyFeed = typeof LegacyFeed.Type
/** Assumed: GET /api/v1/listing-alerts/feeds answers a plain list. */
export const LegacyFeeds = Schema.Array(LegacyFeed)

/** DELETE /api/v1/listing-alerts/feeds/{id} 200 body. */
export const DeleteFeedResult = open({ success: Schema.Boolean })

/** Assumed: a webhook-family feed `{feed_id: "feed_<n>", name, filter, created_at}`. */
export const AlertsApiFeed = open({
  feed_id: Schema.String,
  name: nullable(Schema.String),
  filter: nullable(FeedFilter),
  created_at: nullable(DateTimeString)
})
export type AlertsApiFeed = typeof AlertsApiFeed.Type
/**
 * Assumed (docs/ASSUMPTIONS.md: a paginated list, as the other token-host lists): the query of
 * GET /alerts-api/feeds, `limit` 1..500 and `offset` at most 50000.
 */
export const AlertsApiFeedsQuery = Schema.Struct({
  limit: Schema.optional(intBetween(1, 500)),
  offset: Schema.optional(intBetween(0, 50000))
})
export type AlertsApiFeedsQuery = typeof AlertsApiFeedsQuery.Type

/** Assumed: GET /alerts-api/feeds answers the page envelope, newest first. */
export const AlertsApiFeedPage = Envelope(Schema.Array(AlertsApiFeed))
export type AlertsApiFeedPage = typeof AlertsApiFeedPage.Type

/** Assumed: PUT /alerts-api/webhooks body and answer `{url}`, an http(s) URL. */
export const WebhookUrlRequest = Schema.Struct({
  url: Schema.String.pipe(Schema.filter((u) => /^https?:\/\/\S+$/.test(u) || `must be an http(s) URL (got ${show(u)})`))
})
export type WebhookUrlRequest = typeof WebhookUrlRequest.Type
export const WebhookUrl = open({ url: Schema.String })

/**
 * POST /alerts-api/webhooks/rotate-secret body (required): `immediate` default false. When
 * false the earlier secrets stay valid for 24 hours; when true they are revoked at once.
 */
export const RotateSecretRequest = Schema.Struct({ immediate: Schema.optional(Schema.Boolean) })
export type RotateSecretRequest = typeof RotateSecretRequest.Type
/** The new current signing secret (Standard Webhooks `whsec_<base64>`, Assumed). */
export const RotatedSecret = open({ secret: Schema.String })
export type RotatedSecret = typeof RotatedSecret.Type

/**
 * Assumed (docs/ASSUMPTIONS.md, Standard Webhooks 1.0): a webhook delivery body
 * `{type: "alert.<subtype>", timestamp, data: <alert record>}`.
 */
export const AlertEvent = open({
  type: Schema.String,
  timestamp: nullable(Schema.String),
  data: Alert
})
export type AlertEvent = typeof AlertEvent.Type

/** Spec: GET .../listing-alerts/feeds answers a list of feeds. */
export const LEGACY_FEEDS_SHAPE: ResponseShape = BARE_LIST
/**
 * Assumed (spec: "paginated list of feeds, newest first", payload not shown): `{count, next,
 * results}`. Setting: `service.shapes.alerts_api_feeds`.
 */
export const ALERTS_API_FEEDS_SHAPE: ResponseShape = ENVELOPE
