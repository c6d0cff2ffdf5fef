/**
 * The spend report's charts, each an Observable Plot chart rendered to SVG (`PlotSvg.ts`) with
 * its id (`data-chart`). Charts of runs show the last `RUNS_CHARTED` runs; the tables below
 * them count every run.
 */
import { EUR_PER_UNIT, eurOf } from "../service/CostGuard.js"
import { type Plot, plotSvg } from "./PlotSvg.js"
import type { ReportData, RunLine } from "./ReportData.js"

/** Runs the per-run charts show (the newest). */
export const RUNS_CHARTED = 40

/** A chart of the report: its id, heading, what it shows, and its markup (or why there is none). */
export interface Chart {
  readonly id: string
  readonly title: string
  readonly caption: string
  readonly svg: string | undefined
  readonly none: string
}

const WIDTH = 920
const STATUS_COLOURS: ReadonlyArray<readonly [string, string]> = [
  ["done", "#2e7d32"],
  ["paused", "#f0a202"],
  ["incomplete", "#e26d13"],
  ["interrupted", "#7b61a8"],
  ["failed", "#c62828"],
  ["running", "#9e9e9e"]
]
/** The status colour scale over the statuses `runs` have (the same colour for a status in every chart). */
const statusScale = (runs: ReadonlyArray<RunLine>) => {
  const present = new Set(runs.map((r) => r.status))
  const known = STATUS_COLOURS.filter(([s]) => present.has(s))
  const other = [...present].filter((s) => !STATUS_COLOURS.some(([k]) => k === s))
  return {
    domain: [...known.map(([s]) => s), ...other],
    range: [...known.map(([, c]) => c), ...other.map(() => "#555")]
  }
}
/** A chart with one band per run or day: narrower when there are few. */
const bandWidth = (bands: number) => Math.min(WIDTH, 260 + 80 * bands)
const CAP = "#c62828"
const eurText = (units: number) => `EUR ${eurOf(units).toFixed(2)}`
const unitsLabel = `units (1 unit = EUR ${EUR_PER_UNIT.toFixed(2)})`

/** The cap as a dashed rule with its label at the right end; nothing when there is no cap. */
const capRule = (P: Plot, cap: number | undefined, name: string) =>
  cap === undefined
    ? []
    : [
        P.ruleY([cap], { stroke: CAP, strokeWidth: 1.5, strokeDasharray: "6,4" }),
        P.text([cap], {
          y: (d: number) => d,
          frameAnchor: "right",
          dy: -7,
          text: () => `${name} ${cap} units (${eurText(cap)})`,
          fill: CAP
        })
      ]

const runTicks = { label: null, tickRotate: -35 } as const

const unitsPerDay = (data: ReportData) => {
  const days = [...new Set(data.daily.map((d) => d.day))]
  const perDay = days.map((day) => ({ day, units: data.daily.filter((d) => d.day === day).reduce((s, d) => s + d.units, 0) }))
  return plotSvg(
    (P) => ({
      width: bandWidth(days.length),
      height: 340,
      marginTop: 30,
      marginBottom: 40,
      color: { legend: true, label: "pipeline" },
      x: { type: "band", label: "day (UTC)", domain: days },
      y: { label: unitsLabel, grid: true },
      marks: [
        P.barY(data.daily, {
          x: "day",
          y: "units",
          fill: "pipeline",
          title: (d: { day: string; pipeline: string; units: number }) => `${d.day} ${d.pipeline}: ${d.units} units, ${eurText(d.units)}`
        }),
        P.text(perDay, { x: "day", y: "units", text: (d: { units: number }) => eurText(d.units), dy: -7 }),
        P.ruleY([0]),
        ...capRule(P, data.caps.dailyUnits, "daily cap")
      ]
    }),
    { id: "units-per-day" }
  )
}

const unitsPerPipeline = (data: ReportData) =>
  plotSvg(
    (P) => ({
      width: WIDTH,
      height: 60 + 28 * data.pipelines.length,
      marginLeft: 170,
      marginRight: 160,
      x: { label: unitsLabel, grid: true },
      y: { label: null, domain: data.pipelines.map((p) => p.pipeline) },
      marks: [
        P.barX(data.pipelines, { y: "pipeline", x: "units", fill: "#4269d0" }),
        P.text(data.pipelines, {
          y: "pipeline",
          x: "units",
          text: (p: { units: number; eur: number; runs: number }) => `${p.units} units, EUR ${p.eur.toFixed(2)}, ${p.runs} runs`,
          textAnchor: "start",
          dx: 5
        }),
        P.ruleX([0])
      ]
    }),
    { id: "units-per-pipeline" }
  )

const unitsPerRun = (data: ReportData, runs: ReadonlyArray<RunLine>) =>
  plotSvg(
    (P) => ({
      width: bandWidth(runs.length),
      height: 360,
      marginBottom: 110,
      marginTop: 30,
      color: { legend: true, label: "status", ...statusScale(runs) },
      x: { ...runTicks, domain: runs.map((r) => r.label) },
      y: { label: unitsLabel, grid: true },
      marks: [
        P.barY(runs, {
          x: "label",
          y: "units",
          fill: "status",
          title: (r: RunLine) => `${r.runId}: ${r.status}, ${r.units} units, ${eurText(r.units)}`
        }),
        P.ruleY([0]),
        ...capRule(P, data.caps.runUnits, "run cap")
      ]
    }),
    { id: "units-per-run" }
  )

