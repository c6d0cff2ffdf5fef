/**
 * references: the ten reference operations of the token host into dimension tables, replaced
 * at the end of each successful run. One slice per call, with stable keys: `features`,
 * `agencies`, `agents`, `conditions`, `types`, `locations` (or `locations|country=ES` per
 * country), `sources|loc=<id>`, `by-coordinates|<lat>,<lon>`, `typeahead|<country>|<query>`,
 * `zipcode|<country>|<zip>`. Each slice tags its records with a `kind`, so `toRows` routes them
 * to their table. A lookup the host answers 404 (unknown place, zip code) is a row with
 * `found = false` rather than a failed run.
 */
import { Effect, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import {
  Agency,
  Agent,
  ByCoordinatesQuery,
  ConditionReference,
  FeatureGroup,
  LocationByCoordinates,
  LocationReference,
  Sources,
  TypeaheadRequest,
  TypeaheadSuggestion,
  TypeReference,
  ZipcodeBoundary,
  ZipcodeBoundaryRequest
} from "../src/service/schema/References.js"
import { intBetween } from "../src/service/schema/Rules.js"
import type { ServiceError } from "../src/service/ServiceError.js"
import { TokenClient, type TokenResponse } from "../src/service/TokenClient.js"
import type { TokenOperation } from "../src/config/Operations.js"
import { countryCode } from "../src/normalize/Countries.js"
import { LOCATIONS, POINTS, STRINGS } from "../src/normalize/records/NestedTypes.js"

const CountryCode = Schema.String.pipe(Schema.filter((c) => /^[A-Z]{2}$/.test(c) || `must be an ISO alpha-2 code, upper case (got "${c}")`))

const Params = Schema.Struct({
  /** Locations tree: one call per country given, or one call for every country (default). */
  location_countries: Schema.optionalWith(Schema.Array(CountryCode), { default: () => [] }),
  /** Location ids whose source domains to land (`sources`). Default none. */
  source_location_ids: Schema.optionalWith(Schema.Array(intBetween(1, 2147483647)), { default: () => [] }),
  /** Points to resolve to a location (`by-coordinates`). Default none. */
  points: Schema.optionalWith(Schema.Array(ByCoordinatesQuery), { default: () => [] }),
  /** Typeahead lookups (`{country: ES|PT, query, limit?}`). Default none. */
  typeahead: Schema.optionalWith(Schema.Array(TypeaheadRequest), { default: () => [] }),
  /** Zip codes whose boundary to land (`{country_code, zip_code}`). Default none. */
  zip_codes: Schema.optionalWith(Schema.Array(ZipcodeBoundaryRequest), { default: () => [] })
})
type Params = typeof Params.Type

/** A reference answer, named by its operation. */
type Answer = TokenResponse<unknown> & { readonly operation: TokenOperation }

/** One call: its slice key, the call, and how its answer becomes tagged records. */
interface Call {
  readonly key: string
  readonly fetch: Effect.Effect<Answer, ServiceError, TokenClient>
  readonly records: (body: unknown) => ReadonlyArray<unknown>
}

const list = (body: unknown): ReadonlyArray<unknown> => (Array.isArray(body) ? body : [])
const tag =
  (kind: string, extra: Record<string, unknown> = {}) =>
  (body: unknown) =>
    list(body).map((record) => ({ kind, record, ...extra }))
const client = <A>(f: (c: TokenClient) => Effect.Effect<TokenResponse<A> & { readonly operation: TokenOperation }, ServiceError>) =>
  Effect.flatMap(TokenClient, f) as Effect.Effect<Answer, ServiceError, TokenClient>

const callsOf = (p: Params): Array<Call> => [
  { key: "features", fetch: client((c) => c.referenceFeatures()), records: tag("feature") },
  { key: "agencies", fetch: client((c) => c.referenceAgencies()), records: tag("agency") },
  { key: "agents", fetch: client((c) => c.referenceAgents()), records: tag("agent") },
  { key: "conditions", fetch: client((c) => c.referenceConditions()), records: tag("condition") },
  { key: "types", fetch: client((c) => c.referenceTypes()), records: tag("type") },
  ...(p.location_countries.length === 0
    ? [{ key: "locations", fetch: client((c) => c.referenceLocations({})), records: tag("location") }]
    : p.location_countries.map((country) => ({
        key: `locations|country=${country}`,
        fetch: client((c) => c.referenceLocations({ country })),
        records: tag("location")
      }))),
  ...p.source_location_ids.map((id) => ({
    key: `sources|loc=${id}`,
    fetch: client((c) => c.referenceSources(id)),
    records: (body: unknown) => (body === null ? [] : [{ kind: "sources", location_id: id, record: body }])
  })),
  ...p.points.map((pt) => ({
    key: `by-coordinates|${pt.latitude},${pt.longitude}`,
    fetch: client((c) => c.locationByCoordinates(pt.latitude, pt.longitude)),
    records: (body: unknown) => [{ kind: "by_coordinates", point: pt, record: body }]
  })),
  ...p.typeahead.map((t) => ({
    key: `typeahead|${t.country}|${t.query}`,
    fetch: client((c) => c.typeahead(t)),
    records: (body: unknown) => list(body).map((record, rank) => ({ kind: "typeahead", country: t.country, query: t.query, rank, record }))
  })),
  ...p.zip_codes.map((z) => ({
    key: `zipcode|${z.country_code}|${z.zip_code}`,
    fetch: client((c) => c.zipcodeBoundary(z)),
    records: (body: unknown) => [{ kind: "zipcode", request: z, record: body }]
  }))
]

/** A 404 of a lookup is an answer ("no such place"), not a failure: the body becomes null. */
const orNotFound = (e: Effect.Effect<Answer, ServiceError, TokenClient>) =>
  Effect.catchIf(
    e,
    (err) => err._tag === "TokenProblem" && err.reason === "not_found",
    () => Effect.succeed<Answer>({ body: null, raw: "", status: 404, operation: "references" })
  )

const Point = Schema.Struct({ latitude: Schema.Number, longitude: Schema.Number })
const RefRecord = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("feature"), record: FeatureGroup }),
  Schema.Struct({ kind: Schema.Literal("agency"), record: Agency }),
  Schema.Struct({ kind: Schema.Literal("agent"), record: Agent }),
  Schema.Struct({ kind: Schema.Literal("condition"), record: ConditionReference }),
  Schema.Struct({ kind: Schema.Literal("type"), record: TypeReference }),
  Schema.Struct({ kind: Schema.Literal("location"), record: LocationReference }),
  Schema.Struct({ kind: Schema.Literal("sources"), location_id: Schema.Number, record: Sources }),
  Schema.Struct({ kind: Schema.Literal("by_coordinates"), point: Point, record: Schema.NullOr(LocationByCoordinates) }),
  Schema.Struct({
    kind: Schema.Literal("typeahead"),
    country: Schema.String,
    query: Schema.String,
    rank: Schema.Number,
    record: TypeaheadSuggestion
  }),
  Schema.Struct({
    kind: Schema.Literal("zipcode"),
    request: Schema.Struct({ country_code: Schema.String, zip_code: Schema.String }),
    record: Schema.NullOr(ZipcodeBoundary)
  })
)
type RefRecord = typeof RefRecord.Type
type Of<K extends RefRecord["kind"]> = Extract<RefRecord, { kind: K }>
type C = PageContext
const replace = <const K extends string>(primaryKey: ReadonlyArray<K>) => ({ primaryKey, disposition: "replace" as const })

