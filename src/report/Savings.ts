/**
 * What reading only what changed saved against full pulls, from the runs' own records: a run
 * whose plan read less than everything (`_runs.units_full` above `units_planned`: an incremental
 * stop, a read since the last one) is set against what a full pull of its pipeline cost. That is
 * the charge of the pipeline's newest run that read everything (plan = full), when the period
 * holds one; otherwise the plan's own full-pull figure.
 */
import type { RunLine } from "./ReportData.js"

export interface Savings {
  /** Incremental runs set against a full pull. */
  readonly runs: number
  /** Units those runs were charged. */
  readonly charged: number
  /** Units full pulls of the same pipelines would have cost, one for each of those runs. */
  readonly full: number
  /** `full - charged`, never below zero per run. */
  readonly saved: number
  /** The pipelines that read incrementally. */
  readonly pipelines: ReadonlyArray<string>
  /** How many of the full-pull figures are measured charges (the rest are the plans'). */
  readonly measured: number
}

const EPS = 1e-9

const incremental = (r: RunLine) => r.unitsFull !== null && r.unitsPlanned !== null && r.unitsFull > r.unitsPlanned + EPS

/** The savings of `runs` (in start order). */
export const refreshSavings = (runs: ReadonlyArray<RunLine>): Savings => {
  // the newest full read of each pipeline that was charged: what a full pull costs, measured
  const fullCharge = new Map<string, number>()
  for (const r of runs) {
    if (r.status === "done" && r.unitsFull !== null && r.unitsPlanned !== null && !incremental(r) && r.units > 0)
      fullCharge.set(r.pipeline, r.units)
  }
  let charged = 0
  let full = 0
  let saved = 0
  let measured = 0
  const pipelines = new Set<string>()
  const counted = runs.filter((r) => r.status === "done" && incremental(r))
  for (const r of counted) {
    const known = fullCharge.get(r.pipeline)
    const cost = known ?? r.unitsFull!
    if (known !== undefined) measured++
    charged += r.units
    full += cost
    saved += Math.max(0, cost - r.units)
    pipelines.add(r.pipeline)
  }
  return { runs: counted.length, charged, full, saved, pipelines: [...pipelines].sort(), measured }
}
