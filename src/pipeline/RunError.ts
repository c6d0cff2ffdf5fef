/**
 * How a run ends when it does not finish, and the exit code each ending maps to.
 * Documented exit codes (README, "Exit codes"): 0 done, 1 other failure, 2 bad input, 3 budget
 * or retry budget reached, or the service still failing after its retries (paused, resumable),
 * 4 payment required, 5 authentication, 6 incomplete (the service declared more than landed, or a
 * slice stalled or hit a service limit), 7 unexpected response shape (paused; fix
 * `service.shapes`, then resume, or `reload` archived pages at 0 units), 130 / 143 stopped by
 * SIGINT / SIGTERM (interrupted, resumable).
 */
import { Data } from "effect"
import { exitCodeOfSignal, type StopSignal } from "./Shutdown.js"

/** Bad parameters or settings: found before any request is sent or any unit spent. */
export class InvalidInput extends Data.TaggedError("InvalidInput")<{
  /** The field (dotted path) or option that is wrong, e.g. `plots-germany.params.limit`. */
  readonly field: string
  /** What is wrong and what is allowed, one line. */
  readonly detail: string
}> {
  override get message() {
    return `${this.field}: ${this.detail}`
  }
}

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

export const ExitCode = {
  Done: 0,
  Other: 1,
  BadInput: 2,
  Budget: 3,
  Payment: 4,
  Authentication: 5,
  Incomplete: 6,
  Shape: 7,
  /** 128 + SIGINT */
  Interrupted: 130,
  /** 128 + SIGTERM */
  Terminated: 143
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * A service failure that outlived its retries but says nothing against the request: the network,
 * a timeout, a cut or garbled body, 5xx, 408, 429. The run stops paused and resumes from its
 * checkpoint (exit 3), rather than failing.
 */
export const isResumableFailure = (error: unknown): boolean => {
  const e = error as { _tag?: string; reason?: string; status?: number }
  switch (e?._tag) {
    case "TransportError":
      return true
    case "PlatformProblem":
      return (e.status ?? 0) >= 500 || e.status === 408 || e.reason === "rate_limited"
    case "TokenProblem":
      return e.reason === "server_error" || e.reason === "rate_limited" || e.reason === "request_timeout"
    default:
      return false
  }
}

/** The exit code of an error by its tag (works for the service's and the warehouse's errors). */
export const exitCodeOf = (error: unknown): ExitCode => {
  const tag = typeof error === "object" && error !== null && "_tag" in error ? (error as { _tag: string })._tag : ""
  if (isResumableFailure(error)) return ExitCode.Budget
  switch (tag) {
    case "InvalidInput":
    case "RequestValidationError":
      return ExitCode.BadInput
    case "BudgetExhausted":
      return ExitCode.Budget
    case "PaymentRequired":
      return ExitCode.Payment
    case "UnexpectedShape":
      return ExitCode.Shape
    case "RunInterrupted":
      return exitCodeOfSignal((error as RunInterrupted).signal)
    case "AuthenticationFailed":
      return ExitCode.Authentication
    case "WarehouseError": {
      const reason = (error as { reason?: string }).reason
      return reason === "Locked" || reason === "Corrupt" || reason === "Foreign" ? ExitCode.BadInput : ExitCode.Other
    }
    default:
      return ExitCode.Other
  }
}

/** The `_runs.status` an ending leaves: paused and interrupted runs resume; failed ones (an error against the request) do not stick. */
export const statusOf = (error: unknown): "paused" | "failed" | "interrupted" => {
  const code = exitCodeOf(error)
  if (code === ExitCode.Interrupted || code === ExitCode.Terminated) return "interrupted"
  // a local write that failed (a full disk, a blocked folder) says nothing against the run: its
  // journal holds what was paid, and the next run resumes once the cause is fixed
  if ((error as { _tag?: string } | null)?._tag === "WarehouseError") return "paused"
  return code === ExitCode.Budget || code === ExitCode.Payment || code === ExitCode.Shape ? "paused" : "failed"
}
