/**
 * How a run lands its pages, as one value the runner receives (`RunContext.landing`): the
 * group a transaction takes, how long the loader waits for it to fill, how much may wait,
 * and when the reject ratio is first judged. The defaults are here and nowhere else; the
 * settings (`duckdb.groupPages`, `duckdb.groupRecords`, `duckdb.groupWaitMs`) override three of
 * them (`landingPolicyOf`).
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

/** A policy with room for two of its groups waiting: their pages and their records. */
const withRoom = (groups: Omit<LandingPolicy, "capacity" | "capacityRows">): LandingPolicy => ({
  ...groups,
  capacity: 2 * groups.maxGroup,
  capacityRows: 2 * groups.maxGroupRows
})

/**
 * The defaults: 256 pages or 8,000 records a transaction, a part-full group landed after 1 s, room
 * for two groups (512 pages, 16,000 records).
 *
 * The record bound is what sizes groups of large pages: 40 sourcing pages of 200, 16 of 500
 * alerts (at the 80MB landing limit 7 pages of 500 alerts did not fit; a 30-day backlog of
 * 1000-row pages lands 8 pages a group, and a group that does not fit is landed again with the
 * limit doubled, which then holds for the rest of the run). It was 4,000 until issue 33, and
 * counted every table's rows (a sourcing page of 200 records makes ~400): that split sourcing's
 * pages in two or three groups, and every group joins the whole target table, so CPU per row of a
 * 207,071-property pull rose from 101 to 133-158 us (measured, A/B of the bundle with only the
 * bound changed; docs/BENCHMARKS.md).
 *
 * The page bound sizes groups of small pages. At 32 (issue 33, until 2026-11-28) a fan-out of one small
 * answer per key (a time series per location: 17 records) then landed ~550 records a
 * transaction, and a transaction's fixed statements (the rows' `MERGE`, checkpoints, slices,
 * calls, the run's counters, `COMMIT`: 50-70 ms of DuckDB's thread) outweighed its rows; at 256
 * a 500-location run takes 2 transactions instead of 16, and 11-14% less CPU (docs/BENCHMARKS.md).
 * The pages waiting are bounded by their records as well, so groups of large pages hold no more
 * than before.
 */
export const DEFAULT_LANDING_POLICY: LandingPolicy = withRoom({ maxGroup: 256, maxGroupRows: 8000, fillWaitMs: 1000, rejectSample: 100 })

/** A run's landing groups as the settings give them (`duckdb.groupPages`, `duckdb.groupRecords`, `duckdb.groupWaitMs`). */
export interface LandingGroups {
  readonly groupPages?: number | undefined
  readonly groupRecords?: number | undefined
  readonly groupWaitMs?: number | undefined
}

/** The policy of a run: the settings' groups and wait over the defaults, room for two groups. */
export const landingPolicyOf = (landing?: LandingGroups): LandingPolicy =>
  withRoom({
    ...DEFAULT_LANDING_POLICY,
    maxGroup: landing?.groupPages ?? DEFAULT_LANDING_POLICY.maxGroup,
    maxGroupRows: landing?.groupRecords ?? DEFAULT_LANDING_POLICY.maxGroupRows,
    fillWaitMs: landing?.groupWaitMs ?? DEFAULT_LANDING_POLICY.fillWaitMs
  })
