/**
 * The catalogue: every pipeline of this repository. Adding a pipeline is adding its file and a
 * line here.
 */
import type { Pipeline } from "../src/pipeline/Pipeline.js"
import comparables from "./comparables.js"
import plotsGermany from "./plots-germany.js"
import premisesSearch from "./premises-search.js"
import propertiesById from "./properties-by-id.js"
import propertiesMatch from "./properties-match.js"
import propertiesSearch from "./properties-search.js"
import sellerLeads from "./seller-leads.js"
import sourcingDescribe from "./sourcing-describe.js"
import sourcingProperties from "./sourcing-properties.js"
import sourcingResolve from "./sourcing-resolve.js"
import sourcingSearch from "./sourcing-search.js"

export const catalogue: ReadonlyArray<Pipeline> = [
  // platform host (metered)
  plotsGermany,
  sourcingSearch,
  sourcingDescribe,
  sourcingProperties,
  sourcingResolve,
  sellerLeads,
  premisesSearch,
  // token host
  propertiesById,
  propertiesMatch,
  propertiesSearch,
  comparables
] as ReadonlyArray<Pipeline>