const features = flatTable.of<{ group: string; name: string }>()(
  "reference_features",
  { group: "VARCHAR", name: "VARCHAR" },
  replace(["group", "name"])
)
const agencies = flatTable.of<Of<"agency">, C>()(
  "reference_agencies",
  {
    agency_id: ["BIGINT", (r) => r.record.agency_id],
    name: ["VARCHAR", (r) => r.record.name],
    country: ["VARCHAR", (r) => countryCode(r.record.country)]
  },
  replace(["agency_id"])
)
const agents = flatTable.of<Of<"agent">, C>()(
  "reference_agents",
  {
    agent_id: ["BIGINT", (r) => r.record.agent_id],
    name: ["VARCHAR", (r) => r.record.name],
    agency_id: ["BIGINT", (r) => r.record.agency_id]
  },
  replace(["agent_id"])
)
const conditions = flatTable.of<Of<"condition">, C>()(
  "reference_conditions",
  { name: ["VARCHAR", (r) => r.record.name] },
  replace(["name"])
)
const types = flatTable.of<Of<"type">, C>()(
  "reference_types",
  {
    name: ["VARCHAR", (r) => r.record.name],
    group: ["VARCHAR", (r) => r.record.group],
    countries: [STRINGS, (r) => r.record.countries?.map((c) => countryCode(c) ?? c)]
  },
  replace(["name"])
)
const typeCountries = flatTable.of<{ name: string; country: string }>()(
  "reference_type_countries",
  { name: "VARCHAR", country: ["VARCHAR", (r) => countryCode(r.country) ?? r.country] },
  replace(["name", "country"])
)
const locations = flatTable.of<Of<"location">, C>()(
  "reference_locations",
  {
    location_id: ["BIGINT", (r) => r.record.location_id],
    name: ["VARCHAR", (r) => r.record.name],
    administrative_level: ["VARCHAR", (r) => r.record.administrative_level],
    parent_id: ["BIGINT", (r) => r.record.parent_id],
    country: ["VARCHAR", (r) => countryCode(r.record.country)],
    zip_codes: [STRINGS, (r) => r.record.zip_codes]
  },
  { ...replace(["location_id"]), partitionBy: ["country"] }
)
const sources = flatTable.of<{ location_id: number; domain: string }>()(
  "reference_sources",
  { location_id: "BIGINT", domain: "VARCHAR" },
  replace(["location_id", "domain"])
)
const byCoordinates = flatTable.of<Of<"by_coordinates">, C>()(
  "reference_locations_by_coordinates",
  {
    latitude: ["DOUBLE", (r) => r.point.latitude],
    longitude: ["DOUBLE", (r) => r.point.longitude],
    found: ["BOOLEAN", (r) => r.record !== null && r.record.location != null],
    location_id: ["BIGINT", (r) => r.record?.location?.location_id],
    name: ["VARCHAR", (r) => r.record?.location?.name],
    administrative_level: ["VARCHAR", (r) => r.record?.location?.administrative_level],
    locations_structure: [LOCATIONS, (r) => r.record?.locations_structure]
  },
  replace(["latitude", "longitude"])
)
const typeahead = flatTable.of<Of<"typeahead">, C>()(
  "reference_typeahead",
  {
    country: ["VARCHAR", (r) => countryCode(r.country) ?? r.country],
    query: "VARCHAR",
    rank: "INTEGER",
    location_id: ["BIGINT", (r) => r.record.location_id],
    name: ["VARCHAR", (r) => r.record.name],
    administrative_level: ["VARCHAR", (r) => r.record.administrative_level]
  },
  replace(["country", "query", "rank"])
)
const zipcodes = flatTable.of<Of<"zipcode">, C>()(
  "reference_zipcode_boundaries",
  {
    country_code: ["VARCHAR", (r) => countryCode(r.request.country_code) ?? r.request.country_code],
    zip_code: ["VARCHAR", (r) => r.request.zip_code],
    found: ["BOOLEAN", (r) => r.record !== null],
    polygon: [POINTS, (r) => r.record?.polygon]
  },
  replace(["country_code", "zip_code"])
)

