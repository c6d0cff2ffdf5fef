/**
 * market-distributions: the four Area Insights distributions (bedrooms, prices, properties,
 * time on market) per location id, one request each (`loc=123|dist=prices`). Each lands in its
 * own table keyed by location, the request scope (types, business type, filter) and the snapshot
 * date (the run's extraction day, UTC): `market_bedrooms_distribution`,
 * `market_prices_distribution`, `market_properties_distribution` (the light sample) with
 * `market_properties_quartiles`, and `market_time_on_market_distribution`. Merged, so a rerun on
 * the same day replaces that day's buckets and other days are kept as history.
 */
import { Effect, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { BedroomsBucket, PriceBucket, PropertiesDistribution, TimeOnMarketBucket } from "../src/service/schema/Distributions.js"
import type { ServiceError } from "../src/service/ServiceError.js"
import { TokenClient, type TokenResponse } from "../src/service/TokenClient.js"
import type { TokenBody } from "../src/service/TokenRequests.js"
import type { TokenOperation } from "../src/config/Operations.js"
import {
  MARKET_CURRENCY,
  LocationScope,
  marketBody,
  Scope,
  SCOPE_KEY,
  scopeColumns,
  scopeOf
} from "../src/normalize/records/MarketScope.js"
import { MONEY } from "../src/normalize/records/NestedTypes.js"

const DistRecord = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("bedrooms"), scope: Scope, seq: Schema.Number, bucket: BedroomsBucket }),
  Schema.Struct({ kind: Schema.Literal("prices"), scope: Scope, seq: Schema.Number, bucket: PriceBucket }),
  Schema.Struct({ kind: Schema.Literal("time_on_market"), scope: Scope, seq: Schema.Number, bucket: TimeOnMarketBucket }),
  Schema.Struct({ kind: Schema.Literal("properties"), scope: Scope, body: PropertiesDistribution })
)
type DistRecord = typeof DistRecord.Type
type Of<K extends DistRecord["kind"]> = Extract<DistRecord, { kind: K }>

const bedrooms = flatTable.of<Of<"bedrooms">, PageContext>()(
  "market_bedrooms_distribution",
  {
    ...scopeColumns<Of<"bedrooms">>(),
    bedrooms: ["INTEGER", (r) => r.bucket.bedrooms],
    count: ["BIGINT", (r) => r.bucket.count],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: [...SCOPE_KEY, "bedrooms"], disposition: "merge" }
)

// Buckets without a natural key are keyed by their position in the answer.
const prices = flatTable.of<Of<"prices">, PageContext>()(
  "market_prices_distribution",
  {
    ...scopeColumns<Of<"prices">>(),
    seq: "INTEGER",
    min: [MONEY, (r) => r.bucket.min],
    max: [MONEY, (r) => r.bucket.max],
    currency: ["VARCHAR", () => MARKET_CURRENCY],
    count: ["BIGINT", (r) => r.bucket.count],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: [...SCOPE_KEY, "seq"], disposition: "merge" }
)

const timeOnMarket = flatTable.of<Of<"time_on_market">, PageContext>()(
  "market_time_on_market_distribution",
  {
    ...scopeColumns<Of<"time_on_market">>(),
    seq: "INTEGER",
    min_price: [MONEY, (r) => r.bucket.min_price],
    max_price: [MONEY, (r) => r.bucket.max_price],
    currency: ["VARCHAR", () => MARKET_CURRENCY],
    days: ["DOUBLE", (r) => r.bucket.days],
    months: ["DOUBLE", (r) => r.bucket.months],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: [...SCOPE_KEY, "seq"], disposition: "merge" }
)

const quartiles = flatTable.of<Of<"properties">, PageContext>()(
  "market_properties_quartiles",
  {
    ...scopeColumns<Of<"properties">>(),
    q1: ["DOUBLE", (r) => r.body.quartiles.q1],
    q2: ["DOUBLE", (r) => r.body.quartiles.q2],
    q3: ["DOUBLE", (r) => r.body.quartiles.q3],
    sample_size: ["INTEGER", (r) => r.body.properties.length],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: [...SCOPE_KEY], disposition: "merge" }
)

