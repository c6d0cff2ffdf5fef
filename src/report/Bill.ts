/**
 * The bill, as the payer asks it: how much is left, what this month cost, and when the balance
 * runs out at the current rate. Read from the ledger (`_ledger`: every charge, and since format 4
 * the balance each answer reported, `Svc-Units-Remaining`); the same figures feed the report,
 * `status` (three lines) and the metrics file (`monitor/BillMetrics.ts`). Reads only; a warehouse
 * of an older format (no `units_remaining` yet) has no balance, and says so.
 */
import { Effect } from "effect"
import { TableReads } from "../load/Warehouse.js"
import type { TableReadsApi } from "../load/TableReads.js"
import { eurOf } from "../service/CostGuard.js"
import { monthBounds, monthOf } from "./ReportPeriod.js"

/** The balance a run left: the last `Svc-Units-Remaining` among its charges. */
export interface BalancePoint {
  readonly at: string
  readonly units: number
  readonly runId: string
  readonly pipeline: string
}

export interface Forecast {
  /** Units a day at the recent rate: the ledger's last `days` days (7, fewer for a younger ledger). */
  readonly perDay: number
  readonly days: number
  /** This month's units at that rate by its last day (the current month only). */
  readonly monthProjected: number | undefined
  readonly dailyCap: number | undefined
  /** Days the balance lasts at `perDay`; undefined without a balance or without spending. */
  readonly daysLeft: number | undefined
  /** The UTC day the balance reaches zero at `perDay`. */
  readonly runsOutOn: string | undefined
  /** Days the balance lasts if every day spent the daily cap: the soonest it can run out. */
  readonly daysLeftAtDailyCap: number | undefined
}

export interface Bill {
  readonly asOf: string
  /** The newest balance the service reported, with the run it came with. */
  readonly balance: BalancePoint | undefined
  /** The balance each run left, oldest first (within `from`..`to` when given). */
  readonly trend: ReadonlyArray<BalancePoint>
  /** The balance now minus the balance 7 days ago (or the oldest one since). */
  readonly weekChange: number | undefined
  /** Units and EUR charged in `month` (`YYYY-MM`); `toDate` when it is the current month. */
  readonly month: { readonly month: string; readonly units: number; readonly eur: number; readonly toDate: boolean }
  readonly forecast: Forecast
}

export interface BillOptions {
  readonly now: Date
  readonly dailyCap: number | undefined
  /** The month to total (default: the current one). */
  readonly month?: string | undefined
  /** Bounds of the balance trend (ISO instants). */
  readonly from?: string | undefined
  readonly to?: string | undefined
}

const DAY_MS = 86_400_000
const TS = (p: string) => `CAST(CAST(${p} AS TIMESTAMPTZ) AS TIMESTAMP)`
const ISO = (col: string) => `strftime(${col}, '%Y-%m-%dT%H:%M:%SZ')`

/** The last balance per run, oldest first; the newest charge wins within a run (ties: the lower balance, spent later). */
const TREND_SQL = (where: string) => `
SELECT run_id, pipeline, ${ISO('"at"')} AS at, units_remaining AS units FROM (
  SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY "at" DESC, units_remaining ASC) AS r
  FROM _ledger WHERE units_remaining IS NOT NULL${where}
) WHERE r = 1 ORDER BY "at", units_remaining DESC`

/** The balance before the ledger's first charge: that charge's remaining balance plus what it cost. */
const FIRST_BALANCE_SQL = `SELECT units_remaining + units AS units FROM _ledger WHERE units_remaining IS NOT NULL
  ORDER BY "at", units_remaining DESC LIMIT 1`

const pointOf = (r: Record<string, unknown>): BalancePoint => ({
  at: String(r.at),
  units: Number(r.units),
  runId: String(r.run_id),
  pipeline: String(r.pipeline)
})

/**
 * Whether the open warehouse's `table` has `column`: a warehouse of an older format opened
 * read-only is not migrated, and lacks the columns format 4 added.
 */
