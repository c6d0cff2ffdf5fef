/**
 * What the spend report shows, read from the warehouse's bookkeeping (`load/Bookkeeping.ts`):
 * units from `_ledger` (every charge, keyed by run and request id: the truth about money), runs
 * from `_runs`, rejects from `_rejects`, fan-out keys the service did not know from `_missing`,
 * shortfalls from `_slices` (by the rule `pipeline/run/Finish.ts` applies: the service declared
 * more than landed plus rejected and no cap the user set cut the slice, or the slice stalled or
 * hit a service limit). Reads only. A period (`ReportPeriod.ts`) bounds runs by their start and
 * charges by their time; the bill (`Bill.ts`: balance, month, forecast) is read beside them.
 *
 * Rows are counted once for replace tables: a run of a replace table rewrites the whole table, so
 * totals take the rows of the newest run that wrote it, not the sum over runs (which counted a
 * 2,184-row table 60 times).
 */
import { Effect } from "effect"
import { TableReads } from "../load/Warehouse.js"
import { eurOf } from "../service/CostGuard.js"
import { type Bill, hasColumn, readBill } from "./Bill.js"
import type { ReportPeriod } from "./ReportPeriod.js"
import { refreshSavings, type Savings } from "./Savings.js"

/** Units charged on one UTC day by one pipeline (`_ledger`). */
export interface DailySpend {
  readonly day: string
  readonly pipeline: string
  readonly units: number
}

/** One run, its charges from the ledger and its losses. */
export interface RunLine {
  readonly runId: string
  /** `#<n> <pipeline>`, n counting runs in start order: short enough for an axis. */
  readonly label: string
  readonly pipeline: string
  readonly status: string
  readonly startedAt: string
  /** Seconds from start to finish; null while it has not finished. */
  readonly seconds: number | null
  readonly pages: number
  /** Rows landed per table (`_runs.rows_per_table`). */
  readonly rowsPerTable: Readonly<Record<string, number>>
  readonly rows: number
  /** Units the ledger holds for the run. */
  readonly units: number
  /** Units its plan expected, and what the plan said a full pull would cost (null: not recorded). */
  readonly unitsPlanned: number | null
  readonly unitsFull: number | null
  readonly rejects: number
  readonly missing: number
  /** Slices that fell short, and the records they lack (declared - landed - rejected). */
  readonly shortSlices: number
  readonly shortRecords: number
  readonly error: string | null
}

/** Sums per pipeline (or over everything: `pipeline` "all"). */
export interface Totals {
  readonly pipeline: string
  readonly runs: number
  readonly units: number
  readonly eur: number
  /** Rows landed, a replace table counted once (its newest run's rows). */
  readonly rows: number
  /** Units per 1,000 rows landed; null without rows. */
  readonly unitsPer1000Rows: number | null
  readonly rejects: number
  readonly missing: number
  readonly shortSlices: number
  readonly shortRecords: number
}

export interface ReportData {
  readonly warehouse: string
  readonly generatedAt: string
  readonly period: ReportPeriod
  /** The settings' caps: units a run may spend (`budget.maxUnits`) and all runs a UTC day (`budget.dailyMaxUnits`). */
  readonly caps: { readonly runUnits: number; readonly dailyUnits: number | undefined }
  readonly daily: ReadonlyArray<DailySpend>
  readonly runs: ReadonlyArray<RunLine>
  readonly pipelines: ReadonlyArray<Totals>
  readonly totals: Totals
  readonly bill: Bill
  readonly savings: Savings
}

/** A slice that fell short, as `completenessOf` (pipeline/run/Finish.ts) counts it. */
const SHORT_SLICE = `(ended_by IN ('stalled', 'limit') OR (coalesce(ended_by, '') NOT IN ('cap', 'caught-up')
  AND done AND declared IS NOT NULL AND landed + rejected < declared))`

const RUNS_SQL = (where: string, ledgerWhere: string, full: string) => `
SELECT r.run_id, r.pipeline, r.status, strftime(r.started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
  CAST(date_diff('millisecond', r.started_at, r.finished_at) AS DOUBLE) / 1000 AS seconds,
  CAST(r.pages AS DOUBLE) AS pages, CAST(r.rows_per_table AS VARCHAR) AS rows_per_table, r.error,
  coalesce(l.units, 0) AS units, coalesce(j.n, 0) AS rejects, coalesce(m.n, 0) AS missing,
  coalesce(s.slices, 0) AS short_slices, coalesce(s.records, 0) AS short_records, r.units_planned, ${full} AS units_full
FROM _runs r
LEFT JOIN (SELECT run_id, sum(units) AS units FROM _ledger${ledgerWhere} GROUP BY run_id) l USING (run_id)
LEFT JOIN (SELECT run_id, CAST(count(*) AS DOUBLE) AS n FROM _rejects GROUP BY run_id) j USING (run_id)
LEFT JOIN (SELECT run_id, CAST(count(*) AS DOUBLE) AS n FROM _missing GROUP BY run_id) m USING (run_id)
LEFT JOIN (SELECT run_id, CAST(count(*) AS DOUBLE) AS slices,
    CAST(sum(greatest(coalesce(declared, 0) - landed - rejected, 0)) AS DOUBLE) AS records
  FROM _slices WHERE ${SHORT_SLICE} GROUP BY run_id) s USING (run_id)${where}
ORDER BY r.started_at, r.run_id`

const DAILY_SQL = (where: string) => `
SELECT strftime("at", '%Y-%m-%d') AS day, pipeline, sum(units) AS units
FROM _ledger${where} GROUP BY ALL ORDER BY day, pipeline`