type Sample = { readonly scope: Scope; readonly p: PropertiesDistribution["properties"][number] }
const sample = flatTable.of<Sample, PageContext>()(
  "market_properties_distribution",
  {
    ...scopeColumns<Sample>(),
    property_id: ["BIGINT", (r) => r.p.property_id],
    price: [MONEY, (r) => r.p.price],
    price_per_sqm: [MONEY, (r) => r.p.price_per_sqm],
    currency: ["VARCHAR", () => MARKET_CURRENCY],
    total_area: ["DOUBLE", (r) => r.p.total_area],
    bedrooms: ["INTEGER", (r) => r.p.bedrooms],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt]
  },
  { primaryKey: [...SCOPE_KEY, "property_id"], disposition: "merge" }
)

const KINDS = ["bedrooms", "prices", "properties", "time_on_market"] as const
type Kind = (typeof KINDS)[number]

/** An answer with its records and the operation that gave it. */
type Answer = TokenResponse<unknown> & { readonly records: ReadonlyArray<unknown>; readonly operation: TokenOperation }

/** The answer's records: a bucket list (read through its shape), or the properties distribution's one object. */
const call = (kind: Kind, body: TokenBody<"marketFilter">): Effect.Effect<Answer, ServiceError, TokenClient> =>
  Effect.flatMap(TokenClient, (c): Effect.Effect<Answer, ServiceError> =>
    kind === "properties"
      ? Effect.map(c.distributionProperties(body), (r) => ({ ...r, records: [r.body] }))
      : Effect.map(
          kind === "bedrooms"
            ? c.distributionBedrooms(body)
            : kind === "prices"
              ? c.distributionPrices(body)
              : c.distributionTimeOnMarket(body),
          (r) => ({ ...r, records: r.page.records })
        )
  )

export default definePipeline({
  name: "market-distributions",
  description: "Area Insights distributions (bedrooms, prices, properties, time on market) per location",
  host: "token",
  params: LocationScope,
  source: fanOut({
    keys: (p: LocationScope) => p.location_ids.flatMap((id) => KINDS.map((kind) => ({ id, kind }))),
    key: ({ id, kind }) => `loc=${id}|dist=${kind}`,
    pager: ({ id, kind }, p) =>
      single(() =>
        Effect.map(call(kind, marketBody(p, id)), (res) => {
          const scope = scopeOf(p, id)
          const records: ReadonlyArray<unknown> =
            kind === "properties"
              ? res.records.map((body) => ({ kind, scope, body }))
              : res.records.map((bucket, seq) => ({ kind, scope, seq, bucket }))
          return fetchedOf(res, records, { empty: res.status === 204 })
        })
      ),
    concurrency: 4
  }),
  cost: {
    operation: "market_distributions",
    estimate: (p) => Effect.succeed({ requests: p.location_ids.length * KINDS.length, exact: true, note: "4 distributions per location" })
  },
  tables: [bedrooms.spec, prices.spec, sample.spec, quartiles.spec, timeOnMarket.spec],
  records: {
    table: "market_bedrooms_distribution",
    schema: DistRecord,
    toRows: (r, ctx) => {
      switch (r.kind) {
        case "bedrooms":
          return { market_bedrooms_distribution: [bedrooms.row(r, ctx)] }
        case "prices":
          return { market_prices_distribution: [prices.row(r, ctx)] }
        case "time_on_market":
          return { market_time_on_market_distribution: [timeOnMarket.row(r, ctx)] }
        case "properties":
          return {
            market_properties_quartiles: [quartiles.row(r, ctx)],
            market_properties_distribution: r.body.properties.map((p) => sample.row({ scope: r.scope, p }, ctx))
          }
      }
    }
  },
  shardable: true
})
