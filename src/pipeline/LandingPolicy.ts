/**
 * How a run lands its pages, as one value the runner receives (`RunContext.landing`): the
 * group a transaction takes, how long the loader waits for it to fill, how many pages may wait,
 * and when the reject ratio is first judged. The defaults are here and nowhere else; the
 * settings (`duckdb.groupPages`, `duckdb.groupWaitMs`) override two of them (`landingPolicyOf`).
 * The data path (`run/Fetch.ts`, `run/Land.ts`) reads these fields and holds no tuning numbers.
 *
 * What DuckDB may use while a group lands (threads, memory limit and its ceiling, checkpoint
 * threshold) is the warehouse's own policy (`load/Warehouse.ts`, `duckdb.*` settings), and V8's
 * heap is set before the command line loads (`cli/HeapPolicy.ts`).
 */
import type { PageQueueOptions } from "./PageQueue.js"

export interface LandingPolicy extends PageQueueOptions {
  /**
   * Records landed before the reject ratio (`budget.maxRejectRatio`) is judged after each group,
   * so a run whose records fail their schema stops early; the end of the run judges the rest.
   * Default 100.
   */
  readonly rejectSample: number
}

/**
 * The defaults: 32 pages or 4,000 rows a transaction (a group of 7 pages of 500 alerts did not
 * fit DuckDB's 80MB landing limit), a part-full group landed after 1 s, room for two groups.
 */
export const DEFAULT_LANDING_POLICY: LandingPolicy = {
  capacity: 64,
  maxGroup: 32,
  maxGroupRows: 4000,
  fillWaitMs: 1000,
  rejectSample: 100
}

/** A run's landing groups as the settings give them (`duckdb.groupPages`, `duckdb.groupWaitMs`). */
export interface LandingGroups {
  readonly groupPages?: number | undefined
  readonly groupWaitMs?: number | undefined
}

/** The policy of a run: `groupPages` and `groupWaitMs` over the defaults, room for two groups. */
export const landingPolicyOf = (landing?: LandingGroups): LandingPolicy => {
  const maxGroup = landing?.groupPages ?? DEFAULT_LANDING_POLICY.maxGroup
  return {
    ...DEFAULT_LANDING_POLICY,
    capacity: 2 * maxGroup,
    maxGroup,
    fillWaitMs: landing?.groupWaitMs ?? DEFAULT_LANDING_POLICY.fillWaitMs
  }
}
