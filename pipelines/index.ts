/**
 * The catalogue: every pipeline of this repository. Adding a pipeline is adding its file and a
 * line here.
 */
import type { Pipeline } from "../src/pipeline/Pipeline.js"
import alertFeeds from "./alert-feeds.js"
import alerts from "./alerts.js"
import alertsSearch from "./alerts-search.js"
import comparables from "./comparables.js"
import marketAnalysis from "./market-analysis.js"
import marketDistributions from "./market-distributions.js"
import marketTimeSeries from "./market-time-series.js"
import plotsGermany from "./plots-germany.js"
import premisesSearch from "./premises-search.js"
import propertiesById from "./properties-by-id.js"
import propertiesChanged from "./properties-changed.js"
import propertiesMatch from "./properties-match.js"
import propertiesSearch from "./properties-search.js"
import references from "./references.js"
import sellerLeads from "./seller-leads.js"
import sourcingDescribe from "./sourcing-describe.js"
import sourcingChanged from "./sourcing-changed.js"
import sourcingProperties from "./sourcing-properties.js"
import sourcingResolve from "./sourcing-resolve.js"
import sourcingSearch from "./sourcing-search.js"

/**
 * The built-in pipelines as types: the library types `extract("plots-germany", ...)` by this
 * union (its name, parameters and tables).
 */
export type BuiltInPipeline =
  | typeof plotsGermany
  | typeof sourcingSearch
  | typeof sourcingDescribe
  | typeof sourcingProperties
  | typeof sourcingChanged
  | typeof sourcingResolve
  | typeof sellerLeads
  | typeof premisesSearch
  | typeof references
  | typeof marketTimeSeries
  | typeof marketDistributions
  | typeof marketAnalysis
  | typeof alerts
  | typeof alertsSearch
  | typeof alertFeeds
  | typeof propertiesById
  | typeof propertiesChanged
  | typeof propertiesMatch
  | typeof propertiesSearch
  | typeof comparables

/** The names of the built-in pipelines. */
export type PipelineName = BuiltInPipeline["name"]

export const catalogue: ReadonlyArray<Pipeline> = [
  // platform host (metered)
  plotsGermany,
  sourcingSearch,
  sourcingDescribe,
  sourcingProperties,
  sourcingChanged,
  sourcingResolve,
  sellerLeads,
  premisesSearch,
  // token host
  references,
  marketTimeSeries,
  marketDistributions,
  marketAnalysis,
  alerts,
  alertsSearch,
  alertFeeds,
  propertiesById,
  propertiesChanged,
  propertiesMatch,
  propertiesSearch,
  comparables
] as ReadonlyArray<Pipeline>
