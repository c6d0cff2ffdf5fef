/**
 * Ground truth of every catalogue pipeline over one small sandbox world: test parameters that
 * need a few pages (page size 50 where the pipeline pages over enough records, so a dialect's page
 * cap of 37 matters; smaller where the world holds few, e.g. seller leads and alerts-api feeds),
 * and what the pipeline's tables must hold afterwards, computed from the world itself (never from
 * the client).
 *
 * A truth is exact: the set of primary-key values (as text) of the main table and, where cheap,
 * of key child tables, plus exact row counts where keys are not meaningful. By-key pipelines
 * (properties-by-id, sourcing-properties, sourcing-resolve) take the dialect into account: keys
 * the dialect's `missingEvery` hides (`isMissingKey`, tested on the key string each route tests)
 * are not in the tables and are exactly the `_missing` rows; each also holds one key the world
 * never knew, which is `_missing` in every dialect.
 *
 * Pipelines that read keys from an earlier table by default get explicit keys, so each run is
 * independent of the others.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { DialectFlags } from "../../src/config/Dialect.js"
import { BIG_ID_OFFSET, isMissingKey } from "../../src/sandbox/Dialect.js"
import { phrasesToFilter } from "../../src/sandbox/platform/SourcingRequest.js"
import type { World } from "../../src/sandbox/world/World.js"
import { snapDateRange } from "../../src/service/schema/TimeSeries.js"

/** The one world of the matrix: small, so 20 pipelines x 11 dialect runs stay fast. */
export const TRUTH_WORLD = { properties: 1500, plots: 300, premises: 300 } as const

/** What the truth of a run depends on besides the world. */
export interface TruthContext {
  readonly world: World
  /** The sandbox clock (ms): the instant every answer is computed at. */
  readonly now: number
  /** The dialect the sandbox speaks (only `missingEvery` changes a truth). */
  readonly dialect: DialectFlags
  /** A folder for input files (CSV). */
  readonly dir: string
  /** Feeds created before the runs: legacy ids and alerts-api `feed_<n>` ids. */
  readonly feeds: { readonly legacy: ReadonlyArray<number>; readonly alertsApi: ReadonlyArray<string> }
}

/**
 * A table's exact content: one key per row, the values of the `select` list (SQL, one row of the
 * table) as JavaScript writes them, joined by `|` (null as `null`).
 */
export interface TableTruth {
  readonly table: string
  readonly select: string
  readonly keys: ReadonlyArray<string>
}

/** An exact number of rows (`sql` answers one row with a column `n`). */
export interface CountTruth {
  readonly label: string
  readonly sql: string
  readonly expected: number
}

export interface Truth {
  readonly tables: ReadonlyArray<TableTruth>
  readonly counts: ReadonlyArray<CountTruth>
  /** Exactly the `_missing` keys of the run (slice keys). */
  readonly missing: ReadonlyArray<string>
}

export interface PipelineCase {
  readonly pipeline: string
  readonly host: "platform" | "token"
  /**
   * How it pages: `cursor` follows next links (alert-feeds: one legacy list, then the alerts-api
   * cursor); the others page by offset, by time window, or not at all.
   */
  readonly paging: "offset" | "cursor" | "windows" | "single" | "single+cursor"
  /**
   * Operations whose payload the spec marks "not shown" (the dialect's `resultsKey` renames their
   * list): the `service.shapes` entries a settings fix needs.
   */
  readonly unshownOperations: ReadonlyArray<string>
  readonly params: (ctx: TruthContext) => Record<string, unknown>
  readonly truth: (ctx: TruthContext) => Truth
  /** Whether a slice of the run takes more than one page (a stale second page then cuts it). */
  readonly pages: 1 | "more"
  /** Platform pipelines: the page size asked for and the most a page costs (what units buy). */
  readonly paid?: { readonly pageSize: number; readonly unitsPerPage: number }
}

