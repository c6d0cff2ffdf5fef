/**
 * The top of the report, the answer to "how much is left and when will it run out": three cards
 * (balance, the month, the forecast) and what refresh saved against full pulls. Every figure
 * carries a `data-bill` attribute with its plain number, so a test can read it.
 */
import { eurOf } from "../service/CostGuard.js"
import type { ReportData } from "./ReportData.js"

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
const num = (n: number) => n.toLocaleString("en", { maximumFractionDigits: 1 })
const money = (units: number) => `EUR ${eurOf(units).toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
const figure = (key: string, value: number | string, text: string) =>
  `<span data-bill="${key}" data-value="${escape(String(value))}">${escape(text)}</span>`

const card = (label: string, big: string, small: ReadonlyArray<string>) =>
  `<div class="card"><div class="label">${escape(label)}</div><div class="big">${big}</div>` +
  small.map((s) => `<div class="small">${s}</div>`).join("") +
  `</div>`

const balanceCard = (data: ReportData) => {
  const b = data.bill.balance
  if (!b) return card("Balance left", "not reported yet", ["No charged answer in the ledger carried Svc-Units-Remaining."])
  const change = data.bill.weekChange
  return card("Balance left", `${figure("balance", b.units, `${num(b.units)} units`)}`, [
    `${money(b.units)}, as of ${escape(b.at)}`,
    change === undefined ? "" : `${figure("week-change", change, `${change > 0 ? "+" : ""}${num(change)} units`)} over the last 7 days`
  ])
}

const monthCard = (data: ReportData) => {
  const m = data.bill.month
  const f = data.bill.forecast
  return card(m.toDate ? `Month to date (${m.month})` : `Month ${m.month}`, figure("month-units", m.units, `${num(m.units)} units`), [
    figure("month-eur", eurOf(m.units), money(m.units)),
    f.monthProjected === undefined
      ? ""
      : `at this rate by the month's end: ${num(Math.round(f.monthProjected))} units (${money(f.monthProjected)})`
  ])
}

const forecastCard = (data: ReportData) => {
  const f = data.bill.forecast
  const rate = `${figure("per-day", f.perDay, num(f.perDay))} units a day over the last ${f.days} day${f.days === 1 ? "" : "s"}`
  const cap =
    f.dailyCap === undefined
      ? "no daily cap (budget.dailyMaxUnits)"
      : `${Math.round((f.perDay / f.dailyCap) * 100)}% of the daily cap of ${num(f.dailyCap)}` +
        (f.daysLeftAtDailyCap === undefined ? "" : `; spending the cap daily, it lasts ${num(Math.floor(f.daysLeftAtDailyCap))} days`)
  const big =
    f.runsOutOn !== undefined
      ? `runs out on ${figure("runs-out-on", f.runsOutOn, f.runsOutOn)}`
      : f.perDay <= 0
        ? "not at this rate"
        : data.bill.balance
          ? "lasts over 100 years"
          : "no balance yet"
  const daysLeft = f.daysLeft === undefined ? "" : `${figure("days-left", Math.floor(f.daysLeft), num(Math.floor(f.daysLeft)))} days left; `
  return card("Forecast", `<span class="${f.daysLeft !== undefined && f.daysLeft < 14 ? "warn" : ""}">${big}</span>`, [
    `${daysLeft}${rate}`,
    cap
  ])
}

const savingsLine = (data: ReportData) => {
  const s = data.savings
  if (s.runs === 0)
    return `<p class="caption" id="savings">No incremental runs in this period: every run read everything its plan allowed.</p>`
  return (
    `<p class="caption" id="savings">Refresh saved ${figure("saved", s.saved, `${num(s.saved)} units`)} (${money(s.saved)}) against full pulls: ` +
    `${num(s.runs)} incremental run${s.runs === 1 ? "" : "s"} of ${escape(s.pipelines.join(", "))} were charged ${num(s.charged)} units where full pulls cost ${num(s.full)}` +
    ` (${s.measured} of ${s.runs} priced by the pipeline's last full read, the rest by its plan).</p>`
  )
}

/** The bill cards and the savings line. */
export const billPanel = (data: ReportData): string =>
  `<div class="bill" id="bill">${balanceCard(data)}${monthCard(data)}${forecastCard(data)}</div>${savingsLine(data)}`
