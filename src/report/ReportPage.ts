/**
 * The spend report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no
 * font, image or stylesheet from anywhere (it opens offline, and attached to a mail). Numbers a
 * reader may want to check are in tables beside the charts (`data-total` cells: the totals).
 */
import { eurOf } from "../service/CostGuard.js"
import { type Chart, reportCharts, RUNS_CHARTED } from "./ReportCharts.js"
import type { ReportData, RunLine, Totals } from "./ReportData.js"

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
const num = (n: number) => n.toLocaleString("en")
const money = (n: number) => `EUR ${n.toFixed(2)}`

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 980px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin: 28px 0 4px; }
.meta, .caption, .none { color: #555; font-size: 13px; margin: 2px 0 8px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.text { text-align: left; }
tr.total td { font-weight: 600; border-top: 2px solid #999; }
.status-done { color: #2e7d32; } .status-paused { color: #b07400; } .status-incomplete { color: #e26d13; }
.status-failed { color: #c62828; } .status-interrupted { color: #7b61a8; }
figure { margin: 0; } svg { overflow: visible; }
.empty { border: 1px dashed #bbb; padding: 16px 20px; background: #fafafa; }
td.error { white-space: normal; min-width: 220px; text-align: left; font-size: 12px; color: #555; }
`

const totalsRow = (t: Totals, total: boolean) => {
  const cell = (key: string, text: string) => `<td${total ? ` data-total="${key}"` : ""}>${text}</td>`
  return (
    `<tr${total ? ` class="total"` : ""}><td>${escape(total ? "all pipelines" : t.pipeline)}</td>` +
    cell("runs", num(t.runs)) +
    cell("units", num(t.units)) +
    cell("eur", money(t.eur)) +
    cell("rows", num(t.rows)) +
    cell("rejects", num(t.rejects)) +
    cell("missing", num(t.missing)) +
    cell("shortfall", `${num(t.shortRecords)} (${num(t.shortSlices)} slices)`) +
    `</tr>`
  )
}

const totalsTable = (data: ReportData) =>
  `<table id="totals"><thead><tr><th>pipeline</th><th>runs</th><th>units</th><th>EUR</th><th>rows landed</th><th>rejects</th><th>missing keys</th><th>shortfall (records, slices)</th></tr></thead><tbody>` +
  data.pipelines.map((p) => totalsRow(p, false)).join("") +
  totalsRow(data.totals, true) +
  `</tbody></table>`

const runRow = (r: RunLine) =>
  `<tr><td>${escape(r.label)}</td><td class="text">${escape(r.startedAt)}</td><td class="text status-${escape(r.status)}">${escape(r.status)}</td>` +
  `<td>${r.seconds === null ? "" : `${r.seconds.toFixed(1)} s`}</td><td>${num(r.pages)}</td><td>${num(r.rows)}</td><td>${num(r.units)}</td>` +
  `<td>${money(eurOf(r.units))}</td><td>${num(r.rejects)}</td><td>${num(r.missing)}</td><td>${num(r.shortRecords)}</td>` +
  `<td class="error" title="${escape(r.error ?? "")}">${escape(r.error ?? "")}</td></tr>`

const runsTable = (data: ReportData) =>
  `<table id="runs"><thead><tr><th>run</th><th>started (UTC)</th><th>status</th><th>duration</th><th>pages</th><th>rows</th><th>units</th><th>EUR</th><th>rejects</th><th>missing</th><th>shortfall</th><th>error</th></tr></thead><tbody>` +
  data.runs.slice(-RUNS_CHARTED).reverse().map(runRow).join("") +
  `</tbody></table>`

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
    `<h1>Spend report</h1><p class="meta">Warehouse <code>${escape(data.warehouse)}</code>, generated ${escape(data.generatedAt)}. ` +
    `${escape(capsLine(data))}</p>`
  if (empty) {
    return (
      `${head}<body data-empty="true">${intro}<div class="empty" id="no-runs"><h2>No runs yet</h2>` +
      `<p>This warehouse holds no runs and no charges. Run a pipeline (<code>estate-etl run plots-germany</code>), then make the report again.</p></div>` +
      `<h2>Totals</h2>${totalsTable(data)}</body></html>\n`
    )
  }
  const charts = await reportCharts(data)
  return (
    `${head}<body data-empty="false">${intro}<h2>Totals</h2>` +
    `<p class="caption">Units from the ledger (every charge); rows, rejects, missing keys and shortfalls from the runs' bookkeeping.</p>` +
    totalsTable(data) +
    charts.map(section).join("") +
    `<h2>Runs</h2><p class="caption">The newest first${data.runs.length > RUNS_CHARTED ? `, the last ${RUNS_CHARTED} of ${data.runs.length}` : ""}.</p>` +
    runsTable(data) +
    `</body></html>\n`
  )
}