const rowsPerRun = (runs: ReadonlyArray<RunLine>) => {
  const rows = runs.flatMap((r) => Object.entries(r.rowsPerTable).map(([table, n]) => ({ label: r.label, table, rows: n })))
  return plotSvg(
    (P) => ({
      width: bandWidth(runs.length),
      height: 360,
      marginBottom: 110,
      color: { legend: true, label: "table" },
      x: { ...runTicks, domain: runs.map((r) => r.label) },
      y: { label: "rows landed", grid: true },
      marks: [
        P.barY(rows, { x: "label", y: "rows", fill: "table", title: (d: { table: string; rows: number }) => `${d.table}: ${d.rows} rows` }),
        P.ruleY([0])
      ]
    }),
    { id: "rows-per-run" }
  )
}

const durations = (runs: ReadonlyArray<RunLine>) => {
  const finished = runs.filter((r) => r.seconds !== null)
  return plotSvg(
    (P) => ({
      width: WIDTH,
      height: 70 + 22 * finished.length,
      marginLeft: 190,
      marginRight: 70,
      color: { legend: true, label: "status", ...statusScale(finished) },
      x: { label: "seconds from start to finish", grid: true },
      y: { label: null, domain: finished.map((r) => r.label) },
      marks: [
        P.barX(finished, {
          y: "label",
          x: "seconds",
          fill: "status",
          title: (r: RunLine) => `${r.runId}: ${r.status}${r.error ? `, ${r.error}` : ""}`
        }),
        P.text(finished, {
          y: "label",
          x: "seconds",
          text: (r: RunLine) => `${(r.seconds ?? 0).toFixed(1)} s`,
          textAnchor: "start",
          dx: 4
        }),
        P.ruleX([0])
      ]
    }),
    { id: "run-durations" }
  )
}

const KINDS = ["rejects", "missing keys", "shortfall (records)"]

const losses = (runs: ReadonlyArray<RunLine>) => {
  const cells = runs.flatMap((r) => [
    { label: r.label, kind: KINDS[0], n: r.rejects },
    { label: r.label, kind: KINDS[1], n: r.missing },
    { label: r.label, kind: KINDS[2], n: r.shortRecords }
  ])
  return plotSvg(
    (P) => ({
      width: bandWidth(runs.length) + 100,
      height: 230,
      marginLeft: 130,
      marginBottom: 110,
      x: { ...runTicks, domain: runs.map((r) => r.label) },
      y: { label: null, domain: KINDS },
      // light enough at the top for the counts written on the cells
      color: { type: "sqrt", range: ["#fdf6ee", "#f29b52"], interpolate: "rgb", domain: [0, Math.max(1, ...cells.map((c) => c.n))] },
      marks: [
        P.cell(cells, { x: "label", y: "kind", fill: "n", inset: 1, stroke: "#ddd" }),
        P.text(cells, { x: "label", y: "kind", text: (c: { n: number }) => String(c.n) })
      ]
    }),
    { id: "losses-per-run" }
  )
}

/** Every chart of the report, in page order; a chart without data says so instead. */
export const reportCharts = async (data: ReportData): Promise<ReadonlyArray<Chart>> => {
  const runs = data.runs.slice(-RUNS_CHARTED)
  const last = data.runs.length > RUNS_CHARTED ? `the last ${RUNS_CHARTED} of ${data.runs.length} runs` : "every run"
  const dailyCap =
    data.caps.dailyUnits === undefined ? "no daily cap is set (budget.dailyMaxUnits)" : "the dashed line: budget.dailyMaxUnits"
  const chart = async (id: string, title: string, caption: string, has: boolean, svg: () => Promise<string>, none: string) => ({
    id,
    title,
    caption,
    svg: has ? await svg() : undefined,
    none
  })
  return Promise.all([
    chart(
      "units-per-day",
      "Units and EUR per day",
      `Units charged per UTC day (the ledger), by pipeline; EUR above each day; ${dailyCap}.`,
      data.daily.length > 0,
      () => unitsPerDay(data),
      "No charges yet."
    ),
    chart(
      "units-per-pipeline",
      "Units and EUR per pipeline",
      "Every charge of the ledger, by pipeline.",
      data.pipelines.length > 0,
      () => unitsPerPipeline(data),
      "No pipelines have run."
    ),
    chart(
      "units-per-run",
      "Units per run against the run cap",
      `Units each run was charged (the ledger), coloured by its status; the dashed line: budget.maxUnits; ${last}.`,
      runs.length > 0,
      () => unitsPerRun(data, runs),
      "No runs yet."
    ),
    chart(
      "rows-per-run",
      "Rows landed per run",
      `Rows each run landed, by table; ${last}.`,
      runs.some((r) => r.rows > 0),
      () => rowsPerRun(runs),
      "No run has landed rows yet."
    ),
    chart(
      "run-durations",
      "Run durations and statuses",
      `Seconds from start to finish, coloured by status (unfinished runs are left out); ${last}.`,
      runs.some((r) => r.seconds !== null),
      () => durations(runs),
      "No run has finished yet."
    ),
    chart(
      "losses-per-run",
      "Rejects, missing keys and shortfalls per run",
      `Records that failed their schema (_rejects), fan-out keys the service did not know (_missing), and records a slice lacks of what the service declared (_slices); ${last}.`,
      runs.length > 0,
      () => losses(runs),
      "No runs yet."
    )
  ])
}
