/**
 * The report's money charts, drawn so their scales show the data: the balance each run left with
 * where the recent rate takes it, and units per day against the daily cap (the cap is drawn when it
 * is near the bars; far above them it is a note, so a 40-unit day is not a line at zero under a
 * 5,000-unit axis).
 */
import { EUR_PER_UNIT, eurOf } from "../service/CostGuard.js"
import type { Bill } from "./Bill.js"
import { type Plot, plotSvg } from "./PlotSvg.js"
import type { DailySpend } from "./ReportData.js"

export const HALF = 580
export const CAP = "#c62828"
export const eurText = (units: number) => `EUR ${eurOf(units).toFixed(2)}`
export const unitsLabel = `units (1 unit = EUR ${EUR_PER_UNIT.toFixed(2)})`
/** Series drawn in their own colour; smaller ones are summed into "other". */
export const SERIES_SHOWN = 5

/** The names of the `SERIES_SHOWN` largest series (by `size`), the rest named "other". */
export const groupSmall = <T>(items: ReadonlyArray<T>, name: (t: T) => string, size: (t: T) => number) => {
  const totals = new Map<string, number>()
  for (const t of items) totals.set(name(t), (totals.get(name(t)) ?? 0) + size(t))
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([n]) => n)
  const kept = new Set(ranked.length <= SERIES_SHOWN + 1 ? ranked : ranked.slice(0, SERIES_SHOWN))
  return {
    of: (t: T) => (kept.has(name(t)) ? name(t) : "other"),
    domain: [...ranked.filter((n) => kept.has(n)), ...(kept.size < ranked.length ? ["other"] : [])]
  }
}

/** A cap is drawn when it is at most this many times the largest bar; above, the axis would flatten the bars. */
export const CAP_IN_VIEW = 3

/** The cap as a dashed rule with its label; nothing when there is none or it is far above the data. */
export const capRule = (P: Plot, cap: number | undefined, name: string, largest: number) =>
  cap === undefined || cap > CAP_IN_VIEW * Math.max(largest, 1)
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

/**
 * The balance each run left, run after run (a trend of minutes or of months reads the same), on an
 * axis from just below the lowest balance: the fall per run shows. The forecast is in the cards.
 */
export const balanceChart = (bill: Bill, label: (runId: string) => string | undefined) => {
  const points = bill.trend.flatMap((p) => {
    const run = label(p.runId)
    return run === undefined ? [] : [{ ...p, run }]
  })
  const low = Math.min(...points.map((p) => p.units))
  const high = Math.max(...points.map((p) => p.units))
  const pad = Math.max(1, (high - low) * 0.15)
  return plotSvg(
    (P) => ({
      width: HALF,
      height: 230,
      marginLeft: 70,
      marginTop: 24,
      marginBottom: points.length > 10 ? 30 : 90,
      x: { type: "point", label: null, domain: points.map((p) => p.run), tickRotate: points.length > 10 ? 0 : -30, inset: 12 },
      y: { label: "units left", grid: true, domain: [Math.max(0, low - pad), high + pad] },
      marks: [
        P.lineY(points, { x: "run", y: "units", stroke: "#4269d0", strokeWidth: 2 }),
        P.dot(points, {
          x: "run",
          y: "units",
          fill: "#4269d0",
          r: 3.5,
          title: (p: { units: number; runId: string; at: string }) => `${p.at} after ${p.runId}: ${p.units} units left`
        }),
        P.text(points.slice(-1), { x: "run", y: "units", text: (p: { units: number }) => `${p.units} left`, dy: -10, textAnchor: "end" })
      ]
    }),
    { id: "balance" }
  )
}

/** Units per UTC day by pipeline (the largest five, the rest as "other"), against the daily cap. */
export const unitsPerDay = (daily: ReadonlyArray<DailySpend>, dailyCap: number | undefined) => {
  const days = [...new Set(daily.map((d) => d.day))]
  const perDay = days.map((day) => ({ day, units: daily.filter((d) => d.day === day).reduce((s, d) => s + d.units, 0) }))
  const groups = groupSmall(
    daily,
    (d) => d.pipeline,
    (d) => d.units
  )
  const bars = daily.map((d) => ({ ...d, series: groups.of(d) }))
  const largest = Math.max(0, ...perDay.map((d) => d.units))
  return plotSvg(
    (P) => ({
      width: Math.min(HALF, 200 + 60 * days.length),
      height: 230,
      marginTop: 30,
      color: { legend: true, label: "pipeline", domain: groups.domain },
      x: { type: "band", label: "day (UTC)", domain: days, tickRotate: days.length > 8 ? -35 : 0 },
      y: { label: unitsLabel, grid: true },
      marks: [
        P.barY(bars, {
          x: "day",
          y: "units",
          fill: "series",
          title: (d: DailySpend) => `${d.day} ${d.pipeline}: ${d.units} units, ${eurText(d.units)}`
        }),
        P.text(perDay, { x: "day", y: "units", text: (d: { units: number }) => eurText(d.units), dy: -7 }),
        P.ruleY([0]),
        ...capRule(P, dailyCap, "daily cap", largest)
      ]
    }),
    { id: "units-per-day" }
  )
}
