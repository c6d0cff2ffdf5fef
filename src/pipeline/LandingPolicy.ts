/**
 * How a run lands its pages, as one value the runner receives (`RunContext.landing`): the
 * group a transaction takes, how long the loader waits for it to fill, how many pages may wait,
 * and when the reject ratio is first judged. The defaults are here and nowhere else; the
 * settings (`duckdb.groupPages`, `duckdb.groupWaitMs`) override two of them (`landingPolicyOf`).
 * The data path (`run/Fetch.ts`, `run/Land.ts`) reads these fields and holds no tuning numbers.
 *
 * What DuckDB may use while a group lands (threads, memory limit and its ceiling, checkpoint
 * threshold) is the warehouse's own policy (`load/LandingSettings.ts`, `duckdb.*` settings), and V8's
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
 * The defaults: 32 pages or 8,000 records a transaction, a part-full group landed after 1 s, room
 * for two groups. The record bound keeps large pages in small transactions (at the 80MB landing
 * limit 7 pages of 500 alerts did not fit; a 30-day backlog of 1000-row pages lands 8 pages a
 * group, and a group that does not fit is landed again with the limit doubled, which then holds
 * for the rest of the run). It was 4,000 until issue 33, and counted every table's rows (a
 * sourcing page of 200 records makes ~400): that split sourcing's 32 pages of 200 in two or three
 * groups, and every group joins the whole target table, so CPU per row of a 207,071-property pull
 * rose from 101 to 133-158 us (measured, A/B of the bundle with only the bound changed;
 * docs/BENCHMARKS.md).
 */
export const DEFAULT_LANDING_POLICY: LandingPolicy = {
  capacity: 64,
  maxGroup: 32,
  maxGroupRows: 8000,
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
