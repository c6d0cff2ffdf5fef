/**
 * Errors of the library API that are not the engine's own (those pass through unchanged:
 * `InvalidInput`, `BudgetExhausted`, `WarehouseError`, the host clients' errors...).
 */
import { Data } from "effect"
import type { RunSummary } from "../pipeline/Runner.js"

export class LibraryError extends Data.TaggedError("LibraryError")<{
  /**
   * `RunPaused`: the run stopped at a budget or payment limit (resumable; `summary` says how far
   * it got). `RunIncomplete`: the service declared more than landed (see `summary.completeness`).
   * `RunFailed`: the run ended failed. `UnknownTable`: no such table in the extraction.
   * `Io`: a file could not be written.
   */
  readonly reason: "RunPaused" | "RunIncomplete" | "RunFailed" | "UnknownTable" | "Io"
  readonly detail: string
  readonly pipeline?: string | undefined
  readonly runId?: string | undefined
  /** The run's summary, for `RunPaused` / `RunFailed`. */
  readonly summary?: RunSummary | undefined
  readonly cause?: unknown
}> {
  override get message() {
    const where = this.pipeline ? `${this.pipeline}${this.runId ? ` (run ${this.runId})` : ""}: ` : ""
    return `${where}${this.detail}`
  }
}
