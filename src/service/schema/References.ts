/**
 * References of the token host: features, sources, agencies, agents, conditions, types,
 * locations, by-coordinates, typeahead and zip-code boundary, with their requests.
 * Only features and sources are shown by the spec; the rest follow docs/ASSUMPTIONS.md.
 */
import { Schema } from "effect"
import { Int, nullable, open, Str } from "./Open.js"
import { intBetween, LatLon, oneOf, show } from "./Rules.js"
import { Coordinates, Location } from "./Shared.js"

/** GET /api/v1/references/features item: a group (floor, orientation, ...) and its names. */
export const FeatureGroup = open({ group: Str, names: Schema.Array(Str) })
export const FeatureGroups = Schema.Array(FeatureGroup)

/** GET /api/v1/references/sources?locationId=: the source domains of a location. */
export const Sources = open({ domains: Schema.Array(Str) })
export const SourcesQuery = Schema.Struct({ locationId: intBetween(1, 2147483647) })

/** Assumed: agencies `[{agency_id, name, country}]`. */
export const Agency = open({ agency_id: Int, name: Str, country: nullable(Str) })
export const Agencies = Schema.Array(Agency)

/** Assumed: agents `[{agent_id, name, agency_id}]`. */
export const Agent = open({ agent_id: Int, name: Str, agency_id: nullable(Int) })
export const Agents = Schema.Array(Agent)

/** Assumed: conditions `[{name}]`. */
export const ConditionReference = open({ name: Str })
export const Conditions = Schema.Array(ConditionReference)

/** Assumed: types `[{name, group, countries}]` (country availability as ISO alpha-2 codes). */
export const TypeReference = open({ name: Str, group: nullable(Str), countries: nullable(Schema.Array(Str)) })
export const TypeReferences = Schema.Array(TypeReference)

const CountryCode = Str.pipe(
  Schema.filter((c) => /^[A-Z]{2}$/.test(c) || `must be an ISO 3166-1 alpha-2 code, upper case (got ${show(c)})`)
)

/** Assumed: POST /api/v1/references/locations body `{country?, parent_id?, level?}`. */
export const LocationsRequest = Schema.Struct({
  country: Schema.optional(CountryCode),
  parent_id: Schema.optional(intBetween(1, 2147483647)),
  level: Schema.optional(Str)
})
/** Assumed: a location of the reference list: the location object plus `parent_id` and `country`. */
export const LocationReference = open({
  ...Location.fields,
  parent_id: nullable(Int),
  country: nullable(Str)
})
export const LocationReferences = Schema.Array(LocationReference)

/** Assumed: GET /api/v1/references/locations/by-coordinates?latitude&longitude. */
export const ByCoordinatesQuery = LatLon
/** Assumed: `{location, locations_structure}`. */
export const LocationByCoordinates = open({
  location: nullable(Location),
  locations_structure: nullable(Schema.Array(Location))
})

/** Assumed: POST /api/v1/references/locations/typeahead body; one country, ES or PT. */
export const TypeaheadRequest = Schema.Struct({
  country: oneOf(["ES", "PT"]),
  query: Str.pipe(Schema.filter((q) => q.trim().length > 0 || "must not be empty")),
  limit: Schema.optional(intBetween(1, 500))
})
/** Assumed: `[{location_id, name, administrative_level}]`. */
export const TypeaheadSuggestion = open({
  location_id: Int,
  name: Str,
  administrative_level: nullable(Str)
})
export const TypeaheadSuggestions = Schema.Array(TypeaheadSuggestion)

/** Assumed: POST /api/v1/references/zipcode-boundary body `{country_code, zip_code}`. */
export const ZipcodeBoundaryRequest = Schema.Struct({
  country_code: CountryCode,
  zip_code: Str.pipe(Schema.filter((z) => z.trim().length > 0 || "must not be empty"))
})
/** Assumed: `{country_code, zip_code, polygon: [{latitude, longitude}]}`. */
export const ZipcodeBoundary = open({
  country_code: Str,
  zip_code: Str,
  polygon: Schema.Array(Coordinates)
})
export type ZipcodeBoundary = typeof ZipcodeBoundary.Type
