/**
 * The bill in three lines, as `status` and `report` print them: the balance (and how it moved
 * over the last 7 days), the month's units and EUR, and the forecast at the recent rate against
 * the daily cap and the balance ("runs out on <day>").
 */
import type { Bill } from "../report/Bill.js"
import { eurOf } from "../service/CostGuard.js"

const num = (n: number) => n.toLocaleString("en", { maximumFractionDigits: 1 })
const money = (units: number) => `EUR ${eurOf(units).toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
const days = (d: number) => (d < 1 ? "within a day" : `in ${num(Math.floor(d))} day${Math.floor(d) === 1 ? "" : "s"}`)

/** `balance: ...`: the newest balance the service reported. */
export const balanceLine = (bill: Bill): string => {
  const b = bill.balance
  if (!b) return "balance: not reported yet (no charged answer in the ledger carried Svc-Units-Remaining)"
  const change =
    bill.weekChange === undefined ? "" : `; ${bill.weekChange > 0 ? "+" : ""}${num(bill.weekChange)} units over the last 7 days`
  return `balance: ${num(b.units)} units (${money(b.units)}) left, as of ${b.at}${change}`
}

/** `month to date (YYYY-MM): ...`, or `month (YYYY-MM): ...` for a month gone by. */
export const monthLine = (bill: Bill): string =>
  `${bill.month.toDate ? "month to date" : "month"} (${bill.month.month}): ${num(bill.month.units)} units, ${money(bill.month.units)}`

/** `forecast: ...`: the rate of the last days, when the balance runs out at it, and the daily cap's share. */
export const forecastLine = (bill: Bill): string => {
  const f = bill.forecast
  const rate = `${num(f.perDay)} units a day (last ${f.days} day${f.days === 1 ? "" : "s"})`
  const cap =
    f.dailyCap === undefined
      ? "no daily cap"
      : `${Math.round((f.perDay / f.dailyCap) * 100)}% of the daily cap of ${num(f.dailyCap)}` +
        (f.daysLeftAtDailyCap !== undefined ? ` (at the cap it runs out ${days(f.daysLeftAtDailyCap)})` : "")
  const month = f.monthProjected !== undefined ? `; this month at this rate: ${num(Math.round(f.monthProjected))} units` : ""
  if (f.perDay <= 0) return `forecast: nothing spent in the last ${f.days} days; the balance does not run out at this rate; ${cap}`
  const out =
    f.daysLeft === undefined
      ? "no balance reported yet to run out"
      : f.runsOutOn === undefined
        ? "the balance lasts more than 100 years at this rate"
        : `the balance runs out on ${f.runsOutOn} (${days(f.daysLeft)})`
  return `forecast: ${rate}, ${cap}; ${out}${month}`
}

/** The three lines. */
export const billLines = (bill: Bill): ReadonlyArray<string> => [balanceLine(bill), monthLine(bill), forecastLine(bill)]
