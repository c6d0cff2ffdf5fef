/**
 * The sandbox's deterministic data world: every record is a pure function of (seed, index).
 * Nothing per property is held in memory beyond small typed-array indexes built lazily,
 * so a world of 1,000,000 properties costs a few megabytes.
 *
 * Time: events are primary. Global event `e` happens at `startMs + floor(e * DAY / eventsPerDay)`
 * and concerns property `(a*e + b) mod N` (a coprime to N); the events of one property are
 * `e0(p) + k*N`, its k-th event. Each event is one alert; histories, statuses and current
 * prices are read from the events up to "now", so advancing the sandbox clock makes new alerts
 * appear and changes the properties they concern.
 */
import type {
  Agency,
  Agent,
  AlertRecord,
  ComparableResult,
  Coordinates,
  FeatureGroup,
  Lead,
  LocationNode,
  PropertyRecord,
  SourcingDetail,
  SourcingProperty,
  TypeReference
} from "./Records.js"
import type {
  AlertQuery,
  BedroomsDistribution,
  ComparablesOutcome,
  ComparablesRequest,
  MarketAnalysis,
  MarketFilter,
  PlotCriteria,
  PlotResult,
  PremisesQuery,
  PremisesRecord,
  PricesDistribution,
  PropertiesDistribution,
  ScanPage,
  SellerLeadQuery,
  SourcingFilter,
  TimeOnMarketDistribution,
  TimeSeriesPoint,
  TimeSeriesRequest,
  TokenPropertyFilter,
  Valuation
} from "./Queries.js"
import { buildWorld } from "./WorldImpl.js"

export type * from "./Records.js"
export type * from "./Queries.js"
export { DEFAULT_NOW, DEFAULT_START_DATE, isoDate, isoDateTime, parseDate, previousMonday, previousSunday } from "./Dates.js"

export interface WorldOptions {
  /** Seed of every generated value. */
  readonly seed: number
  /** Number of properties (default 20,000). */
  readonly properties?: number | undefined
  /** Number of German plots (default 3,000). */
  readonly plots?: number | undefined
  /** Number of Spanish premises (default 2,000). */
  readonly premises?: number | undefined
  /** Number of agencies (default 200). */
  readonly agencies?: number | undefined
  /** Events (= alerts) per day; default ceil(properties / 30), so each property changes about monthly. */
  readonly alertsPerDay?: number | undefined
  /** First day of events, `YYYY-MM-DD` (default `2025-01-01`). */
  readonly startDate?: string | undefined
  /**
   * The default "now" of calls that take an optional `nowMs` (the sandbox passes its clock).
   * Default: a fixed instant, `DEFAULT_NOW`.
   */
  readonly now?: (() => number) | undefined
}

/** Kinds of record `drift` knows about (each drifts its own fields). */
export type DriftKind = "property" | "alert" | "sourcing" | "lead" | "plot" | "premises" | "comparable" | "reference" | (string & {})

export interface World {
  readonly seed: number
  /** Number of properties (N). */
  readonly size: number
  readonly plotCount: number
  readonly premisesCount: number
  /** Epoch ms of the first event. */
  readonly startMs: number
  readonly eventsPerDay: number
  /** The default now (options.now or DEFAULT_NOW). */
  readonly now: () => number

  // ---- Locations and references ----------------------------------------------------------
  /** The 16 countries, ISO alpha-2 upper case (docs/ASSUMPTIONS.md). */
  readonly countries: ReadonlyArray<string>
  /** Every node of the location tree, countries first, in id order. */
  readonly locations: ReadonlyArray<LocationNode>
  readonly location: (locationId: number) => LocationNode | undefined
  /** Children of a node (empty for districts). */
  readonly childrenOf: (locationId: number) => ReadonlyArray<LocationNode>
  /** From the node up to its country, the node first. */
  readonly locationsStructure: (locationId: number) => ReadonlyArray<LocationNode>
  /** Centre of a node. */
  readonly locationCenter: (locationId: number) => Coordinates | undefined
  /** The district (leaf) nearest to the point, if the point is within ~50 km of one. */
  readonly locationByCoordinates: (c: Coordinates) => LocationNode | undefined
  /** Nodes of a country whose name starts with (then contains) the query, case/accent-insensitive. */
  readonly typeahead: (country: string, query: string, limit: number) => ReadonlyArray<LocationNode>
  /** A square polygon (closed, 5 points) around the node owning the zip code. */
  readonly zipcodeBoundary: (countryCode: string, zipCode: string) => ReadonlyArray<Coordinates> | undefined
  readonly agencies: ReadonlyArray<Agency>
  readonly agents: ReadonlyArray<Agent>
  readonly featureGroups: ReadonlyArray<FeatureGroup>
  readonly conditions: ReadonlyArray<{ readonly name: string }>
  readonly types: ReadonlyArray<TypeReference>
  /** Source domains of a location (those of its country). undefined when the id is unknown. */
  readonly sources: (locationId: number) => ReadonlyArray<string> | undefined

