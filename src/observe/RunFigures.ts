/**
 * The figures a finished run is monitored by, taken from its `RunSummary` (the same figures the
 * end-of-run table prints and `_runs` records): one table of metric names, help texts and how
 * each value is read. The Prometheus file (`PrometheusFile.ts`) and the OTLP gauges
 * (`Telemetry.ts`) both render this table, so the two can never disagree with the summary.
 */
import type { RunSummary } from "../pipeline/Runner.js"

/** One sample: a metric name, its labels and its value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** The run record's status vocabulary (`_runs.status` of a finished run). */
export const RUN_STATUSES = ["done", "paused", "failed", "incomplete", "interrupted"] as const

/** Every metric a run writes, with its help text (`# HELP`); all are gauges of the last run. */
export const RUN_METRICS = {
  estate_etl_run_status:
    "1 for the status the pipeline's last run ended with, 0 for the others (label status: done, paused, failed, incomplete, interrupted).",
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
    one("estate_etl_last_run_timestamp_seconds", seconds),
    ...(s.status === "done" ? [one("estate_etl_last_success_timestamp_seconds", seconds)] : [])
  ]
}
