/**
 * What the spend report shows, read from the warehouse's bookkeeping (`load/Bookkeeping.ts`):
 * units from `_ledger` (every charge, keyed by run and request id: the truth about money), runs
 * from `_runs`, rejects from `_rejects`, fan-out keys the service did not know from `_missing`,
 * shortfalls from `_slices` (by the rule `pipeline/run/Finish.ts` applies: the service declared
 * more than landed plus rejected and no cap the user set cut the slice, or the slice stalled or
 * hit a service limit). Reads only.
 */
import { Effect } from "effect"
import { Warehouse } from "../load/Warehouse.js"
import { eurOf } from "../service/CostGuard.js"

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
  readonly rows: number
  readonly rejects: number
  readonly missing: number
  readonly shortSlices: number
  readonly shortRecords: number
}

export interface ReportData {
  readonly warehouse: string
  readonly generatedAt: string
  /** The settings' caps: units a run may spend (`budget.maxUnits`) and all runs a UTC day (`budget.dailyMaxUnits`). */
  readonly caps: { readonly runUnits: number; readonly dailyUnits: number | undefined }
  readonly daily: ReadonlyArray<DailySpend>
  readonly runs: ReadonlyArray<RunLine>
  readonly pipelines: ReadonlyArray<Totals>
  readonly totals: Totals
}

/** A slice that fell short, as `completenessOf` (pipeline/run/Finish.ts) counts it. */
const SHORT_SLICE = `(ended_by IN ('stalled', 'limit') OR (coalesce(ended_by, '') NOT IN ('cap', 'caught-up')
  AND done AND declared IS NOT NULL AND landed + rejected < declared))`

const RUNS_SQL = `
SELECT r.run_id, r.pipeline, r.status, strftime(r.started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
  CAST(date_diff('millisecond', r.started_at, r.finished_at) AS DOUBLE) / 1000 AS seconds,
  CAST(r.pages AS DOUBLE) AS pages, CAST(r.rows_per_table AS VARCHAR) AS rows_per_table, r.error,
  coalesce(l.units, 0) AS units, coalesce(j.n, 0) AS rejects, coalesce(m.n, 0) AS missing,
  coalesce(s.slices, 0) AS short_slices, coalesce(s.records, 0) AS short_records
FROM _runs r
LEFT JOIN (SELECT run_id, sum(units) AS units FROM _ledger GROUP BY run_id) l USING (run_id)
LEFT JOIN (SELECT run_id, CAST(count(*) AS DOUBLE) AS n FROM _rejects GROUP BY run_id) j USING (run_id)
LEFT JOIN (SELECT run_id, CAST(count(*) AS DOUBLE) AS n FROM _missing GROUP BY run_id) m USING (run_id)
LEFT JOIN (SELECT run_id, CAST(count(*) AS DOUBLE) AS slices,
    CAST(sum(greatest(coalesce(declared, 0) - landed - rejected, 0)) AS DOUBLE) AS records
  FROM _slices WHERE ${SHORT_SLICE} GROUP BY run_id) s USING (run_id)
ORDER BY r.started_at, r.run_id`

const DAILY_SQL = `
SELECT strftime("at", '%Y-%m-%d') AS day, pipeline, sum(units) AS units
FROM _ledger GROUP BY ALL ORDER BY day, pipeline`

const rowsOfJson = (text: unknown): Record<string, number> => {
  try {
    const parsed = JSON.parse(String(text ?? "{}")) as Record<string, unknown>
    return Object.fromEntries(Object.entries(parsed).map(([t, n]) => [t, Number(n)]))
  } catch {
    return {}
  }
}

const sum = (runs: ReadonlyArray<RunLine>, pick: (r: RunLine) => number) => runs.reduce((s, r) => s + pick(r), 0)

const totalsOf = (pipeline: string, runs: ReadonlyArray<RunLine>, units: number): Totals => ({
  pipeline,
  runs: runs.length,
  units,
  eur: eurOf(units),
  rows: sum(runs, (r) => r.rows),
  rejects: sum(runs, (r) => r.rejects),
  missing: sum(runs, (r) => r.missing),
  shortSlices: sum(runs, (r) => r.shortSlices),
  shortRecords: sum(runs, (r) => r.shortRecords)
})

/** The report's figures from the open warehouse; `caps` from the settings. */
export const readReportData = (caps: ReportData["caps"]) =>
  Effect.gen(function* () {
    const w = yield* Warehouse
    const daily: Array<DailySpend> = (yield* w.query(DAILY_SQL)).map((r) => ({
      day: String(r.day),
      pipeline: String(r.pipeline),
      units: Number(r.units)
    }))
    const runs: Array<RunLine> = (yield* w.query(RUNS_SQL)).map((r, i) => {
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
        rejects: Number(r.rejects),
        missing: Number(r.missing),
        shortSlices: Number(r.short_slices),
        shortRecords: Number(r.short_records),
        error: r.error === null || r.error === undefined ? null : String(r.error)
      }
    })
    // units by pipeline from the ledger itself, so a charge of a run no longer in _runs still counts
    const unitsOf = new Map<string, number>()
    for (const d of daily) unitsOf.set(d.pipeline, (unitsOf.get(d.pipeline) ?? 0) + d.units)
    const names = [...new Set([...runs.map((r) => r.pipeline), ...unitsOf.keys()])].sort()
    const pipelines = names.map((p) =>
      totalsOf(
        p,
        runs.filter((r) => r.pipeline === p),
        unitsOf.get(p) ?? 0
      )
    )
    return {
      warehouse: w.path,
      generatedAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      caps,
      daily,
      runs,
      pipelines,
      totals: totalsOf(
        "all",
        runs,
        daily.reduce((s, d) => s + d.units, 0)
      )
    } satisfies ReportData
  })
