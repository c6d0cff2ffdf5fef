/**
 * Query and result types of the world's search helpers: alerts, property searches, plots,
 * premises, seller leads, comparables, market analytics.
 */
import type { ComparableResult, Coordinates, PropertyRecord, SourcingProperty } from "./Records.js"

/** Alert read (legacy feed read, alerts search, webhook delivery). All bounds inclusive-from, exclusive-to. */
export interface AlertQuery {
  /** The sandbox's now: alerts created after it do not exist yet. */
  readonly nowMs: number
  /** `created_at` window, epoch ms: from inclusive, to exclusive. */
  readonly createdFrom?: number | undefined
  readonly createdTo?: number | undefined
  /** `created_at_with_photos` window, epoch ms (alerts whose photos are not processed by now are excluded). */
  readonly createdWithPhotosFrom?: number | undefined
  readonly createdWithPhotosTo?: number | undefined
  /** `alert_date` window, `YYYY-MM-DD`, both inclusive. */
  readonly alertDateFrom?: string | undefined
  readonly alertDateTo?: string | undefined
  readonly subtypes?: ReadonlyArray<string> | undefined
  /** Any node of the location tree; matches alerts of properties below it. */
  readonly locationIds?: ReadonlyArray<number> | undefined
  readonly types?: ReadonlyArray<string> | undefined
  readonly operation?: "sale" | "rent" | undefined
  /** alert_date, -alert_date, alert_id, -alert_id, created_at, -created_at, updated_at, -updated_at. Default -alert_date. */
  readonly orderBy?: string | undefined
  readonly offset: number
  readonly limit: number
}

/** Property Sourcing structured search (docs/ASSUMPTIONS.md "Property Sourcing search body"). */
export interface SourcingFilter {
  readonly country: string
  readonly location_ids?: ReadonlyArray<number> | undefined
  readonly operation: "sale" | "rent"
  readonly types?: ReadonlyArray<string> | undefined
  /** Bounds on the current asking price in EUR, inclusive. */
  readonly price_min?: number | undefined
  readonly price_max?: number | undefined
  /** Bounds on total area in m², inclusive. */
  readonly area_min?: number | undefined
  readonly area_max?: number | undefined
  readonly bedrooms_min?: number | undefined
}

/** A page of a position-based scan: `nextFrom` is the opaque position to resume from, null at the end. */
export interface ScanPage<A> {
  readonly results: ReadonlyArray<A>
  readonly nextFrom: number | null
}

/** Token host properties search v1/v2 body filter (docs/ASSUMPTIONS.md). Prices in EUR, inclusive. */
export interface TokenPropertyFilter {
  readonly location_ids?: ReadonlyArray<number> | undefined
  readonly types?: ReadonlyArray<string> | undefined
  readonly operation?: "sale" | "rent" | undefined
  readonly min_price?: number | undefined
  readonly max_price?: number | undefined
}

/** Commercial plot search criteria (spec "Commercial plot search"); `limit`/`offset` are the host's. */
export interface PlotCriteria {
  readonly regions?: ReadonlyArray<string> | undefined
  readonly municipalities?: ReadonlyArray<string> | undefined
  readonly zipcodes?: ReadonlyArray<string> | undefined
  readonly plot_types?: ReadonlyArray<string> | undefined
  readonly operation?: "sale" | "rent" | "either" | undefined
  readonly plot_area_min?: number | undefined
  readonly plot_area_max?: number | undefined
  readonly sale_price_min?: number | undefined
  readonly sale_price_max?: number | undefined
  readonly sale_price_m2_max?: number | undefined
  /** A level, a list of levels, or `all`. Default: the first three levels. */
  readonly commercial_use?: string | ReadonlyArray<string> | undefined
  readonly serviced?: boolean | undefined
  readonly keywords?: ReadonlyArray<string> | undefined
  /** Default `commercial_use`. */
  readonly sort?: string | undefined
}

