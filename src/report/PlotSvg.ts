/**
 * Observable Plot charts rendered to static markup in Node, for files a browser opens without
 * network (the spend report, the examples' charts): Plot draws into a `linkedom` document and the
 * chart is serialised as it stands (inline styles, no script).
 *
 * Plot and linkedom are loaded on first use (`import()`), so commands that draw nothing never pay
 * for them.
 */
import type * as PlotModule from "@observablehq/plot"

/** The `@observablehq/plot` module, handed to a chart's builder. */
export type Plot = typeof PlotModule

/** A chart's options (`marks`, scales, size) as `Plot.plot` takes them, without `document`. */
export type PlotChart = Omit<PlotModule.PlotOptions, "document">

export interface PlotSvgOptions {
  /** Set as `id` and `data-chart` on the chart's `<svg>`, so a page (and a test) can find it. */
  readonly id?: string
  /** Add `xmlns` to the `<svg>`, as a standalone `.svg` file needs. Default false (inline in HTML). */
  readonly standalone?: boolean
}

/** What is used of a linkedom element (the project compiles without the DOM's types). */
interface Markup {
  readonly tagName: string
  readonly outerHTML: string
  readonly children: ArrayLike<Markup> & Iterable<Markup>
  setAttribute(name: string, value: string): void
}

const loaded = { plot: undefined as Promise<readonly [Plot, typeof import("linkedom")]> | undefined }
const modules = () => (loaded.plot ??= Promise.all([import("@observablehq/plot"), import("linkedom")] as const))

/**
 * The chart `build` describes, as markup: its `<svg>`, or a `<figure>` holding the svg and its
 * HTML legend when the chart asks for one (`color: { legend: true }`). `build` receives the Plot
 * module, so callers need not import it themselves.
 */
export const plotSvg = async (build: (plot: Plot) => PlotChart, options: PlotSvgOptions = {}): Promise<string> => {
  const [Plot, { parseHTML }] = await modules()
  const { document } = parseHTML("<html><body></body></html>")
  const chart = Plot.plot({ ...build(Plot), document: document as never }) as unknown as Markup
  const svg = chart.tagName.toLowerCase() === "svg" ? chart : [...chart.children].find((c) => c.tagName.toLowerCase() === "svg")
  if (svg && options.id !== undefined) {
    svg.setAttribute("id", options.id)
    svg.setAttribute("data-chart", options.id)
  }
  if (svg && options.standalone) svg.setAttribute("xmlns", "http://www.w3.org/2000/svg")
  return chart.outerHTML
}
