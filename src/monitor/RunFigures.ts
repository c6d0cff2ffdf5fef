/**
 * The figures a finished run is monitored by, taken from its `RunSummary` (the same figures the
 * end-of-run table prints and `_runs` records): one table of metric names, help texts and how
 * each value is read. The Prometheus file (`PrometheusFile.ts`) and the OTLP gauges
 * (`Telemetry.ts`) both render this table, so the two can never disagree with the summary.
 */
import type { Totals } from "../pipeline/Progress.js"
import type { RunSummary } from "../pipeline/Runner.js"
import { eurOf } from "../service/CostGuard.js"

/** One sample: a metric name, its labels and its value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/**
 * The statuses of the status gauge: the run record's vocabulary (`_runs.status` of a finished
 * run), and `running` while a run is in progress (the file is rewritten as its pages land).
 */
export const RUN_STATUSES = ["done", "paused", "failed", "incomplete", "interrupted", "running"] as const

/** Every metric a run writes, with its help text (`# HELP`); all are gauges of the last run. */
export const RUN_METRICS = {
  estate_etl_run_status:
    "1 for the status the pipeline's last run ended with (running while it runs), 0 for the others (label status: done, paused, failed, incomplete, interrupted, running).",
  estate_etl_run_exit_code: "Exit code of the pipeline's last run (0 done, 3 paused, 4 payment, 5 authentication, 6 incomplete, ...).",
  estate_etl_run_duration_seconds: "Wall time of the pipeline's last run, seconds.",
  estate_etl_run_pages: "Pages the pipeline's last run landed.",
  estate_etl_run_rows: "Rows the pipeline's last run wrote, all tables.",
  estate_etl_run_table_rows: "Rows the pipeline's last run wrote, by table.",
  estate_etl_run_rejects: "Records of the pipeline's last run that failed their schema (_rejects).",
  estate_etl_run_units: "Units the pipeline's last run was charged (the ledger's sum for the run).",
  estate_etl_run_eur: "EUR the pipeline's last run cost (units x 0.04).",
  estate_etl_run_planned_units: "Units the plan of the pipeline's last run expected (an upper bound where not exact).",
  estate_etl_run_requests: "HTTP requests the pipeline's last run sent (first attempts).",
  estate_etl_run_retries: "Retries the pipeline's last run took.",
  estate_etl_run_rate_limited: "Answers 429 (rate limited) the pipeline's last run received.",
  estate_etl_run_missing_keys: "Fan-out keys the service did not know in the pipeline's last run (_missing).",
  estate_etl_run_shortfall_slices:
    "Slices of the pipeline's last run that landed less than the service declared, stalled or hit a service limit.",
  estate_etl_run_capped_slices: "Slices of the pipeline's last run cut by a cap the user set (page or unit cap).",
  estate_etl_run_resumed: "1 when the pipeline's last run resumed an unfinished run.",
  estate_etl_run_started_timestamp_seconds: "When the pipeline's last run started, Unix seconds.",
  estate_etl_last_run_timestamp_seconds: "When the pipeline's last run ended, Unix seconds.",
  estate_etl_last_success_timestamp_seconds:
    "When the pipeline's last run with status done ended, Unix seconds (kept from earlier runs while later ones fail)."
} as const

export type RunMetric = keyof typeof RUN_METRICS

/** The samples of one run that ended at `endedAt` (ms since the epoch). */
export const samplesOf = (s: RunSummary, endedAt: number): Array<Sample> => {
  const pipeline = s.pipeline
  const one = (name: RunMetric, value: number, extra: Record<string, string> = {}): Sample => ({
    name,
    labels: { pipeline, ...extra },
    value
  })
  const seconds = Math.round(endedAt / 1000)
  return [
    ...RUN_STATUSES.map((status) => one("estate_etl_run_status", s.status === status ? 1 : 0, { status })),
    one("estate_etl_run_exit_code", s.exitCode),
    one("estate_etl_run_duration_seconds", s.totals.elapsedMs / 1000),
    one("estate_etl_run_pages", s.totals.pages),
    one("estate_etl_run_rows", s.totals.rows),
    ...Object.keys(s.rowsPerTable)
      .sort()
      .map((table) => one("estate_etl_run_table_rows", s.rowsPerTable[table]!, { table })),
    one("estate_etl_run_rejects", s.totals.rejects),
    one("estate_etl_run_units", s.totals.units),
    one("estate_etl_run_eur", s.eur),
    one("estate_etl_run_planned_units", s.plan.units),
    one("estate_etl_run_requests", s.totals.requests),
    one("estate_etl_run_retries", s.totals.retries),
    one("estate_etl_run_rate_limited", s.totals.throttled),
    one("estate_etl_run_missing_keys", s.completeness.missing),
    one("estate_etl_run_shortfall_slices", s.completeness.shortfalls.length),
    one("estate_etl_run_capped_slices", s.completeness.caps.length),
    one("estate_etl_run_resumed", s.resumed ? 1 : 0),
    one("estate_etl_run_started_timestamp_seconds", Math.round((endedAt - s.totals.elapsedMs) / 1000)),
    one("estate_etl_last_run_timestamp_seconds", seconds),
    ...(s.status === "done" ? [one("estate_etl_last_success_timestamp_seconds", seconds)] : [])
  ]
}

/**
 * What only an ended run knows: while a pipeline runs, these keep the values of its previous run
 * (`PrometheusFile.mergeProgress`); every other series of the pipeline is the run in progress.
 */
export const ENDED_ONLY: ReadonlySet<RunMetric> = new Set<RunMetric>([
  "estate_etl_run_exit_code",
  "estate_etl_run_missing_keys",
  "estate_etl_run_shortfall_slices",
  "estate_etl_run_capped_slices",
  "estate_etl_last_run_timestamp_seconds",
  "estate_etl_last_success_timestamp_seconds"
])

/** A run in progress, as of its last landed group of pages. */
export interface RunInProgress {
  readonly pipeline: string
  readonly resumed: boolean
  readonly plannedUnits: number
  readonly totals: Totals
}

/** The samples of a run in progress at `now` (ms since the epoch): status `running`, the figures so far. */
export const progressSamplesOf = (p: RunInProgress, now: number): Array<Sample> => {
  const one = (name: RunMetric, value: number, extra: Record<string, string> = {}): Sample => ({
    name,
    labels: { pipeline: p.pipeline, ...extra },
    value
  })
  const t = p.totals
  return [
    ...RUN_STATUSES.map((status) => one("estate_etl_run_status", status === "running" ? 1 : 0, { status })),
    one("estate_etl_run_duration_seconds", t.elapsedMs / 1000),
    one("estate_etl_run_pages", t.pages),
    one("estate_etl_run_rows", t.rows),
    one("estate_etl_run_rejects", t.rejects),
    one("estate_etl_run_units", t.units),
    one("estate_etl_run_eur", eurOf(t.units)),
    one("estate_etl_run_planned_units", p.plannedUnits),
    one("estate_etl_run_requests", t.requests),
    one("estate_etl_run_retries", t.retries),
    one("estate_etl_run_rate_limited", t.throttled),
    one("estate_etl_run_resumed", p.resumed ? 1 : 0),
    one("estate_etl_run_started_timestamp_seconds", Math.round((now - t.elapsedMs) / 1000))
  ]
}
