/**
 * The spend report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no
 * font, image or stylesheet from anywhere (it opens offline, and attached to a mail). It opens
 * with the answer to the payer (`BillPanel.ts`: how much is left and when it runs out), then the
 * charts two to a row, so the page fits two screens. Numbers a reader may want to check are in
 * tables beside the charts (`data-total` cells: the totals).
 */
import { eurOf } from "../service/CostGuard.js"
import { billPanel } from "./BillPanel.js"
import { type Chart, reportCharts } from "./ReportCharts.js"
import type { ReportData, RunLine, Totals } from "./ReportData.js"

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
const num = (n: number) => n.toLocaleString("en")
const money = (n: number) => `EUR ${n.toFixed(2)}`

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px auto; max-width: 1220px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 18px 0 2px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(580px, 1fr)); gap: 0 28px; }
.bill { display: flex; gap: 14px; margin: 12px 0 4px; flex-wrap: wrap; }
.bill .card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 250px; flex: 1; }
.bill .label { font-size: 12px; color: #555; text-transform: uppercase; letter-spacing: .04em; }
.bill .big { font-size: 24px; font-weight: 600; margin: 2px 0; } .bill .small { font-size: 13px; color: #444; }
.bill .warn { color: #c62828; }
.meta, .caption, .none { color: #555; font-size: 13px; margin: 2px 0 8px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.text { text-align: left; }
tr.total td { font-weight: 600; border-top: 2px solid #999; }
.status-done { color: #2e7d32; } .status-paused { color: #b07400; } .status-incomplete { color: #e26d13; }
.status-failed { color: #c62828; } .status-interrupted { color: #7b61a8; }
figure { margin: 0; } svg { overflow: visible; }
.empty { border: 1px dashed #bbb; padding: 16px 20px; background: #fafafa; }
td.error { max-width: 240px; overflow: hidden; text-overflow: ellipsis; text-align: left; font-size: 12px; color: #555; }
`

const totalsRow = (t: Totals, total: boolean) => {
  const cell = (key: string, text: string) => `<td data-col="${key}"${total ? ` data-total="${key}"` : ""}>${text}</td>`
  return (
    `<tr${total ? ` class="total"` : ` data-pipeline="${escape(t.pipeline)}"`}><td>${escape(total ? "all pipelines" : t.pipeline)}</td>` +
    cell("runs", num(t.runs)) +
    cell("units", num(t.units)) +
    cell("eur", money(t.eur)) +
    cell("rows", num(t.rows)) +
    cell("per1000", t.unitsPer1000Rows === null ? "" : t.unitsPer1000Rows.toFixed(1)) +
    cell("rejects", num(t.rejects)) +
    cell("missing", num(t.missing)) +
    cell("shortfall", `${num(t.shortRecords)} (${num(t.shortSlices)} slices)`) +
    `</tr>`
  )
}

const totalsTable = (data: ReportData) =>
  `<table id="totals"><thead><tr><th>pipeline</th><th>runs</th><th>units</th><th>EUR</th><th>rows landed</th><th>units / 1,000 rows</th><th>rejects</th><th>missing keys</th><th>shortfall (records, slices)</th></tr></thead><tbody>` +
  data.pipelines.map((p) => totalsRow(p, false)).join("") +
  totalsRow(data.totals, true) +
  `</tbody></table>`

const runRow = (r: RunLine) =>
  `<tr><td>${escape(r.label)}</td><td class="text">${escape(r.startedAt)}</td><td class="text status-${escape(r.status)}">${escape(r.status)}</td>` +
  `<td>${r.seconds === null ? "" : `${r.seconds.toFixed(1)} s`}</td><td>${num(r.pages)}</td><td>${num(r.rows)}</td>` +
  `<td>${r.unitsPlanned === null ? "" : num(Math.round(r.unitsPlanned * 100) / 100)}</td><td>${num(r.units)}</td>` +
  `<td>${money(eurOf(r.units))}</td><td>${num(r.rejects)}</td><td>${num(r.missing)}</td><td>${num(r.shortRecords)}</td>` +
  `<td class="error" title="${escape(r.error ?? "")}">${escape(r.error ?? "")}</td></tr>`

const runsTable = (data: ReportData) =>
  `<table id="runs"><thead><tr><th>run</th><th>started (UTC)</th><th>status</th><th>duration</th><th>pages</th><th>rows</th><th>planned</th><th>charged</th><th>EUR</th><th>rejects</th><th>missing</th><th>shortfall</th><th>error</th></tr></thead><tbody>` +
  data.runs.slice(-RUNS_LISTED).reverse().map(runRow).join("") +
  `</tbody></table>`

/** Runs the table lists (the newest); the charts show more, `status` and `_runs` every one. */
export const RUNS_LISTED = 12

const section = (c: Chart) =>
  `<section class="chart" data-section="${c.id}"><h2>${escape(c.title)}</h2><p class="caption">${escape(c.caption)}</p>` +
  (c.svg ?? `<p class="none">${escape(c.none)}</p>`) +
  `</section>`

const capsLine = (data: ReportData) =>
  `Caps of the settings: ${num(data.caps.runUnits)} units a run (budget.maxUnits, ${money(eurOf(data.caps.runUnits))})` +
  (data.caps.dailyUnits === undefined
    ? "; no daily cap (budget.dailyMaxUnits)."
    : `; ${num(data.caps.dailyUnits)} units a UTC day (budget.dailyMaxUnits, ${money(eurOf(data.caps.dailyUnits))}).`)

/** The page; an empty warehouse (no runs, no charges) gives a "no runs yet" page with the zero totals. */
export const reportPage = async (data: ReportData): Promise<string> => {
  const empty = data.runs.length === 0 && data.daily.length === 0
  const head =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>estate-etl spend report</title><style>${STYLE}</style></head>`
  const intro =
    `<h1>Spend report</h1><p class="meta">${escape(data.period.label === "every run" ? "Every run" : `Runs ${data.period.label}`)}; warehouse <code>${escape(data.warehouse)}</code>, generated ${escape(data.generatedAt)}. ` +
    `${escape(capsLine(data))}</p>`
  if (empty) {
    return (
      `${head}<body data-empty="true">${intro}<div class="empty" id="no-runs"><h2>No runs yet</h2>` +
      `<p>This warehouse holds no runs and no charges. Run a pipeline (<code>estate-etl run plots-germany</code>), then make the report again.</p></div>` +
      `<h2>Totals</h2>${totalsTable(data)}</body></html>\n`
    )
  }
  const charts = await reportCharts(data)
  const drawn = charts.filter((c) => c.svg !== undefined)
  const left = charts.filter((c) => c.svg === undefined)
  return (
    `${head}<body data-empty="false">${intro}${billPanel(data)}<h2>Totals</h2>` +
    `<p class="caption">Units from the ledger (every charge); rows (a replace table counted once), rejects, missing keys and shortfalls from the runs' bookkeeping.</p>` +
    totalsTable(data) +
    `<div class="charts">${drawn.map(section).join("")}</div>` +
    (left.length > 0 ? `<p class="none" id="not-drawn">${left.map((c) => `${escape(c.title)}: ${escape(c.none)}`).join(" ")}</p>` : "") +
    `<h2>Runs</h2><p class="caption">The newest first${data.runs.length > RUNS_LISTED ? `, the last ${RUNS_LISTED} of ${data.runs.length} (status and _runs list every one)` : ""}; planned: what the run's plan expected, charged: the ledger.</p>` +
    runsTable(data) +
    `</body></html>\n`
  )
}
