/**
 * The catalogue: every pipeline of this repository. Adding a pipeline is adding its file and a
 * line here.
 */
import type { Pipeline } from "../src/pipeline/Pipeline.js"
import plotsGermany from "./plots-germany.js"

export const catalogue: ReadonlyArray<Pipeline> = [plotsGermany]
