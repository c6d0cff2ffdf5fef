/**
 * plots-germany: commercial plots in Germany (`POST /v1/ai/plots/search`), offset pages over
 * criteria from the settings. Lands `plots` (a history table: a new version of a plot when it
 * changes; `plots_current` holds one row per plot) and `plot_agency_links` (the other agencies
 * advertising a plot: `also_listed_by`).
 */
import { Effect, Schema } from "effect"
import { offset } from "../src/extract/Pagers.js"
import { pageOf } from "../src/extract/Responses.js"
import { paged } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { PlotCriteria, PlotResult } from "../src/service/schema/Plots.js"

const Params = Schema.Struct({
  /** Search criteria (spec: the plot search criteria table); `limit`/`offset` are set per page. */
  criteria: Schema.optionalWith(PlotCriteria, { default: () => ({}) }),
  /** Page size, 1 to 100 (Assumed plot-search maximum). Default 100. */
  pageSize: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 100)), { default: () => 100 }),
  /** At most this many pages (bounds the plan and the spend). Default 50. */
  maxPages: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 10_000)), { default: () => 50 })
})
type Params = typeof Params.Type

const plots = flatTable<PlotResult, PageContext>(
  "plots",
  {
    id: "VARCHAR",
    title: "VARCHAR",
    plot_type: "VARCHAR",
    country: "VARCHAR",
    region: "VARCHAR",
    municipality: "VARCHAR",
    zipcode: "VARCHAR",
    location_precision: "VARCHAR",
    lat: ["DOUBLE", (p) => p.coordinates?.lat],
    lon: ["DOUBLE", (p) => p.coordinates?.lon],
    coordinates_precision: ["VARCHAR", (p) => p.coordinates?.precision],
    for_sale: "BOOLEAN",
    for_rent: "BOOLEAN",
    sale_eur: "DOUBLE",
    rent_eur_month: "DOUBLE",
    plot_area_m2: "DOUBLE",
    sale_eur_per_m2: "DOUBLE",
    commercial_use_level: ["VARCHAR", (p) => p.commercial_use?.level],
    commercial_use_meaning: ["VARCHAR", (p) => p.commercial_use?.meaning],
    commercial_use_evidence: ["VARCHAR", (p) => p.commercial_use?.evidence],
    commercial_use_facts_read: ["BOOLEAN", (p) => p.commercial_use?.facts_read],
    zoning_source: ["VARCHAR", (p) => p.commercial_use?.zoning_source],
    zoning_class: ["VARCHAR", (p) => p.facts_from_text?.zoning_class],
    serviced: ["BOOLEAN", (p) => p.facts_from_text?.serviced],
    facts_from_text: "JSON",
    excerpt: "VARCHAR",
    agency_name: ["VARCHAR", (p) => p.agency?.name],
    agency_listing_url: ["VARCHAR", (p) => p.agency?.listing_url],
    agencies_count: ["INTEGER", (p) => 1 + (p.agency_links?.length ?? 0)],
    extracted_at: ["TIMESTAMP", (_p, c) => c.extractedAt]
  },
  { primaryKey: ["id"], disposition: "history", partitionBy: ["region"], extraOf: Object.keys(PlotResult.fields) }
)

const links = flatTable<{ plot_id: string; seq: number; name: string | null; listing_url: string | null }>(
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
    offset({
      limit: p.pageSize,
      maxPages: p.maxPages,
      fetch: ({ offset, limit }) =>
        Effect.flatMap(PlatformClient, (c) => c.plotSearch({ criteria: { ...p.criteria, limit, offset } })).pipe(
          Effect.map((r) => pageOf(r, "plot_search"))
        )
    })
  ),
  cost: {
    operation: "plot_search",
    // Counts cost a call here, so the plan is the page bound: at most maxPages requests.
    estimate: (p) => Effect.succeed({ requests: p.maxPages, exact: false, note: `at most ${p.maxPages} pages of ${p.pageSize}` })
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