/** An alert id as the dialect writes it (`bigIds`: beyond 2^53, every digit kept). */
const alertKey = (dialect: DialectFlags, id: number): string => (dialect.bigIds ? (BigInt(id) + BIG_ID_OFFSET).toString() : String(id))

const table = (name: string, select: string, keys: Iterable<string | number>): TableTruth => ({
  table: name,
  select,
  keys: [...keys].map(String)
})
const count = (label: string, expected: number): CountTruth => ({ label, sql: `SELECT count(*)::INTEGER AS n FROM ${label}`, expected })
const sum = <A>(xs: ReadonlyArray<A>, f: (a: A) => number) => xs.reduce((s, x) => s + f(x), 0)

// ---------------------------------------------------------------------------------------------
// Parameters shared by params and truth

const PLOT_CRITERIA = {} // the default commercial-use levels: 88 plots in this world
const PLOT_PAGE = 50
const SOURCING_PLACES = [{ country: "PT" }, { country: "CY" }] as const // 102 and 18 for sale
const SOURCING_PAGE = 50
const DESCRIBE = { tags: ["for sale"], country: "IT", pageSize: 50 } // 116 matches
const LEAD_POINTS = [
  { name: "Madrid", latitude: 40.42, longitude: -3.7 },
  { name: "Paris", latitude: 48.86, longitude: 2.35 },
  { name: "Barcelona", latitude: 41.39, longitude: 2.17 }
]
const LEAD_CRITERIA = { radius_km: 50, min_price_cuts: 1, min_price_cut_pct: 1 }
const LEAD_PAGE = 5 // 24 leads in all: several pages a point
const PREMISES_QUERY = { operation: "sale" as const } // 126 premises
const PREMISES_BODY = { ...PREMISES_QUERY, limit: 50 }
const PREMISES_MAX_PAGES = 20
const TOKEN_SEARCH = { operation: "sale" as const, types: ["apartment"] } // 112 matches
const TOKEN_PAGE = 50
const ALERTS_SINCE = "2026-05-30T00:00:00Z" // 100 alerts up to the sandbox's now
const ALERTS_PAGE = 50
const ALERT_SEARCH = { alert_subtypes: ["new", "price_down"], created_at_from: "2026-05-28T00:00:00" } // 108 alerts
const ALERT_SEARCH_PAGE = 50
const FEEDS_PAGE = 2
const MARKET_TYPES = ["apartment", "penthouse"]
const TS_RANGE = { min: "2026-01-07", max: "2026-05-20" }
const TS_POINTS = ["avg_price", "new"]
const COMPARABLE_TYPES = ["apartment", "penthouse", "duplex", "studio"]

/**
 * Every 103rd property: 14 keys spread over the world (indexes below 1,500); `missingEvery: 7`
 * hides 3 of their property ids and 6 of their `prop_` ids.
 */
const SPREAD = Array.from({ length: 14 }, (_, i) => i * 103)
/** A property id the world never had (ids are large; see World.propertyIdOf). */
const UNKNOWN_PROPERTY_ID = 1

const spread = (w: World) => {
  if (SPREAD.some((i) => i >= w.size)) throw new Error(`the spread keys need a world of more than ${Math.max(...SPREAD)} properties`)
  return SPREAD
}
const propertyIds = (w: World) => spread(w).map((i) => w.propertyIdOf(i))
const sourcingIds = (w: World) => spread(w).map((i) => w.sourcingProperty(i).id)
const UNKNOWN_SOURCING_ID = "prop_1"

/** Inputs of sourcing-resolve: the primary listing id of each spread property, and one unknown URL. */
const resolveInputs = (w: World) => [
  ...spread(w).map((i) => ({ kind: "listing_id", value: String(w.listingIdsOf(i)[0]!), index: i as number | undefined })),
  { kind: "url", value: "https://nowhere.example/listing/none", index: undefined }
]

const esMunicipalitiesWithSeries = (ctx: TruthContext, n: number) =>
  ctx.world.locations
    .filter((l) => l.country === "ES" && l.administrative_level === "municipality")
    .filter((l) => seriesOf(ctx, l.location_id, "avg_price").length > 0)
    .slice(0, n)
    .map((l) => l.location_id)

