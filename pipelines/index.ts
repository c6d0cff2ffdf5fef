/**
 * The catalogue: every pipeline of this repository. Adding a pipeline is adding its file, its
 * import and its line in the list below (the library's types follow from the list).
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

/** Every built-in pipeline, in the order `list` shows them, with its declared types. */
const builtIns = [
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
] as const

/**
 * The built-in pipelines as types, derived from the list above: the library types
 * `extract("plots-germany", ...)` by this union (its name, parameters and tables).
 */
export type BuiltInPipeline = (typeof builtIns)[number]

/** The names of the built-in pipelines. */
export type PipelineName = BuiltInPipeline["name"]

export const catalogue: ReadonlyArray<Pipeline> = builtIns as ReadonlyArray<Pipeline>
