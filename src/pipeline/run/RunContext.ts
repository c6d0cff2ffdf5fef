/**
 * What the steps of one run share: its fixed context (decided when it starts) and its counters,
 * kept in a `Ref` (pages landed, rows per table, the totals the progress events report).
 */
import { type Effect, Ref } from "effect"
import type { JournalEntry, JournalWriter, PageJournal } from "../../load/PageJournal.js"
import type { WarehouseApi } from "../../load/Warehouse.js"
import type { LandingPolicy } from "../LandingPolicy.js"
import type { Normalized } from "../../normalize/Normalizer.js"
import type { PageContext, Pipeline } from "../Pipeline.js"
import type { makePlanRefiner, Plan } from "../Planner.js"
import type { Progress, Totals } from "../Progress.js"
import type { RunRequest } from "../Runner.js"

export interface RunContext<P = unknown> {
  readonly request: RunRequest<P>
  readonly pipeline: Pipeline<P>
  readonly runId: string
  readonly params: P
  readonly plan: Plan
  readonly resumed: boolean
  readonly warehouse: WarehouseApi
  readonly progress: Effect.Effect.Success<typeof Progress>
  /** The page journal of a paid run, and this run's writer in it. */
  readonly journal: PageJournal | undefined
  /** Open for the run's scope (`openWriter`): closed when the run ends, however it ends. */
  readonly writer: JournalWriter | undefined
  /** Keep each page's raw body (platform pipelines by default). */
  readonly archive: boolean
  readonly normalize: (records: ReadonlyArray<unknown>, ctx: PageContext) => Normalized
  readonly extractedAt: string
  readonly started: number
  readonly refine: ReturnType<typeof makePlanRefiner>
  /** How the run groups and lands its pages (`landingPolicyOf` the request's landing settings). */
  readonly landing: LandingPolicy
}

export interface RunCounters {
  /** Pages of the run so far (`_runs.pages` once landed): the next journal page's number is one more. */
  readonly pageNo: number
  readonly totals: Totals
  readonly rowsPerTable: Readonly<Record<string, number>>
  /** Whether the landing emptied the queue (every journaled page is in the warehouse). */
  readonly drained: boolean
  /**
   * Every failure that ended the fetching (each slice's, the first first). The run ends with the
   * first, or with a landing's own error; the finish reads each one's charge (an answer charged
   * whose body broke off), so none is lost from the ledger.
   */
  readonly fetchFailures?: ReadonlyArray<unknown>
  /** Requests and retries of pages that failed (in `totals` too; no page commit adds them to `_runs`). */
  readonly unlanded?: { readonly requests: number; readonly retries: number }
}

export type RunState = Ref.Ref<RunCounters>

export const makeRunState = (initial: Omit<RunCounters, "drained" | "rowsPerTable">) =>
  Ref.make<RunCounters>({ ...initial, rowsPerTable: {}, drained: false })

export type { JournalEntry }
