/**
 * plots-germany: commercial plots in Germany (`POST /v1/ai/plots/search`), offset pages over
 * criteria from the settings. Lands `plots` (a history table: a new version of a plot when it
 * changes; `plots_current` holds one row per plot) and `plot_agency_links` (the other agencies
 * advertising a plot: `also_listed_by`).
 *
 * Incremental with `sort: "newest"`: once the slice has read before, the run stops after
 * `knownPagesTolerated` pages in a row that end in plots landed already (a `caught-up` end,
 * reported, not a shortfall), so a night without new plots costs one page. `--full-refresh`
 * reads everything again (the weekly pull of docs/SCHEDULING.md).
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { untilKnown } from "../src/extract/Incremental.js"
import { fullReadPlan, keysFromTable, paged, pagesOf, plannedSlicesReadBefore } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { PlotCriteria, PlotResult } from "../src/service/schema/Plots.js"
import { countryCode } from "../src/normalize/Countries.js"
import { MONEY } from "../src/normalize/records/NestedTypes.js"

const Params = Schema.Struct({
  /** Search criteria (spec: the plot search criteria table); `limit`/`offset` are set per page. */
  criteria: Schema.optionalWith(PlotCriteria, { default: () => ({}) }),
  /** Page size, 1 to 100 (Assumed plot-search maximum). Default 100. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 100 }),
  /**
   * At most this many pages: a sample (a run cut by it is incomplete unless it is a sample,
   * `--sample`). Default none: the service's count ends the read; `--max-units` bounds the spend.
   */
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_000))),
  /**
   * With `criteria.sort: "newest"`, after a first read: stop after this many pages in a row that
   * end in a plot landed before. 0 reads every page. Default 1. Assumed (the spec shows the sort
   * value, not its order): `newest` lists the most recently published plots first, so once a page
   * ends in a known plot the rest are known too; a plot republished or edited (a price cut)
   * further down is read again by the weekly full pull.
   */
  knownPagesTolerated: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 1000)), { default: () => 1 })
})
type Params = typeof Params.Type

/** All-known pages a read stops after: only a newest-first order puts new plots first. */
const toleratedOf = (p: Params) => (p.criteria.sort === "newest" ? p.knownPagesTolerated : 0)
const plotId = (record: unknown) => {
  const id = (record as { id?: unknown } | null)?.id
  return typeof id === "string" ? id : undefined
}

const plots = flatTable.of<PlotResult, PageContext>()(
  "plots",
  {
    id: "VARCHAR",
    title: "VARCHAR",
    plot_type: "VARCHAR",
    // the service sends a lower-case code (`de`); the column holds ISO, `country_raw` the original
    country: ["VARCHAR", (p) => countryCode(p.country)],
    country_raw: ["VARCHAR", (p) => p.country],
    region: "VARCHAR",
    municipality: "VARCHAR",
    zipcode: "VARCHAR",
    location_precision: "VARCHAR",
    lat: ["DOUBLE", (p) => p.coordinates?.lat],
    lon: ["DOUBLE", (p) => p.coordinates?.lon],
    coordinates_precision: ["VARCHAR", (p) => p.coordinates?.precision],
    for_sale: "BOOLEAN",
    for_rent: "BOOLEAN",
    sale_eur: MONEY,
    rent_eur_month: MONEY,
    plot_area_m2: "DOUBLE",
    sale_eur_per_m2: MONEY,
    /** The currency of the `*_eur*` columns: EUR, as their names say. */
    currency: ["VARCHAR", () => "EUR"],
    commercial_use_level: ["VARCHAR", (p) => p.commercial_use?.level],
    commercial_use_meaning: ["VARCHAR", (p) => p.commercial_use?.meaning],
    commercial_use_evidence: ["VARCHAR", (p) => p.commercial_use?.evidence],
    commercial_use_facts_read: ["BOOLEAN", (p) => p.commercial_use?.facts_read],
    zoning_source: ["VARCHAR", (p) => p.commercial_use?.zoning_source],
    zoning_class: ["VARCHAR", (p) => p.facts_from_text?.zoning_class],
    serviced: ["BOOLEAN", (p) => p.facts_from_text?.serviced],
    // open keys (the spec names two and says the others exist): a map of JSON values
    facts_from_text: "MAP(VARCHAR, JSON)",
    excerpt: "VARCHAR",
    agency_name: ["VARCHAR", (p) => p.agency?.name],
    agency_listing_url: ["VARCHAR", (p) => p.agency?.listing_url],
    agencies_count: ["INTEGER", (p) => 1 + (p.agency_links?.length ?? 0)],
    extracted_at: ["TIMESTAMPTZ", (_p, c) => c.extractedAt]
  },
  { primaryKey: ["id"], disposition: "history", partitionBy: ["region"], extraOf: Object.keys(PlotResult.fields) }
)

