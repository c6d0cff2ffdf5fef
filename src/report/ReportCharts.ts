/**
 * The spend report's charts, each an Observable Plot chart rendered to SVG (`PlotSvg.ts`) with
 * its id (`data-chart`). Charts of runs show the last `RUNS_CHARTED` runs; the tables below
 * them count every run. Scales show the data: units per run on a log scale up to the run cap,
 * small series summed into "other", and a panel whose figures are all zero is left out (a line
 * says so) instead of a grid of zeros.
 */
import { balanceChart, capRule, groupSmall, HALF, unitsLabel, unitsPerDay } from "./BillCharts.js"
import { plotSvg } from "./PlotSvg.js"
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
  return { domain: [...known.map(([s]) => s), ...other], range: [...known.map(([, c]) => c), ...other.map(() => "#555")] }
}

/** Run axes: `#n pipeline` for a few runs, `#n` when they are many (the runs table names them). */
const runAxis = (runs: ReadonlyArray<RunLine>) => {
  const short = runs.length > 10
  const name = (r: RunLine) => (short ? r.label.split(" ")[0]! : r.label)
  return { name, x: { label: null, tickRotate: short ? 0 : -30, domain: runs.map(name) }, marginBottom: short ? 30 : 90 }
}

/** Log ticks 0, 1, 10, 100, ... up to `top`. */
const logTicks = (top: number) => [0, ...Array.from({ length: Math.floor(Math.log10(Math.max(top, 1))) + 1 }, (_, i) => 10 ** i)]

const unitsPerRun = (data: ReportData, runs: ReadonlyArray<RunLine>) => {
  const axis = runAxis(runs)
  const top = Math.max(data.caps.runUnits, ...runs.map((r) => Math.max(r.units, r.unitsPlanned ?? 0)))
  const planned = runs.filter((r) => r.unitsPlanned !== null)
  return plotSvg(
    (P) => ({
      width: HALF,
      height: 250,
      marginTop: 30,
      marginBottom: axis.marginBottom,
      color: { legend: true, label: "status", ...statusScale(runs) },
      x: axis.x,
      y: { type: "symlog", constant: 1, domain: [0, top * 1.05], ticks: logTicks(top), label: "units (log scale)", grid: true },
      marks: [
        P.barY(runs, {
          x: axis.name,
          y: "units",
          fill: "status",
          title: (r: RunLine) => `${r.runId}: ${r.status}, charged ${r.units} units, planned ${r.unitsPlanned ?? "?"}`
        }),
        P.tickY(planned, { x: axis.name, y: "unitsPlanned", stroke: "#222", strokeWidth: 2 }),
        P.ruleY([0]),
        ...capRule(P, data.caps.runUnits, "run cap", Infinity)
      ]
    }),
    { id: "units-per-run" }
  )
}

const unitsPerPipeline = (data: ReportData) =>
  plotSvg(
    (P) => ({
      width: HALF,
      height: 50 + 24 * data.pipelines.length,
      marginLeft: 130,
      marginRight: 190,
      x: { label: unitsLabel, grid: true },
      y: { label: null, domain: data.pipelines.map((p) => p.pipeline) },
      marks: [
        P.barX(data.pipelines, { y: "pipeline", x: "units", fill: "#4269d0" }),
        P.text(data.pipelines, {
          y: "pipeline",
          x: "units",
          text: (p: ReportData["totals"]) =>
            `${p.units} units, EUR ${p.eur.toFixed(2)}` +
            (p.unitsPer1000Rows === null || p.units === 0 ? "" : `, ${p.unitsPer1000Rows.toFixed(1)} per 1,000 rows`),
          textAnchor: "start",
          dx: 5
        }),
        P.ruleX([0])
      ]
    }),
    { id: "units-per-pipeline" }
  )

const rowsPerRun = (runs: ReadonlyArray<RunLine>) => {
  const axis = runAxis(runs)
  const cells = runs.flatMap((r) => Object.entries(r.rowsPerTable).map(([table, rows]) => ({ run: axis.name(r), table, rows })))
  const groups = groupSmall(
    cells,
    (c) => c.table,
    (c) => c.rows
  )
  return plotSvg(
    (P) => ({
      width: HALF,
      height: 230,
      marginBottom: axis.marginBottom,
      color: { legend: true, label: "table", domain: groups.domain },
      x: axis.x,
      y: { label: "rows written", grid: true },
      marks: [
        P.barY(
          cells.map((c) => ({ ...c, series: groups.of(c) })),
          { x: "run", y: "rows", fill: "series", title: (d: { table: string; rows: number }) => `${d.table}: ${d.rows} rows` }
        ),
        P.ruleY([0])
      ]
    }),
    { id: "rows-per-run" }
  )
}

const durations = (runs: ReadonlyArray<RunLine>) => {
  const finished = runs.filter((r) => r.seconds !== null)
  const axis = runAxis(finished)
  return plotSvg(
    (P) => ({
      width: HALF,
      height: 210,
      marginBottom: axis.marginBottom,
      color: { legend: true, label: "status", ...statusScale(finished) },
      x: axis.x,
      y: { label: "seconds", grid: true },
      marks: [
        P.barY(finished, {
          x: axis.name,
          y: "seconds",
          fill: "status",
          title: (r: RunLine) => `${r.runId}: ${r.status}, ${(r.seconds ?? 0).toFixed(1)} s${r.error ? `, ${r.error}` : ""}`
        }),
        P.ruleY([0])
      ]
    }),
    { id: "run-durations" }
  )
}