const toRows = (r: RefRecord, ctx: C) => {
  switch (r.kind) {
    case "feature":
      return { reference_features: r.record.names.map((name) => features.row({ group: r.record.group, name }, undefined)) }
    case "agency":
      return { reference_agencies: [agencies.row(r, ctx)] }
    case "agent":
      return { reference_agents: [agents.row(r, ctx)] }
    case "condition":
      return { reference_conditions: [conditions.row(r, ctx)] }
    case "type":
      return {
        reference_types: [types.row(r, ctx)],
        reference_type_countries: (r.record.countries ?? []).map((country) =>
          typeCountries.row({ name: r.record.name, country }, undefined)
        )
      }
    case "location":
      return { reference_locations: [locations.row(r, ctx)] }
    case "sources":
      return {
        reference_sources: [...new Set(r.record.domains)].map((domain) => sources.row({ location_id: r.location_id, domain }, undefined))
      }
    case "by_coordinates":
      return { reference_locations_by_coordinates: [byCoordinates.row(r, ctx)] }
    case "typeahead":
      return { reference_typeahead: [typeahead.row(r, ctx)] }
    case "zipcode":
      return { reference_zipcode_boundaries: [zipcodes.row(r, ctx)] }
  }
}

export default definePipeline({
  name: "references",
  description: "The ten reference operations into dimension tables (replaced each run)",
  host: "token",
  params: Params,
  source: fanOut({
    keys: (p: Params) => callsOf(p),
    key: (c) => c.key,
    pager: (call) => single(() => Effect.map(orNotFound(call.fetch), (res) => fetchedOf(res, call.records(res.body)))),
    concurrency: 4
  }),
  cost: {
    operation: "references",
    estimate: (p) => Effect.succeed({ requests: callsOf(p).length, exact: true, note: "one call per reference and per lookup" })
  },
  tables: [
    features.spec,
    agencies.spec,
    agents.spec,
    conditions.spec,
    types.spec,
    typeCountries.spec,
    locations.spec,
    sources.spec,
    byCoordinates.spec,
    typeahead.spec,
    zipcodes.spec
  ],
  records: { table: "reference_features", schema: RefRecord, toRows },
  shardable: false
})
