/**
 * sourcing-search: Property Sourcing structured search (`POST /v1/property-sourcing/searches`,
 * then each `next` cursor page), sliced by place so several cursors run at once. Lands
 * `sourcing_properties` (one row per property, merged by `id`, partitioned by country) and
 * `sourcing_property_agencies` (the agencies advertising it, linked by `id`).
 *
 * Not incremental: the spec shows no sort order and no "changed since" member for this search
 * (its request and response are "not shown"), so every run buys every page again. Recommended
 * (docs/SCHEDULING.md): it is in the `weekly` set (the full pull); in the change-driven `nightly`
 * set, `properties-changed` reads again, for free, the properties the alerts say changed.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { cursor } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { fanOut, fullReadPlan, pagesOf } from "../src/extract/Sources.js"
import { searchRows, sourcingAgenciesTable, sourcingPropertiesTable } from "../src/normalize/records/SourcingRows.js"
import { definePipeline } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import type { PlatformBody } from "../src/service/PlatformRequests.js"
import { SourcingProperty, SourcingSearchRequest } from "../src/service/schema/Sourcing.js"

const fields = SourcingSearchRequest.from.fields

/** A place: a country, optionally narrowed to location ids (one slice, one cursor). */
export const Place = Schema.Struct({ country: fields.country, location_ids: fields.location_ids })
export type Place = typeof Place.Type

const Params = Schema.Struct({
  /** One country (one slice); or use `places`. */
  country: Schema.optional(fields.country),
  /** Places searched side by side, one slice each: `[{country, location_ids?}]`. */
  places: Schema.optional(Schema.Array(Place).pipe(Schema.minItems(1))),
  /** `sale` or `rent`. Default sale. */
  operation: Schema.optionalWith(fields.operation, { default: () => "sale" as const }),
  /** Property types of one group. */
  types: fields.types,
  price_min: fields.price_min,
  price_max: fields.price_max,
  area_min: fields.area_min,
  area_max: fields.area_max,
  bedrooms_min: fields.bedrooms_min,
  /** Page size, 1 to 200 (Assumed maximum). Default 200. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 200)), { default: () => 200 }),
  /**
   * At most this many pages per place: a sample (a place cut by it is incomplete unless the run
   * is a sample, `--sample`). Default none: the service's next link ends a place's read.
   */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 1_000_000))),
  /** Places fetched at once. Default 4. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 4 })
}).pipe(
  Schema.filter((p) => {
    if ((p.country === undefined) === (p.places === undefined)) {
      return { path: ["places"], message: "exactly one of country or places is required" }
    }
    const keys = new Set<string>()
    for (const [i, place] of placesOf(p).entries()) {
      const key = placeKey(place)
      if (keys.has(key)) return { path: ["places", i], message: `the place ${key} is listed twice` }
      keys.add(key)
      // The whole request body, checked by the client's own rules (price_min <= price_max...).
      const body = Schema.validateEither(SourcingSearchRequest)(bodyOf(p, place, p.pageSize))
      if (Either.isLeft(body)) {
        const issue = ParseResult.ArrayFormatter.formatErrorSync(body.left)[0]
        return { path: issue?.path ?? [], message: issue?.message ?? "not a valid search" }
      }
    }
    return true
  })
)
type Params = typeof Params.Type

const placesOf = (p: { country?: Place["country"] | undefined; places?: ReadonlyArray<Place> | undefined }): ReadonlyArray<Place> =>
  p.places ?? (p.country !== undefined ? [{ country: p.country }] : [])

/** Stable slice key: `ES` or `ES:123,456` (location ids sorted). */
export const placeKey = (place: Place): string =>
  place.location_ids && place.location_ids.length > 0
    ? `${place.country}:${[...place.location_ids].sort((a, b) => a - b).join(",")}`
    : place.country

const bodyOf = (p: Omit<Params, "places" | "country" | "pageSize" | "maxPages" | "concurrency">, place: Place, limit: number) => {
  // the members in the order the body always had (an archived answer is found by its request)
  const body: PlatformBody<"sourcingSearch"> = {
    country: place.country,
    operation: p.operation,
    limit,
    ...(place.location_ids ? { location_ids: place.location_ids } : {}),
    ...(p.types !== undefined ? { types: p.types } : {}),
    ...(p.price_min !== undefined ? { price_min: p.price_min } : {}),
    ...(p.price_max !== undefined ? { price_max: p.price_max } : {}),
    ...(p.area_min !== undefined ? { area_min: p.area_min } : {}),
    ...(p.area_max !== undefined ? { area_max: p.area_max } : {}),
    ...(p.bedrooms_min !== undefined ? { bedrooms_min: p.bedrooms_min } : {})
  }
  return body
}

const main = sourcingPropertiesTable()
const agencies = sourcingAgenciesTable()

export default definePipeline({
  name: "sourcing-search",
  description: "Property Sourcing structured search by place (cursor pages), with each property's agencies",
  host: "platform",
  params: Params,
  source: fanOut({
    keys: (p: Params) => placesOf(p),
    key: placeKey,
    concurrency: (p) => p.concurrency,
    pager: (place, p: Params) =>
      cursor({
        maxPages: p.maxPages,
        first: () =>
          Effect.flatMap(PlatformClient, (c) => c.sourcingSearch(bodyOf(p, place, p.pageSize))).pipe(Effect.map((r) => pageOf(r))),
        follow: (next) => Effect.flatMap(PlatformClient, (c) => c.sourcingNext(next)).pipe(Effect.map((r) => pageOf(r)))
      })
  }),
  cost: {
    // The first page is `sourcing_search`, the others `sourcing_next`: 1 unit each (Assumed).
    operation: "sourcing_search",
    estimate: (p) =>
      Effect.map(fullReadPlan(placesOf(p).map(placeKey), { maxPages: p.maxPages, pageSize: p.pageSize }), (last) => {
        const places = placesOf(p).length
        const pages = last.pages
        return {
          requests: pages,
          exact: false,
          note:
            p.maxPages !== undefined
              ? `at most ${pagesOf(p.maxPages, p.pageSize)} for each of ${places} place(s)`
              : `${pagesOf(pages, p.pageSize)} for ${places} place(s)${last.known < places ? ` (${places - last.known} never read in full: one page each until their count says more)` : ", as the last full read"}`
        }
      })
  },
  tables: [main.spec, agencies.spec],
  records: { table: main.spec.name, schema: SourcingProperty, toRows: searchRows(main, agencies) },
  // each place is a slice (its key: the country and location ids)
  scopeIgnores: ["places", "country"],
  shardable: true
})