const seriesOf = (ctx: TruthContext, id: number, dataPoint: string) =>
  ctx.world.timeSeries(
    {
      types: MARKET_TYPES,
      business_type: "sale",
      custom_location_boundary: { location_ids: [id] },
      data_point: dataPoint,
      date_interval: "month",
      date_range: snapDateRange(TS_RANGE)
    } as never,
    ctx.now
  )

const esRegions = (w: World) =>
  w.locations
    .filter((l) => l.country === "ES" && l.administrative_level === "region")
    .slice(0, 2)
    .map((l) => l.location_id)
const ptMunicipalities = (w: World) =>
  w.locations
    .filter((l) => l.country === "PT" && l.administrative_level === "municipality")
    .slice(0, 3)
    .map((l) => l.location_id)

const referenceDistrict = (w: World) =>
  w.locations.find((l) => l.country === "ES" && l.administrative_level === "district" && l.zip_codes.length > 0)!

const comparableTargets = (w: World) =>
  Array.from({ length: 3 }, (_, i) => {
    const p = w.property(i * 11)
    return { id: `t${i}`, latitude: p.coordinates.latitude, longitude: p.coordinates.longitude }
  })

const tokenProperties = (ctx: TruthContext, indexes: Iterable<number>) => [...indexes].map((i) => ctx.world.property(i, ctx.now))

/** History items with a start date (each is one history row). */
const dated = (items: ReadonlyArray<{ readonly date_start?: string | null }> | undefined) =>
  (items ?? []).filter((h) => h.date_start).length

/** The rows a list of property records lands: properties, listings, price and status histories. */
const propertyTruth = (records: ReadonlyArray<ReturnType<World["property"]>>): Pick<Truth, "tables" | "counts"> => ({
  tables: [
    table(
      "properties",
      "property_id",
      records.map((p) => p.property_id)
    )
  ],
  counts: [
    count(
      "property_listings",
      sum(records, (p) => p.listings?.length ?? 0)
    ),
    count(
      "property_price_history",
      sum(records, (p) => dated(p.sale_price_history) + dated(p.rent_price_history))
    ),
    count(
      "property_status_history",
      sum(records, (p) => dated(p.sale_status_history) + dated(p.rent_status_history))
    )
  ]
})

// ---------------------------------------------------------------------------------------------
// The cases