const TS = (p: string) => `CAST(CAST(${p} AS TIMESTAMPTZ) AS TIMESTAMP)`

/** ` WHERE` bounds of `column` for the period, with their parameters. */
const bounded = (column: string, period: ReportPeriod) => {
  const parts = [
    ...(period.from !== undefined ? [[`${column} >= ${TS("?")}`, period.from] as const] : []),
    ...(period.to !== undefined ? [[`${column} < ${TS("?")}`, period.to] as const] : [])
  ]
  return { sql: parts.length === 0 ? "" : ` WHERE ${parts.map(([c]) => c).join(" AND ")}`, params: parts.map(([, v]) => v) }
}

/** Rows of `runs` (in start order), a replace table counted once: the rows of the newest run that wrote it. */
const rowsOnce = (runs: ReadonlyArray<RunLine>, replace: ReadonlySet<string>): number => {
  let total = 0
  const newest = new Map<string, number>()
  for (const r of runs) {
    for (const [table, n] of Object.entries(r.rowsPerTable)) {
      if (replace.has(table)) newest.set(table, n)
      else total += n
    }
  }
  return total + [...newest.values()].reduce((s, n) => s + n, 0)
}

const rowsOfJson = (text: unknown): Record<string, number> => {
  try {
    const parsed = JSON.parse(String(text ?? "{}")) as Record<string, unknown>
    return Object.fromEntries(Object.entries(parsed).map(([t, n]) => [t, Number(n)]))
  } catch {
    return {}
  }
}

const sum = (runs: ReadonlyArray<RunLine>, pick: (r: RunLine) => number) => runs.reduce((s, r) => s + pick(r), 0)

const totalsOf = (pipeline: string, runs: ReadonlyArray<RunLine>, units: number, replace: ReadonlySet<string>): Totals => {
  const rows = rowsOnce(runs, replace)
  return {
    pipeline,
    runs: runs.length,
    units,
    eur: eurOf(units),
    rows,
    unitsPer1000Rows: rows > 0 ? (units / rows) * 1000 : null,
    rejects: sum(runs, (r) => r.rejects),
    missing: sum(runs, (r) => r.missing),
    shortSlices: sum(runs, (r) => r.shortSlices),
    shortRecords: sum(runs, (r) => r.shortRecords)
  }
}

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))

/** The report's figures from the open warehouse over `period`; `caps` from the settings; `now`: the forecast's instant. */
export const readReportData = (caps: ReportData["caps"], period: ReportPeriod, now: Date = new Date()) =>
  Effect.gen(function* () {
    const w = yield* TableReads
    const ledgerBounds = bounded('"at"', period)
    const runBounds = bounded("r.started_at", period)
    const daily: Array<DailySpend> = (yield* w.query(DAILY_SQL(ledgerBounds.sql), ledgerBounds.params)).map((r) => ({
      day: String(r.day),
      pipeline: String(r.pipeline),
      units: Number(r.units)
    }))
    // format 3 warehouses opened read-only have no units_full (what a full pull would cost)
    const full = (yield* hasColumn(w, "_runs", "units_full")) ? "r.units_full" : "CAST(NULL AS DOUBLE)"
    const runs: Array<RunLine> = (yield* w.query(RUNS_SQL(runBounds.sql, ledgerBounds.sql, full), [
      ...ledgerBounds.params,
      ...runBounds.params
    ])).map((r, i) => {
      const rowsPerTable = rowsOfJson(r.rows_per_table)
      return {
        runId: String(r.run_id),
        label: `#${i + 1} ${String(r.pipeline)}`,
        pipeline: String(r.pipeline),
        status: String(r.status),
        startedAt: String(r.started_at),
        seconds: r.seconds === null || r.seconds === undefined ? null : Number(r.seconds),
        pages: Number(r.pages),
        rowsPerTable,
        rows: Object.values(rowsPerTable).reduce((s, n) => s + n, 0),
        units: Number(r.units),
        unitsPlanned: numOrNull(r.units_planned),
        unitsFull: numOrNull(r.units_full),
        rejects: Number(r.rejects),
        missing: Number(r.missing),
        shortSlices: Number(r.short_slices),
        shortRecords: Number(r.short_records),
        error: r.error === null || r.error === undefined ? null : String(r.error)
      }
    })
    const replace = new Set(
      (yield* w.query(`SELECT table_name FROM _tables WHERE disposition = 'replace'`)).map((r) => String(r.table_name))
    )
    // units by pipeline from the ledger itself, so a charge of a run no longer in _runs still counts
    const unitsOf = new Map<string, number>()
    for (const d of daily) unitsOf.set(d.pipeline, (unitsOf.get(d.pipeline) ?? 0) + d.units)
    const names = [...new Set([...runs.map((r) => r.pipeline), ...unitsOf.keys()])].sort()
    const pipelines = names.map((p) =>
      totalsOf(
        p,
        runs.filter((r) => r.pipeline === p),
        unitsOf.get(p) ?? 0,
        replace
      )
    )
    const bill = yield* readBill({ now, dailyCap: caps.dailyUnits, month: period.month, from: period.from, to: period.to })
    return {
      warehouse: w.path,
      generatedAt: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
      period,
      caps,
      daily,
      runs,
      pipelines,
      totals: totalsOf(
        "all",
        runs,
        daily.reduce((s, d) => s + d.units, 0),
        replace
      ),
      bill,
      savings: refreshSavings(runs)
    } satisfies ReportData
  })