const links = flatTable.of<{ plot_id: string; seq: number; name: string | null; listing_url: string | null }>()(
  "plot_agency_links",
  {
    plot_id: "VARCHAR",
    seq: "INTEGER",
    name: "VARCHAR",
    listing_url: "VARCHAR"
  },
  { primaryKey: ["plot_id", "seq"], disposition: "merge" }
)

export default definePipeline({
  name: "plots-germany",
  description: "Commercial plots in Germany by criteria (plot search), with their agency links",
  host: "platform",
  params: Params,
  source: paged((p: Params) =>
    untilKnown(
      offset({
        limit: p.pageSize,
        maxPages: p.maxPages,
        fetch: ({ offset, limit }) =>
          Effect.flatMap(PlatformClient, (c) => c.plotSearch({ criteria: { ...p.criteria, limit, offset } })).pipe(
            Effect.map((r) => pageOf(r))
          ),
        follow: (next) =>
          Effect.flatMap(PlatformClient, (c) => c.plotSearchNext(next, { criteria: { ...p.criteria, limit: p.pageSize } })).pipe(
            Effect.map((r) => pageOf(r))
          )
      }),
      { known: keysFromTable(plots.spec.name, "id", { optional: true }), idOf: plotId, tolerated: toleratedOf(p) }
    )
  ),
  cost: {
    operation: "plot_search",
    // Counts cost a call here, so a full read is planned as the last full read took (or the page
    // bound); after a first newest-first read, the expected new page plus the known ones it stops at.
    estimate: (p) =>
      Effect.gen(function* () {
        const before = yield* plannedSlicesReadBefore
        const last = yield* fullReadPlan(["*"], { maxPages: p.maxPages, pageSize: p.pageSize })
        const fullPages = last.pages
        const full =
          p.maxPages !== undefined
            ? `at most ${pagesOf(fullPages, p.pageSize)}`
            : last.known > 0
              ? `${pagesOf(fullPages, p.pageSize)}, as the last full read`
              : `at least 1 page of ${p.pageSize}: the first page's count says the rest`
        if (before.size === 0 || toleratedOf(p) === 0) return { requests: fullPages, exact: false, note: full }
        const pages = Math.min(fullPages, toleratedOf(p))
        return {
          requests: pages,
          exact: false,
          fullRequests: fullPages,
          note: `newest first: ${toleratedOf(p)} page(s) reaching the plots landed before, more on a night of many new plots (a full pull: ${full})`
        }
      })
  },
  tables: [plots.spec, links.spec],
  records: {
    table: "plots",
    schema: PlotResult,
    toRows: (plot, ctx) => ({
      plots: [plots.row(plot, ctx)],
      plot_agency_links: (plot.agency_links ?? []).map((l, seq) =>
        links.row({ plot_id: plot.id, seq, name: l.name ?? null, listing_url: l.listing_url ?? null }, undefined)
      )
    })
  },
  shardable: false
})
