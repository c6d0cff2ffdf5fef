/**
 * What the compiler says about library calls (never run: `typed.test.ts` compiles it). Each
 * `@ts-expect-error` names the error code it stands for; the test strips the directives and
 * checks that tsc reports exactly that code on exactly the next line, and nothing else.
 */
import {
  byName,
  definePipeline,
  Effect,
  type Extraction,
  extract,
  flatTable,
  query,
  rows,
  TokenClient,
  withSession
} from "../../../src/index.js"
import plotsGermany from "../../../pipelines/plots-germany.js"

export const typedUsage = async () => {
  // @ts-expect-error TS2345 a misspelt pipeline name
  await extract("plots-germny", {})
  // @ts-expect-error TS2322 a parameter of the wrong type
  await extract("plots-germany", { params: { pageSize: "fifty" } })
  // @ts-expect-error TS2561 a parameter the pipeline does not have
  await extract("plots-germany", { params: { pageSzie: 50 } })
  // @ts-expect-error TS2820 a value outside a nested literal union
  await extract("plots-germany", { params: { criteria: { commercial_use: "zoned_comercial" } } })

  const plots = await extract("plots-germany", { params: { pageSize: 50, criteria: { regions: ["Bayern"] } } })
  const row = plots.rows()[0]!
  const id: string = row.id
  const eur: number | null = row.sale_eur
  const forSale: boolean | null = row.for_sale
  const extractedAt: Date | null = row.extracted_at
  const validFrom: Date = row._valid_from
  // @ts-expect-error TS2339 a column plots does not have
  void row.sale_price
  // @ts-expect-error TS2322 a nullable column is no plain number
  const notNull: number = row.sale_eur
  const seq: number = plots.rows("plot_agency_links")[0]!.seq
  // @ts-expect-error TS2345 a table the pipeline does not land
  plots.rows("plot_agency_link")

  // BIGINT columns: number or bigint (bigint beyond 2^53), always bigint when kept
  const matches = await extract("properties-match", { params: { listingIds: [1, 2] } })
  const auto: number | bigint = matches.rows()[0]!.property_id
  const kept: bigint = matches.rows("listing_matches", { bigint: "keep" })[0]!.property_id
  // @ts-expect-error TS2322 a BIGINT may be a bigint
  const plain: number = matches.rows()[0]!.property_id

  // tables declared in src/normalize/records/ are typed too
  const found = await extract("sourcing-search", { params: { country: "ES" } })
  const price: number | null = found.rows()[0]!.price_eur
  const country: string | null = found.rows()[0]!.country
  // @ts-expect-error TS2551 a column sourcing_properties does not have (did you mean price_eur?)
  void found.rows()[0]!.price_euro
  const alerts = await extract("alerts", {})
  const alertDate: Date | null = alerts.rows()[0]!.alert_date
  // @ts-expect-error TS2551 a column alerts does not have (did you mean alert_date?)
  void alerts.rows()[0]!.alert_dat

  // an inline declaration is typed by its own tables
  const inline: Extraction<(typeof plotsGermany)["tables"], "plots"> = await extract(plotsGermany, {
    params: { maxPages: 1 },
    sample: true
  })
  const table = flatTable.of<{ k: string; n: number }>()(
    "adhoc",
    { k: "VARCHAR", n: "DOUBLE!" },
    { primaryKey: ["k"], disposition: "merge" }
  )
  const adhoc = definePipeline({
    ...plotsGermany,
    name: "adhoc",
    tables: [table.spec],
    records: { ...plotsGermany.records, table: "adhoc" }
  })
  const n: number = (await extract(adhoc)).rows()[0]!.n
  // the operation a pipeline's cost is counted under is one the cost table (or the token host) names
  definePipeline({
    ...plotsGermany,
    name: "misspelt",
    // @ts-expect-error TS2820 a misspelt operation (did you mean plot_search?)
    cost: { ...plotsGermany.cost, operation: "plot_serch" }
  })

  // a token-host request is typed by its request schema (src/service/TokenRequests.ts), as a platform one is
  const tokenCalls = Effect.flatMap(TokenClient, (c) =>
    Effect.all([
      c.matchByListings({ listing_ids: [1, 2] }),
      // @ts-expect-error TS2561 a member the match-by-listings body does not have (did you mean listing_ids?)
      c.matchByListings({ listing_id: [1, 2] }),
      // @ts-expect-error TS2322 a member of the wrong type
      c.alertsSearch({ location_ids: [12], limit: "500" }),
      c.comparablesV2({
        comparables_count: 10,
        operation: "sale",
        comparables_types: ["apartment"],
        // @ts-expect-error TS2561 a misspelt member deep inside the body (did you mean circle?)
        location_boundary: { circle: { distance: 2, target_point: { address: "Calle Mayor 1, Madrid" } }, circel: {} }
      }),
      // @ts-expect-error TS2345 a required member left out
      c.timeSeries({ types: ["flat"], business_type: "sale", custom_location_boundary: { location_ids: [1] }, data_point: "avg_price" }),
      // a body the spec leaves open (AI Builder: not shown) takes any keys
      c.comparablesAiBuilder({ valuation_id: "val_1", anything: true })
    ])
  )

  // a pipeline's parameters that are members of a request are typed as the request's
  const target = { id: "a", address: "Calle Mayor 1, Madrid" }
  await extract("comparables", { params: { targets: [target], filters: { bedrooms: 2, total_area: 80 } } })
  // @ts-expect-error TS2561 a member the comparables body does not have (did you mean bedrooms?)
  await extract("comparables", { params: { targets: [target], filters: { bedroms: 2 } } })

  // a pipeline only the settings know: explicitly untyped
  const mine = await extract(byName("my-plots"), { params: { anything: 1 } })
  const untyped: unknown = mine.rows("whatever")[0]!.anything
  // @ts-expect-error TS2345 a computed string is not a pipeline name
  await extract(String("my-plots"))

  // sessions are typed the same way
  await withSession({}, async (s) => {
    // @ts-expect-error TS2322 a parameter of the wrong type
    await s.run("seller-leads", { params: { min_price_cuts: "two" } })
    const leads = await s.run("seller-leads", { params: { min_price_cuts: 2 } })
    const cuts: number | null = leads.rows()[0]!.price_cuts
    return cuts
  })

  // SQL rows: plain objects, JSON-serialisable; a row type is asserted with `query<Row>`
  const counts = await query<{ region: string; n: number }>("SELECT region, count(*) AS n FROM plots_current GROUP BY region")
  const json: string = JSON.stringify(counts)
  const total: number = counts.reduce((s, c) => s + c.n, 0)
  const loose: Array<Record<string, unknown>> = await rows("SELECT 1 AS one", { bigint: "keep" })

  return { tokenCalls, id, eur, forSale, extractedAt, validFrom, notNull, seq, auto, kept, plain, inline, n, untyped, json, total, loose }
}