export const hasColumn = (w: TableReadsApi, table: string, column: string) =>
  Effect.map(
    w.query(`SELECT count(*) AS n FROM duckdb_columns() WHERE database_name = current_database() AND table_name = ? AND column_name = ?`, [
      table,
      column
    ]),
    (rows) => Number(rows[0]?.n ?? 0) > 0
  )

/** The bill of the open warehouse as of `options.now`. */
export const readBill = (options: BillOptions) =>
  Effect.gen(function* () {
    const w = yield* TableReads
    const now = options.now
    const nowIso = now.toISOString()
    const month = options.month ?? monthOf(now)
    const [monthFrom, monthTo] = monthBounds(month)
    const units = (from: string, to: string) =>
      Effect.map(
        w.query(`SELECT coalesce(sum(units), 0) AS u FROM _ledger WHERE "at" >= ${TS("?")} AND "at" < ${TS("?")}`, [from, to]),
        (rows) => Number(rows[0]?.u ?? 0)
      )
    const monthUnits = yield* units(monthFrom, monthTo < nowIso ? monthTo : nowIso)
    // the rate: the last 7 days, or the days since the first charge when the ledger is younger
    const first = (yield* w.query(`SELECT ${ISO('min("at")')} AS first FROM _ledger`))[0]?.first
    const age = first === null || first === undefined ? 0 : (now.getTime() - Date.parse(String(first))) / DAY_MS
    const days = Math.min(7, Math.max(1, Math.ceil(age)))
    const recent = yield* units(new Date(now.getTime() - days * DAY_MS).toISOString(), nowIso)
    const perDay = recent / days

    const withBalance = yield* hasColumn(w, "_ledger", "units_remaining")
    const bounds = [
      ...(options.from ? [[`"at" >= ${TS("?")}`, options.from] as const] : []),
      ...(options.to ? [[`"at" < ${TS("?")}`, options.to] as const] : [])
    ]
    const trend = withBalance
      ? (yield* w.query(
          TREND_SQL(bounds.map(([c]) => ` AND ${c}`).join("")),
          bounds.map(([, v]) => v)
        )).map(pointOf)
      : []
    const latest = withBalance ? yield* w.query(TREND_SQL("")).pipe(Effect.map((rows) => rows.map(pointOf))) : []
    const balance = latest.at(-1)
    const weekAgo = new Date(now.getTime() - 7 * DAY_MS).toISOString()
    // the balance a week ago: the last point by then, else (a younger ledger) the balance before its first charge
    const weekStart =
      [...latest].reverse().find((p) => p.at <= weekAgo)?.units ??
      (latest.length === 0 ? undefined : Number((yield* w.query(FIRST_BALANCE_SQL))[0]?.units ?? latest[0]!.units))
    const weekChange = balance && weekStart !== undefined ? balance.units - weekStart : undefined

    const currentMonth = month === monthOf(now)
    const daysInMonth = (Date.parse(monthTo) - Date.parse(monthFrom)) / DAY_MS
    const daysGone = (now.getTime() - Date.parse(monthFrom)) / DAY_MS
    const daysLeft = balance && perDay > 0 ? Math.max(0, balance.units) / perDay : undefined
    const forecast: Forecast = {
      perDay,
      days,
      monthProjected: currentMonth ? monthUnits + perDay * Math.max(0, daysInMonth - daysGone) : undefined,
      dailyCap: options.dailyCap,
      daysLeft,
      runsOutOn:
        daysLeft === undefined || daysLeft > 36_500 ? undefined : new Date(now.getTime() + daysLeft * DAY_MS).toISOString().slice(0, 10),
      daysLeftAtDailyCap:
        balance && options.dailyCap !== undefined && options.dailyCap > 0 ? Math.max(0, balance.units) / options.dailyCap : undefined
    }
    return {
      asOf: nowIso.replace(/\.\d{3}Z$/, "Z"),
      balance,
      trend,
      weekChange,
      month: { month, units: monthUnits, eur: eurOf(monthUnits), toDate: currentMonth },
      forecast
    } satisfies Bill
  })
