/**
 * market-analysis: the Area Insights analysis (`POST /market-analytics-api/analysis`) per
 * location id, one request each (`loc=123`), into `market_analysis`: one row per location,
 * scope (types, business type, filter) and snapshot date (the run's extraction day, UTC), merged
 * so a rerun the same day replaces that day's row and earlier days stay as history.
 */
import { Effect, Schema } from "effect"
import { single } from "../src/extract/Pagers.js"
import { fetchedOf } from "../src/extract/Responses.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { MarketAnalysis } from "../src/service/schema/Distributions.js"
import { TokenClient } from "../src/service/TokenClient.js"
import {
  LocationScope,
  MARKET_CURRENCY,
  marketBody,
  Scope,
  SCOPE_KEY,
  scopeColumns,
  scopeOf
} from "../src/normalize/records/MarketScope.js"
import { MONEY } from "../src/normalize/records/NestedTypes.js"

const AnalysisRecord = Schema.Struct({ scope: Scope, analysis: MarketAnalysis })
type AnalysisRecord = typeof AnalysisRecord.Type

const analysis = flatTable.of<AnalysisRecord, PageContext>()(
  "market_analysis",
  {
    ...scopeColumns<AnalysisRecord>(),
    avg_price: [MONEY, (r) => r.analysis.avg_price],
    avg_price_psqm: [MONEY, (r) => r.analysis.avg_price_psqm],
    median_price: [MONEY, (r) => r.analysis.median_price],
    currency: ["VARCHAR", () => MARKET_CURRENCY],
    available_on_market: ["BIGINT", (r) => r.analysis.available_on_market],
    avg_days_on_market: ["DOUBLE", (r) => r.analysis.avg_days_on_market],
    price_trend_pct: ["DOUBLE", (r) => r.analysis.price_trend_pct],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt],
    // fields the schema does not know yet, kept as JSON
    extra: [
      "JSON",
      (r) => {
        const known = new Set(Object.keys(MarketAnalysis.fields))
        const rest = Object.fromEntries(Object.entries(r.analysis).filter(([k]) => !known.has(k)))
        return Object.keys(rest).length > 0 ? rest : null
      }
    ]
  },
  { primaryKey: [...SCOPE_KEY], disposition: "merge" }
)

export default definePipeline({
  name: "market-analysis",
  description: "Area Insights market analysis per location",
  host: "token",
  params: LocationScope,
  source: fanOut({
    keys: (p: LocationScope) => p.location_ids,
    key: (id) => `loc=${id}`,
    pager: (id, p) =>
      single(() =>
        Effect.flatMap(TokenClient, (c) => c.analysis(marketBody(p, id))).pipe(
          Effect.map((res) => fetchedOf(res, [{ scope: scopeOf(p, id), analysis: res.body }]))
        )
      ),
    concurrency: 4
  }),
  cost: {
    operation: "market_analysis",
    estimate: (p) => Effect.succeed({ requests: p.location_ids.length, exact: true })
  },
  tables: [analysis.spec],
  records: {
    table: "market_analysis",
    schema: AnalysisRecord,
    toRows: (r, ctx) => ({ market_analysis: [analysis.row(r, ctx)] })
  },
  shardable: true
})