export const CASES: ReadonlyArray<PipelineCase> = [
  {
    pipeline: "plots-germany",
    pages: "more",
    paid: { pageSize: PLOT_PAGE, unitsPerPage: 1 },
    host: "platform",
    paging: "offset",
    unshownOperations: [],
    params: () => ({ criteria: PLOT_CRITERIA, pageSize: PLOT_PAGE }),
    truth: ({ world }) => {
      const plots = world.searchPlots(PLOT_CRITERIA as never)
      return {
        tables: [
          table(
            "plots",
            "id",
            plots.map((p) => p.id)
          )
        ],
        counts: [
          count(
            "plot_agency_links",
            sum(plots, (p) => p.agency_links?.length ?? 0)
          )
        ],
        missing: []
      }
    }
  },
  {
    pipeline: "sourcing-search",
    pages: "more",
    paid: { pageSize: SOURCING_PAGE, unitsPerPage: 1 },
    host: "platform",
    paging: "cursor",
    unshownOperations: ["sourcing_search", "sourcing_next"],
    params: () => ({ places: SOURCING_PLACES, operation: "sale", pageSize: SOURCING_PAGE, maxPages: 20, concurrency: 2 }),
    truth: ({ world, now }) => {
      const all = SOURCING_PLACES.flatMap((p) => world.searchProperties({ ...p, operation: "sale" }, 0, 1_000_000, now).results)
      return {
        tables: [
          table(
            "sourcing_properties",
            "id",
            all.map((p) => p.id)
          )
        ],
        counts: [
          count(
            "sourcing_property_agencies",
            sum(all, (p) => p.agencies.length)
          )
        ],
        missing: []
      }
    }
  },
  {
    pipeline: "sourcing-describe",
    pages: "more",
    paid: { pageSize: DESCRIBE.pageSize, unitsPerPage: 2 },
    host: "platform",
    paging: "cursor",
    unshownOperations: ["sourcing_describe", "sourcing_next"],
    params: () => ({ ...DESCRIBE, maxPages: 20 }),
    truth: ({ world, now }) => {
      const filter = phrasesToFilter(DESCRIBE.tags, { country: DESCRIBE.country })
      const all = world.searchProperties(filter, 0, 1_000_000, now).results
      return {
        tables: [
          table(
            "sourcing_describe_results",
            "id",
            all.map((p) => p.id)
          )
        ],
        counts: [],
        missing: []
      }
    }
  },
  {
    pipeline: "sourcing-properties",
    pages: 1,
    paid: { pageSize: 1, unitsPerPage: 1 },
    host: "platform",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({ ids: [...sourcingIds(world), UNKNOWN_SOURCING_ID], concurrency: 4 }),
    truth: ({ world, dialect }) => {
      // the route tests the `prop_` id of its path
      const ids = sourcingIds(world)
      const hidden = ids.filter((id) => isMissingKey(dialect, id))
      return {
        tables: [
          table(
            "sourcing_property_details",
            "id",
            ids.filter((id) => !hidden.includes(id))
          )
        ],
        counts: [],
        missing: [...hidden, UNKNOWN_SOURCING_ID]
      }
    }
  },
  {
    pipeline: "sourcing-resolve",
    pages: 1,
    paid: { pageSize: 1, unitsPerPage: 1 },
    host: "platform",
    paging: "single",
    unshownOperations: [],
    params: ({ world, dir }) => {
      const file = path.join(dir, "resolve-inputs.csv")
      fs.writeFileSync(file, ["kind,value", ...resolveInputs(world).map((i) => `${i.kind},${i.value}`)].join("\n") + "\n")
      return { file, concurrency: 4 }
    },
    truth: ({ world, now, dialect }) => {
      // the route tests the `prop_` id an input resolved to; an input that resolves to nothing
      // (or to a hidden property) is a row with a null property_id and a `_missing` row
      const rows = resolveInputs(world).map((i) => {
        const id = i.index === undefined ? null : world.sourcingDetail(i.index, now).id
        const found = id !== null && !isMissingKey(dialect, id)
        return { kind: i.kind, value: i.value, key: `${i.kind}:${i.value}`, propertyId: found ? id : null }
      })
      return {
        tables: [
          table(
            "sourcing_resolutions",
            "input_kind, input_value, property_id",
            rows.map((r) => `${r.kind}|${r.value}|${r.propertyId ?? "null"}`)
          )
        ],
        counts: [],
        missing: rows.filter((r) => r.propertyId === null).map((r) => r.key)
      }
    }
  },
  {
    pipeline: "seller-leads",
    pages: "more",
    paid: { pageSize: LEAD_PAGE, unitsPerPage: 1 },
    host: "platform",
    paging: "offset",
    unshownOperations: ["seller_leads"],
    params: () => ({ points: LEAD_POINTS, ...LEAD_CRITERIA, pageSize: LEAD_PAGE, maxPages: 50, concurrency: 2 }),
    truth: ({ world, now }) => {
      const byId = new Map(
        LEAD_POINTS.flatMap((p) =>
          world.sellerLeads({ latitude: p.latitude, longitude: p.longitude, ...LEAD_CRITERIA, nowMs: now }).map((l) => [l.id, l] as const)
        )
      )
      const leads = [...byId.values()]
      return {
        tables: [
          table(
            "seller_leads",
            "id",
            leads.map((l) => l.id)
          )
        ],
        counts: [
          count(
            "seller_lead_price_history",
            sum(leads, (l) => l.price_history.length)
          ),
          count(
            "seller_lead_status_history",
            sum(leads, (l) => l.status_history.length)
          )
        ],
        missing: []
      }
    }
  },
  {
    pipeline: "premises-search",
    pages: "more",
    paid: { pageSize: PREMISES_BODY.limit, unitsPerPage: 40 },
    host: "platform",
    paging: "offset",
    unshownOperations: ["ai_search_premises"],
    params: () => ({ body: PREMISES_BODY, maxPages: PREMISES_MAX_PAGES }),
    truth: ({ world }) => ({
      tables: [
        table(
          "premises",
          "id",
          world.searchPremises(PREMISES_QUERY).map((p) => p.id)
        )
      ],
      counts: [],
      missing: []
    })
  },
  {
    pipeline: "references",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => {
      const district = referenceDistrict(world)
      return {
        location_countries: ["PT"],
        source_location_ids: [district.location_id],
        points: [world.locationCenter(district.location_id)!, { latitude: -60, longitude: -150 }],
        typeahead: [{ country: "ES", query: district.name.slice(0, 3) }],
        zip_codes: [
          { country_code: "ES", zip_code: district.zip_codes[0]! },
          { country_code: "ES", zip_code: "no-such-zip" }
        ]
      }
    },
    truth: ({ world: w }) => {
      const district = referenceDistrict(w)
      const center = w.locationCenter(district.location_id)!
      return {
        tables: [
          table(
            "reference_locations",
            "location_id",
            w.locations.filter((l) => l.country === "PT").map((l) => l.location_id)
          ),
          table(
            "reference_agencies",
            "agency_id",
            w.agencies.map((a) => a.agency_id)
          ),
          table("reference_locations_by_coordinates", "found, location_id", [
            "false|null",
            `true|${w.locationByCoordinates(center)!.location_id}`
          ]),
          table("reference_zipcode_boundaries", "zip_code, found", [`${district.zip_codes[0]}|true`, "no-such-zip|false"])
        ],
        counts: [
          count("reference_features", new Set(w.featureGroups.flatMap((g) => g.names.map((n) => `${g.group}/${n}`))).size),
          count("reference_agents", w.agents.length),
          count("reference_conditions", w.conditions.length),
          count("reference_types", w.types.length),
          count(
            "reference_type_countries",
            sum(w.types, (t) => t.countries.length)
          ),
          count("reference_sources", new Set(w.sources(district.location_id)).size),
          count("reference_typeahead", w.typeahead("ES", district.name.slice(0, 3), 10).length)
        ],
        missing: []
      }
    }
  },
  {
    pipeline: "market-time-series",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: (ctx) => ({
      location_ids: esMunicipalitiesWithSeries(ctx, 3),
      types: MARKET_TYPES,
      business_type: "sale",
      data_points: TS_POINTS,
      date_interval: "month",
      date_range: TS_RANGE
    }),
    truth: (ctx) => {
      const ids = esMunicipalitiesWithSeries(ctx, 3)
      const keys = ids.flatMap((id) =>
        TS_POINTS.flatMap((dp) => seriesOf(ctx, id, dp).map((p) => `${id}|${dp}|${p.date_start}|${p.value}`))
      )
      return {
        tables: [table("market_time_series", "location_id, data_point, CAST(date_start AS VARCHAR) AS date_start, value", keys)],
        counts: [count("market_time_series_requests", ids.length * TS_POINTS.length)],
        missing: []
      }
    }
  },
  {
    pipeline: "market-distributions",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({ location_ids: esRegions(world), types: MARKET_TYPES, business_type: "sale" }),
    truth: ({ world, now }) => {
      const ids = esRegions(world)
      const f = (id: number) => ({ types: MARKET_TYPES, business_type: "sale", custom_location_boundary: { location_ids: [id] } }) as never
      return {
        tables: [
          table(
            "market_bedrooms_distribution",
            "location_id, bedrooms, count",
            ids.flatMap((id) => world.bedroomsDistribution(f(id), now).map((b) => `${id}|${b.bedrooms}|${b.count}`))
          ),
          table(
            "market_prices_distribution",
            "location_id, seq, count",
            ids.flatMap((id) => world.pricesDistribution(f(id), now).map((b, seq) => `${id}|${seq}|${b.count}`))
          ),
          table(
            "market_time_on_market_distribution",
            "location_id, seq",
            ids.flatMap((id) => world.timeOnMarketDistribution(f(id), now).map((_b, seq) => `${id}|${seq}`))
          ),
          table(
            "market_properties_quartiles",
            "location_id, sample_size",
            ids.map((id) => `${id}|${world.propertiesDistribution(f(id), now).properties.length}`)
          ),
          table(
            "market_properties_distribution",
            "location_id, property_id",
            ids.flatMap((id) =>
              [...new Set(world.propertiesDistribution(f(id), now).properties.map((p) => p.property_id))].map((p) => `${id}|${p}`)
            )
          )
        ],
        counts: [],
        missing: []
      }
    }
  },
  {
    pipeline: "market-analysis",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({ location_ids: ptMunicipalities(world), types: ["house", "villa", "chalet"], business_type: "sale" }),
    truth: ({ world, now }) => ({
      tables: [
        table(
          "market_analysis",
          "location_id, available_on_market",
          ptMunicipalities(world).map((id) => {
            const a = world.analysis(
              { types: ["house", "villa", "chalet"], business_type: "sale", custom_location_boundary: { location_ids: [id] } } as never,
              now
            )
            return `${id}|${a.available_on_market}`
          })
        )
      ],
      counts: [],
      missing: []
    })
  },
  {
    pipeline: "alerts",
    pages: "more",
    host: "token",
    paging: "windows",
    unshownOperations: [],
    // no feed ids: read from the user's feed list (ids as the dialect writes them)
    params: ({ now }) => ({
      since: ALERTS_SINCE,
      until: new Date(now).toISOString(),
      page_size: ALERTS_PAGE
    }),
    truth: ({ world, now, feeds, dialect }) => {
      const q = { nowMs: now, createdFrom: Date.parse(ALERTS_SINCE), createdTo: now, orderBy: "alert_id" }
      const { count: n } = world.alerts({ ...q, offset: 0, limit: 0 })
      const ids = world.alerts({ ...q, offset: 0, limit: n }).results.map((a) => alertKey(dialect, a.alert_id))
      return {
        tables: [table("alerts", "alert_id", ids)],
        counts: [count("alert_feed_links", ids.length * feeds.legacy.length)],
        missing: []
      }
    }
  },
  {
    pipeline: "alerts-search",
    pages: "more",
    host: "token",
    paging: "offset",
    unshownOperations: [],
    params: () => ({ search: ALERT_SEARCH, page_size: ALERT_SEARCH_PAGE }),
    truth: ({ world, now, dialect }) => {
      const q = {
        nowMs: now,
        createdFrom: Date.parse(`${ALERT_SEARCH.created_at_from}Z`),
        subtypes: ALERT_SEARCH.alert_subtypes,
        orderBy: "alert_id"
      }
      const { count: n } = world.alerts({ ...q, offset: 0, limit: 0 })
      return {
        tables: [
          table(
            "alerts",
            "alert_id",
            world.alerts({ ...q, offset: 0, limit: n }).results.map((a) => alertKey(dialect, a.alert_id))
          )
        ],
        counts: [],
        missing: []
      }
    }
  },
  {
    pipeline: "alert-feeds",
    pages: "more",
    host: "token",
    paging: "single+cursor",
    unshownOperations: ["alerts_api_feeds"],
    params: () => ({ page_size: FEEDS_PAGE }),
    truth: ({ feeds }) => ({
      tables: [
        table("alert_feeds", "family, feed_id", [
          ...feeds.legacy.map((id) => `legacy|${id}`),
          ...feeds.alertsApi.map((id) => `alerts_api|${id}`)
        ])
      ],
      counts: [],
      missing: []
    })
  },
  {
    pipeline: "properties-by-id",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({ ids: [...propertyIds(world), UNKNOWN_PROPERTY_ID], concurrency: 4 }),
    truth: (ctx) => {
      // the route tests the id of its path, in decimal
      const kept = spread(ctx.world).filter((i) => !isMissingKey(ctx.dialect, String(ctx.world.propertyIdOf(i))))
      const hidden = SPREAD.filter((i) => !kept.includes(i)).map((i) => ctx.world.propertyIdOf(i))
      return { ...propertyTruth(tokenProperties(ctx, kept)), missing: [...hidden, UNKNOWN_PROPERTY_ID].map((id) => `id=${id}`) }
    }
  },
  {
    pipeline: "properties-match",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({ listingIds: listingIdsToMatch(world), batchSize: 100 }),
    truth: ({ world }) => ({
      tables: [
        table(
          "listing_matches",
          "listing_id, property_id",
          world.matchListings(listingIdsToMatch(world)).flatMap((m) => m.listing_ids.map((l) => `${l}|${m.property_id}`))
        )
      ],
      counts: [],
      missing: []
    })
  },
  {
    pipeline: "properties-search",
    pages: "more",
    host: "token",
    paging: "cursor",
    unshownOperations: ["properties_search"],
    params: () => ({ ...TOKEN_SEARCH, version: 2, pageSize: TOKEN_PAGE }),
    truth: (ctx) => ({ ...propertyTruth(tokenProperties(ctx, ctx.world.tokenSearch(TOKEN_SEARCH, ctx.now))), missing: [] })
  },
  {
    pipeline: "comparables",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({
      targets: comparableTargets(world),
      comparables_count: 10,
      distance: 25,
      comparables_types: COMPARABLE_TYPES
    }),
    truth: ({ world, now }) => {
      const targets = comparableTargets(world)
      const keys = targets.flatMap((t) => {
        const outcome = world.comparables(
          {
            comparables_count: 10,
            operation: "sale",
            comparables_types: COMPARABLE_TYPES,
            location_boundary: { circle: { distance: 25, target_point: { coordinates: { latitude: t.latitude, longitude: t.longitude } } } }
          } as never,
          now
        )
        return outcome._tag === "ok" ? outcome.results.map((r) => `${t.id}|${r.property_id}`) : []
      })
      return {
        tables: [
          table("comparables", "target_id, property_id", keys),
          table(
            "valuations",
            "target_id",
            targets.map((t) => t.id)
          )
        ],
        counts: [],
        missing: []
      }
    }
  },
  // the change-driven refreshes given their ids (as from a webhook spool) land what the by-id pipelines land
  {
    pipeline: "properties-changed",
    pages: 1,
    host: "token",
    paging: "single",
    unshownOperations: [],
    params: ({ world }) => ({ ids: [...propertyIds(world), UNKNOWN_PROPERTY_ID], concurrency: 4 }),
    truth: (ctx) => caseOf("properties-by-id").truth(ctx)
  },
  {
    pipeline: "sourcing-changed",
    pages: 1,
    paid: { pageSize: 1, unitsPerPage: 1 },
    host: "platform",
    paging: "single",
    unshownOperations: [],
    // token-host ids, read as `prop_<id>` (the unknown id 1 is UNKNOWN_SOURCING_ID)
    params: ({ world }) => ({ ids: [...propertyIds(world), UNKNOWN_PROPERTY_ID], concurrency: 4 }),
    truth: (ctx) => caseOf("sourcing-properties").truth(ctx)
  }
]

/** 150 listing ids (two batches of 100): the primary listing of every 10th property. */
const listingIdsToMatch = (w: World) => Array.from({ length: 150 }, (_, i) => w.listingIdsOf(i * 10)[0]!)

export const caseOf = (pipeline: string): PipelineCase => {
  const c = CASES.find((x) => x.pipeline === pipeline)
  if (!c) throw new Error(`no ground truth for ${pipeline}`)
  return c
}
