/**
 * Premises search, POST /v1/ai/search (40 units a successful call). The spec says request and
 * answer are JSON objects accepting any keys, with `limit` (page size) at most 200.
 */
import { Schema } from "effect"
import { PREMISES_MAX_LIMIT } from "./Enums.js"
import { nullable, open } from "./Open.js"
import { intBetween } from "./Rules.js"
import { ENVELOPE, type ResponseShape } from "../ResponseShape.js"

/**
 * The request: any keys. Assumed (docs/ASSUMPTIONS.md): `limit` 1..200 (default 20) and
 * `offset` at least 0, both in the body; `offset + limit` beyond the plan's depth (1000) is the
 * server's 400 `page_depth_exceeded`, not checked here since the plan's depth is the server's.
 */
export const PremisesRequest = open({
  limit: Schema.optional(intBetween(1, PREMISES_MAX_LIMIT)),
  offset: Schema.optional(intBetween(0, Number.MAX_SAFE_INTEGER))
})
export type PremisesRequest = typeof PremisesRequest.Type

/** Assumed: one premises result `{id: "prem_<n>", title, operation, municipality, province, price_eur, area_m2, latitude, longitude, ...}`. */
export const Premises = open({
  id: Schema.String,
  title: nullable(Schema.String),
  operation: nullable(Schema.String),
  municipality: nullable(Schema.String),
  province: nullable(Schema.String),
  price_eur: nullable(Schema.Number),
  area_m2: nullable(Schema.Number),
  latitude: nullable(Schema.Number),
  longitude: nullable(Schema.Number)
})
export type Premises = typeof Premises.Type

/**
 * The answer: any keys. Assumed: `{query, count, returned, offset, results: [Premises]}`;
 * all optional since the spec promises only an object.
 */
export const PremisesResponse = open({
  query: nullable(Schema.Unknown),
  count: nullable(Schema.Int),
  returned: nullable(Schema.Int),
  offset: nullable(Schema.Int),
  results: nullable(Schema.Array(Premises))
})
export type PremisesResponse = typeof PremisesResponse.Type

/**
 * Assumed (the spec: "the 200 body accepts any keys"): results under `results`, the total under
 * `count`, `returned` when given; offset pages, and a `next` link followed when an answer carries
 * one (a service paging by links: the pagers follow its paging, not ours). Setting:
 * `service.shapes.ai_search_premises`.
 */
export const PREMISES_SHAPE: ResponseShape = ENVELOPE