/** Result object of plot search (spec), plus `published_at`. */
export interface PlotResult {
  readonly id: string
  readonly title: string
  readonly plot_type: "building_plot" | "rural_plot"
  readonly country: "de"
  readonly region: string
  readonly municipality: string
  readonly zipcode: string
  /** Assumed: always "approximate" (the spec: coordinates are approximate); so is `coordinates.precision`. */
  readonly location_precision: string
  readonly coordinates: { readonly lat: number; readonly lon: number; readonly precision: string }
  /** Assumed: `sale_eur` is not nullable in the spec, so every sandbox plot is for sale; some also for rent. */
  readonly for_sale: boolean
  readonly for_rent: boolean
  readonly sale_eur: number
  readonly rent_eur_month: number | null
  readonly plot_area_m2: number
  readonly sale_eur_per_m2: number
  readonly commercial_use: {
    readonly level: string
    readonly meaning: string
    readonly evidence: string
    readonly facts_read: boolean
    readonly zoning_source?: string
  }
  /**
   * Assumed: keys beyond the spec's `zoning_class` and `serviced` are `b_plan` (a Bebauungsplan
   * exists), `planning_section` ("34" or "35", the BauGB section), `building_permit`, `grz`, `gfz`;
   * a key is present only when the text states the fact.
   */
  readonly facts_from_text: {
    readonly zoning_class?: string
    readonly serviced?: boolean
    readonly b_plan?: boolean
    readonly planning_section?: "34" | "35"
    readonly building_permit?: boolean
    readonly grz?: number
    readonly gfz?: number
  }
  readonly excerpt: string
  readonly agency: { readonly name: string; readonly listing_url: string }
  readonly agency_links: ReadonlyArray<{ readonly name: string; readonly listing_url: string }>
  /** Assumed: publication date (`YYYY-MM-DD`), the key of sort `newest`; not in the spec's table. */
  readonly published_at: string
}

/** A Spanish commercial premises (docs/ASSUMPTIONS.md "Premises search paging"). */
export interface PremisesRecord {
  readonly id: string
  readonly title: string
  readonly operation: "sale" | "rent"
  readonly municipality: string
  readonly province: string
  /** Sale price, or monthly rent, in EUR. */
  readonly price_eur: number
  readonly area_m2: number
  readonly latitude: number
  readonly longitude: number
  /** retail, office, warehouse, restaurant, industrial, hotel. */
  readonly premises_type: string
  readonly price_eur_m2: number
  readonly description: string
  readonly agency: string
  readonly listing_url: string
  readonly published_at: string
}

/**
 * Assumed: premises search body keys the sandbox understands (the spec shows only `limit`);
 * unknown keys are ignored. `query` words must all occur in title or description (case-insensitive).
 */
export interface PremisesQuery {
  readonly query?: string | undefined
  readonly municipality?: string | undefined
  readonly province?: string | undefined
  readonly operation?: "sale" | "rent" | undefined
  readonly premises_types?: ReadonlyArray<string> | undefined
  readonly min_price?: number | undefined
  readonly max_price?: number | undefined
  readonly min_area?: number | undefined
  readonly max_area?: number | undefined
}

/** Seller leads list query (docs/ASSUMPTIONS.md). */
export interface SellerLeadQuery {
  readonly latitude: number
  readonly longitude: number
  readonly radius_km: number
  readonly min_price_cuts: number
  readonly min_price_cut_pct: number
  /** `YYYY-MM-DD`: count cuts since this date instead of over the whole time on the market. */
  readonly since?: string | undefined
  readonly nowMs?: number | undefined
}

/** Range filter `{min, max}` of the market analytics bodies. */
export interface Range {
  readonly min?: number | null | undefined
  readonly max?: number | null | undefined
}

/** The area of a market analytics or comparables body. */
export interface Boundary {
  readonly location_ids?: ReadonlyArray<number> | undefined
  readonly polygon?: ReadonlyArray<Coordinates> | undefined
  /** Time series: `distance` in metres; comparables: kilometres (see `circleUnit`). */
  readonly circle?: { readonly distance: number; readonly target_point: Coordinates } | undefined
}

/** Body of distributions and analysis: the time-series body less data_point, date_interval, date_range. */
export interface MarketFilter {
  readonly types: ReadonlyArray<string>
  readonly business_type: "sale" | "rent"
  readonly custom_location_boundary: Boundary
  readonly price_range?: Range | null | undefined
  readonly price_per_sqm_range?: Range | null | undefined
  readonly rooms_range?: Range | null | undefined
  readonly bathrooms_range?: Range | null | undefined
  readonly bedrooms_range?: Range | null | undefined
  readonly total_area_range?: Range | null | undefined
  readonly plot_area_range?: Range | null | undefined
  readonly construction_year_range?: Range | null | undefined
  readonly characteristics?: { readonly must_have?: ReadonlyArray<string>; readonly exclude?: ReadonlyArray<string> } | null | undefined
  readonly conditions?: ReadonlyArray<string> | undefined
  readonly private?: boolean | undefined
  readonly bank?: boolean | undefined
  readonly auction?: boolean | undefined
  readonly exclude_outliers?: boolean | undefined
}

