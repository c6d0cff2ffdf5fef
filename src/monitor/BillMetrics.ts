/**
 * The bill in the metrics file: account-level gauges (no `pipeline` label) written with each
 * run's figures, from the same `Bill` the report and `status` show (`report/Bill.ts`). They are
 * replaced whole each time a run writes the file; a run in progress keeps them as they were.
 */
import type { Bill } from "../report/Bill.js"
import { eurOf } from "../service/CostGuard.js"
import type { Family } from "./PrometheusFile.js"
import type { Sample } from "./RunFigures.js"

export const BILL_METRICS = {
  estate_etl_units_remaining: "Units left in the account: the last Svc-Units-Remaining a charged answer reported (the ledger).",
  estate_etl_units_remaining_timestamp_seconds: "When the answer that reported estate_etl_units_remaining came, Unix seconds.",
  estate_etl_units_month_to_date: "Units charged this UTC month, every pipeline (the ledger).",
  estate_etl_eur_month_to_date: "EUR charged this UTC month (units x 0.04).",
  estate_etl_forecast_units_per_day: "Units a day over the last 7 days (fewer when the ledger is younger): the forecast's rate.",
  estate_etl_forecast_days_left: "Days the balance lasts at estate_etl_forecast_units_per_day (+Inf when nothing was spent)."
} as const

export type BillMetric = keyof typeof BILL_METRICS

/** The bill's samples; the balance's only once an answer reported one. */
export const billSamples = (bill: Bill): Array<Sample> => {
  const one = (name: BillMetric, value: number): Sample => ({ name, labels: {}, value })
  const f = bill.forecast
  return [
    ...(bill.balance
      ? [
          one("estate_etl_units_remaining", bill.balance.units),
          one("estate_etl_units_remaining_timestamp_seconds", Math.round(Date.parse(bill.balance.at) / 1000)),
          one("estate_etl_forecast_days_left", f.daysLeft ?? Infinity)
        ]
      : []),
    one("estate_etl_units_month_to_date", bill.month.units),
    one("estate_etl_eur_month_to_date", eurOf(bill.month.units)),
    one("estate_etl_forecast_units_per_day", f.perDay)
  ]
}

/** `families` with the bill's families replaced by `bill`'s samples (kept as they were without one). */
export const mergeBill = (families: ReadonlyArray<Family>, bill: Bill | undefined): Array<Family> => {
  if (bill === undefined) return [...families]
  const fresh = billSamples(bill)
  const names = new Set<string>(Object.keys(BILL_METRICS))
  const others = families.filter((f) => !names.has(f.name))
  const mine = Object.entries(BILL_METRICS).map(([name, help]) => ({
    name,
    help,
    type: "gauge",
    samples: fresh.filter((s) => s.name === name)
  }))
  return [...mine, ...others]
}