const KINDS = [
  ["rejects", (r: RunLine) => r.rejects],
  ["missing keys", (r: RunLine) => r.missing],
  ["shortfall (records)", (r: RunLine) => r.shortRecords]
] as const

/** Losses per run, only the kinds that have any (a grid of zeros says nothing). */
const losses = (runs: ReadonlyArray<RunLine>) => {
  const axis = runAxis(runs)
  const kinds = KINDS.filter(([, n]) => runs.some((r) => n(r) > 0))
  const cells = runs.flatMap((r) => kinds.map(([kind, n]) => ({ run: axis.name(r), kind, n: n(r) })))
  return plotSvg(
    (P) => ({
      width: HALF,
      height: 50 + 34 * kinds.length + axis.marginBottom,
      marginLeft: 130,
      marginBottom: axis.marginBottom,
      x: axis.x,
      y: { label: null, domain: kinds.map(([k]) => k) },
      color: { type: "sqrt", range: ["#fdf6ee", "#f29b52"], interpolate: "rgb", domain: [0, Math.max(1, ...cells.map((c) => c.n))] },
      marks: [
        P.cell(cells, { x: "run", y: "kind", fill: "n", inset: 1, stroke: "#ddd" }),
        P.text(cells, { x: "run", y: "kind", text: (c: { n: number }) => (c.n === 0 ? "" : String(c.n)) })
      ]
    }),
    { id: "losses-per-run" }
  )
}

/** Every chart of the report, in page order; a chart without data (or only zeros) says so instead. */
export const reportCharts = async (data: ReportData): Promise<ReadonlyArray<Chart>> => {
  const runs = data.runs.slice(-RUNS_CHARTED)
  const last = data.runs.length > RUNS_CHARTED ? `the last ${RUNS_CHARTED} of ${data.runs.length} runs` : "every run"
  const f = data.bill.forecast
  const labels = new Map(runs.map((r) => [r.runId, runs.length > 10 ? r.label.split(" ")[0]! : r.label]))
  const chart = async (id: string, title: string, caption: string, has: boolean, svg: () => Promise<string>, none: string) => ({
    id,
    title,
    caption,
    svg: has ? await svg() : undefined,
    none
  })
  return Promise.all([
    chart(
      "balance",
      "Balance left after each run",
      `Units left after each run that was charged (Svc-Units-Remaining of its last charged answer); at ${f.perDay.toFixed(1)} units a day (the last ${f.days} days) the forecast above says when it reaches zero.`,
      data.bill.trend.some((p) => labels.has(p.runId)),
      () => balanceChart(data.bill, (id) => labels.get(id)),
      "No answer in this period reported a balance (Svc-Units-Remaining)."
    ),
    chart(
      "units-per-day",
      "Units and EUR per day",
      `Units charged per UTC day (the ledger), by pipeline, the five largest and the rest as "other"; ${
        data.caps.dailyUnits === undefined
          ? "no daily cap is set (budget.dailyMaxUnits)"
          : `daily cap ${data.caps.dailyUnits} units (budget.dailyMaxUnits)${data.caps.dailyUnits > 3 * Math.max(1, ...data.daily.map((d) => d.units)) ? ", far above every day: not drawn" : ", dashed"}`
      }.`,
      data.daily.length > 0,
      () => unitsPerDay(data.daily, data.caps.dailyUnits),
      "No charges in this period."
    ),
    chart(
      "units-per-run",
      "Units per run against the run cap: charged and planned",
      `Bars: units each run was charged (the ledger), by status; black ticks: what its plan expected; dashed: the run cap ${data.caps.runUnits} units (budget.maxUnits). Log scale, so a 1-unit run and the cap both show; ${last}.`,
      runs.length > 0,
      () => unitsPerRun(data, runs),
      "No runs in this period."
    ),
    chart(
      "units-per-pipeline",
      "Units and EUR per pipeline",
      "Every charge of the ledger, by pipeline, with units per 1,000 rows landed (a replace table's rows counted once).",
      data.pipelines.length > 0,
      () => unitsPerPipeline(data),
      "No pipelines have run in this period."
    ),
    chart(
      "rows-per-run",
      "Rows written per run",
      `Rows each run wrote, by table (the five largest, the rest as "other"); a replace table is rewritten whole by each run; ${last}.`,
      runs.some((r) => r.rows > 0),
      () => rowsPerRun(runs),
      "No run has landed rows in this period."
    ),
    chart(
      "run-durations",
      "Run durations and statuses",
      `Seconds from start to finish, by status (unfinished runs are left out); ${last}.`,
      runs.some((r) => r.seconds !== null),
      () => durations(runs),
      "No run has finished in this period."
    ),
    chart(
      "losses-per-run",
      "Rejects, missing keys and shortfalls per run",
      `Records that failed their schema (_rejects), fan-out keys the service did not know (_missing), and records a slice lacks of what the service declared (_slices); only the kinds that occurred; ${last}.`,
      runs.some((r) => r.rejects + r.missing + r.shortRecords > 0),
      () => losses(runs),
      "No rejects, missing keys or shortfalls in these runs."
    )
  ])
}