/** POST /market-analytics-api/time-series body (spec). */
export interface TimeSeriesRequest extends MarketFilter {
  readonly data_point: string
  readonly date_interval: "week" | "month" | "quarter" | "year"
  readonly date_range: { readonly min: string; readonly max?: string | null | undefined }
}
export interface TimeSeriesPoint {
  readonly date_start: string
  readonly value: number
}

export type BedroomsDistribution = ReadonlyArray<{ readonly bedrooms: number; readonly count: number }>
export type PricesDistribution = ReadonlyArray<{ readonly min: number; readonly max: number; readonly count: number }>
export interface PropertiesDistribution {
  readonly quartiles: { readonly q1: number; readonly q2: number; readonly q3: number }
  readonly properties: ReadonlyArray<{
    readonly property_id: number
    readonly price: number
    readonly price_per_sqm: number
    readonly total_area: number
    readonly bedrooms: number
  }>
}
export type TimeOnMarketDistribution = ReadonlyArray<{
  readonly min_price: number
  readonly max_price: number
  readonly days: number
  readonly months: number
}>
export interface MarketAnalysis {
  readonly avg_price: number
  readonly avg_price_psqm: number
  readonly median_price: number
  readonly available_on_market: number
  readonly avg_days_on_market: number
  readonly price_trend_pct: number
}

/**
 * Comparables v2 body (spec), as decoded by the host; deprecated top-level fields are the host's
 * business. `location_boundary.circle.distance` is in kilometres here.
 */
export interface ComparablesRequest {
  readonly comparables_count: number
  readonly location_boundary: {
    readonly polygon?: ReadonlyArray<Coordinates> | undefined
    readonly circle?:
      | {
          readonly distance?: number | undefined
          readonly target_point: {
            readonly coordinates?: Coordinates | undefined
            readonly address?: string | undefined
            readonly cadastral_reference?: { readonly country_code: string; readonly cadastral_reference: string } | undefined
          }
        }
      | undefined
  }
  readonly sold_or_rented_after?: string | null | undefined
  readonly operation: "sale" | "rent"
  readonly comparables_types: ReadonlyArray<string>
  readonly min_price?: number | undefined
  readonly max_price?: number | undefined
  readonly condition?: string | undefined
  readonly bedrooms?: number | undefined
  readonly rooms?: number | undefined
  readonly bathrooms?: number | undefined
  readonly construction_year?: number | undefined
  readonly total_area?: number | undefined
  readonly plot_area?: number | undefined
  readonly floors?: ReadonlyArray<string> | undefined
  readonly floor_number?: ReadonlyArray<number> | undefined
  readonly orientation?: string | undefined
  readonly views?: ReadonlyArray<string> | undefined
  readonly directions?: ReadonlyArray<string> | undefined
  readonly characteristics?:
    | {
        readonly must_have?: ReadonlyArray<string> | undefined
        readonly nice_to_have?: ReadonlyArray<string> | undefined
        readonly exclude?: ReadonlyArray<string> | undefined
      }
    | undefined
  readonly energy_ratings?: ReadonlyArray<string> | undefined
  readonly days_on_market_from?: number | undefined
  readonly days_on_market_to?: number | undefined
  readonly with_agencies?: ReadonlyArray<string> | undefined
  readonly without_agencies?: ReadonlyArray<string> | undefined
  readonly exclude_outliers?: boolean | undefined
}

/** Valuation prices (docs/ASSUMPTIONS.md "Valuation prices"). */
export interface ValuationPrices {
  readonly min: number
  readonly avg: number
  readonly max: number
  readonly per_sqm: number
}
export interface Valuation {
  readonly currency: "EUR"
  readonly sale: ValuationPrices | null
  readonly rent: ValuationPrices | null
  readonly comparables_used: number
}

/** Result of a comparables search; `unresolved` when the target point could not be located. */
export type ComparablesOutcome =
  { readonly _tag: "ok"; readonly results: ReadonlyArray<ComparableResult> } | { readonly _tag: "unresolved"; readonly reason: string }

export type { PropertyRecord, SourcingProperty }
