/**
 * How a run ends when it does not finish (the classification and exit codes: `shared/ErrorClass.ts`).
 * Documented exit codes (README, "Exit codes"): 0 done, 1 other failure, 2 bad input, 3 budget
 * or retry budget reached, or the service still failing after its retries (paused, resumable),
 * 4 payment required, 5 authentication, 6 incomplete (the service declared more than landed, or a
 * slice stalled or hit a service limit), 7 unexpected response shape (paused; fix
 * `service.shapes`, then resume, or `reload` archived pages at 0 units), 130 / 143 stopped by
 * SIGINT / SIGTERM (interrupted, resumable).
 */
import { Data } from "effect"
import type { StopSignal } from "./Shutdown.js"

export { InvalidInput } from "../shared/InvalidInput.js"

/** The run failed for a reason that is not the input, a budget, payment or a credential. */
export class RunFailed extends Data.TaggedError("RunFailed")<{
  readonly reason: "RejectRatio" | "Service" | "Warehouse" | "Internal"
  readonly pipeline: string
  readonly runId?: string | undefined
  readonly detail: string
}> {
  override get message() {
    return `${this.pipeline}${this.runId ? ` (run ${this.runId})` : ""}: ${this.detail}`
  }
}

/** The run was stopped by a signal (SIGINT, SIGTERM); it is `interrupted` and resumes next time. */
export class RunInterrupted extends Data.TaggedError("RunInterrupted")<{
  readonly signal: StopSignal
}> {
  override get message() {
    return `stopped by ${this.signal}; the run is interrupted and resumes from its checkpoints next time`
  }
}

export { ExitCode, exitCodeOf, isResumable, statusOf } from "../shared/ErrorClass.js"