  // ---- Properties (token host) -----------------------------------------------------------
  /** Property index (0..size-1) of a property id, or undefined. */
  readonly indexOfPropertyId: (propertyId: number) => number | undefined
  readonly propertyIdOf: (index: number) => number
  /** Full property record as of now (histories up to now). */
  readonly property: (index: number, nowMs?: number) => PropertyRecord
  readonly propertyById: (propertyId: number, nowMs?: number) => PropertyRecord | undefined
  /** Listing ids of a property (first = primary). */
  readonly listingIdsOf: (index: number) => ReadonlyArray<number>
  /** Property index of a listing id, or undefined (listing ids are invertible). */
  readonly indexOfListingId: (listingId: number) => number | undefined
  /** match-by-listings: groups known listing ids by property, in first-seen order; unknown ids dropped. */
  readonly matchListings: (listingIds: ReadonlyArray<number>) => ReadonlyArray<{ property_id: number; listing_ids: Array<number> }>
  /** Property index of a listing URL, `ref_numbers` value or listing uid, or undefined. */
  readonly resolveUrl: (url: string) => number | undefined
  readonly resolveReference: (reference: string) => number | undefined
  /** Property index of a Spanish cadastral reference, or undefined. */
  readonly resolveCadastral: (reference: string) => number | undefined
  /**
   * Token host properties search: matching property indexes in ascending order (cached per
   * filter and now). Hosts slice it for offset (v1) or position (v2) paging.
   */
  readonly tokenSearch: (filter: TokenPropertyFilter, nowMs?: number) => Int32Array

  // ---- Property Sourcing (platform) ------------------------------------------------------
  readonly sourcingProperty: (index: number, nowMs?: number) => SourcingProperty
  readonly sourcingDetail: (index: number, nowMs?: number) => SourcingDetail
  /** Index of a `prop_<property_id>` id, or undefined. */
  readonly indexOfSourcingId: (id: string) => number | undefined
  /**
   * One page of matches starting at scan position `fromIndex` (0 at first); `nextFrom` is the
   * position after the last returned match, null when no match remains. Amortised O(N_country)
   * over a full paging; each property appears exactly once over the pages.
   */
  readonly searchProperties: (filter: SourcingFilter, fromIndex: number, limit: number, nowMs?: number) => ScanPage<SourcingProperty>
  /** Ground truth: number of properties matching the filter (cached per filter and now). */
  readonly countProperties: (filter: SourcingFilter, nowMs?: number) => number

  // ---- Alerts ----------------------------------------------------------------------------
  /** A page of alerts and the number of all matching alerts. */
  readonly alerts: (query: AlertQuery) => { readonly count: number; readonly results: ReadonlyArray<AlertRecord> }
  /** One alert by id, if it exists at nowMs. */
  readonly alert: (alertId: number, nowMs?: number) => AlertRecord | undefined
  /** Alert ids of a property up to now, oldest first (the events its histories are built from). */
  readonly alertIdsOfProperty: (index: number, nowMs?: number) => ReadonlyArray<number>

  // ---- Plots (Germany), premises (Spain) -------------------------------------------------
  /** Plot `index` as it is at `nowMs` (default now): undefined before its publication day. */
  readonly plot: (index: number, nowMs?: number) => PlotResult | undefined
  /** The full ordered match list of the criteria (ground truth of plot search). */
  /** The plots on the market at `nowMs` (default now) that match, sorted as the search sorts. */
  readonly searchPlots: (criteria: PlotCriteria, nowMs?: number) => ReadonlyArray<PlotResult>
  readonly premises: (index: number) => PremisesRecord
  /** The full ordered match list (newest first). */
  readonly searchPremises: (query: PremisesQuery) => ReadonlyArray<PremisesRecord>

  // ---- Seller leads ----------------------------------------------------------------------
  /** Leads ordered by distance, then lead id. */
  readonly sellerLeads: (query: SellerLeadQuery) => ReadonlyArray<Lead>
  readonly lead: (id: string, nowMs?: number) => Lead | undefined

  // ---- Comparables, valuation, market analytics ------------------------------------------
  readonly comparables: (request: ComparablesRequest, nowMs?: number) => ComparablesOutcome
  readonly valuation: (request: ComparablesRequest, nowMs?: number) => Valuation | undefined
  /** [] when no data (the host answers 204). */
  readonly timeSeries: (request: TimeSeriesRequest, nowMs?: number) => ReadonlyArray<TimeSeriesPoint>
  readonly bedroomsDistribution: (filter: MarketFilter, nowMs?: number) => BedroomsDistribution
  readonly pricesDistribution: (filter: MarketFilter, nowMs?: number) => PricesDistribution
  readonly propertiesDistribution: (filter: MarketFilter, nowMs?: number) => PropertiesDistribution
  readonly timeOnMarketDistribution: (filter: MarketFilter, nowMs?: number) => TimeOnMarketDistribution
  readonly analysis: (filter: MarketFilter, nowMs?: number) => MarketAnalysis

  // ---- Fault injection -------------------------------------------------------------------
  /** Whether the record `id` of `kind` drifts at `rate` (deterministic per seed, kind and id). */
  readonly isDrifted: (kind: DriftKind, id: string | number, rate: number) => boolean
  /**
   * With probability `rate` (per record id), a copy with one field of the wrong type (a number
   * as a string) or a renamed field; otherwise the record itself.
   */
  readonly drift: <A extends object>(record: A, kind: DriftKind, rate: number) => A
}

/** Builds a world. Cheap: indexes are built lazily on first use. */
export const makeWorld = (options: WorldOptions): World => buildWorld(options)
