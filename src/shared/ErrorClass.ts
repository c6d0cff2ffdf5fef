/**
 * How an ending is classified, in one place: whether a failed call is worth retrying (transient),
 * whether a run stopped by it can be resumed, the `_runs.status` it leaves and the process exit
 * code. Built on tag predicates over the errors' `_tag` and fields, so it needs none of the error
 * classes (service, warehouse and run errors all pass through here).
 *
 * Exit codes (README, "Exit codes"; `--help`): 0 done, 1 other failure, 2 bad input, 3 paused and
 * resumable (unit cap, retry budget, the service still failing after its retries), 4 payment
 * required, 5 authentication, 6 incomplete, 7 unexpected response shape, 130 / 143 stopped by
 * SIGINT / SIGTERM.
 */
import { Predicate } from "effect"
import { redactText } from "./Redaction.js"

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

type Fields = { readonly reason?: string; readonly status?: number; readonly unitsCharged?: number; readonly signal?: string }
const is =
  (...tags: ReadonlyArray<string>) =>
  (e: unknown): e is { readonly _tag: string } & Fields =>
    tags.some((tag) => Predicate.isTagged(e, tag))

const isTransport = is("TransportError")
const isPlatformProblem = is("PlatformProblem")
const isTokenProblem = is("TokenProblem")
const isProblem = is("PlatformProblem", "TokenProblem")
const isBadInput = is("InvalidInput", "InvalidRequest")
const isWarehouse = is("WarehouseError")
const isInterrupted = is("RunInterrupted")

const transientStatus = (status: number | undefined) => status !== undefined && (status === 408 || status === 429 || status >= 500)

/** Units the service said it charged for the failed call (when the error knows). */
export const chargedOf = (e: unknown): number => {
  const u = (e as Fields | null)?.unitsCharged
  return typeof u === "number" && u > 0 ? u : 0
}

/** Whether retrying the call that failed with `e` may succeed (a charged call never is retried). */
export const isTransient = (e: unknown): boolean => {
  if (chargedOf(e) > 0) return false
  if (isTransport(e)) {
    return (
      e.reason === "Network" ||
      e.reason === "Timeout" ||
      e.reason === "TruncatedBody" ||
      // an HTML page from a proxy in front of a 502/503 is a transient outage too
      (e.reason === "WrongContentType" && transientStatus(e.status))
    )
  }
  if (isPlatformProblem(e)) return e.reason !== "quota_reached" && transientStatus(e.status)
  if (isTokenProblem(e)) return transientStatus(e.status)
  return false
}

/**
 * A service failure that outlived its retries but says nothing against the request: the network,
 * a timeout, a cut or garbled body, 5xx, 408, 429. The run stops paused and resumes from its
 * checkpoint (exit 3), rather than failing.
 */
export const isResumable = (e: unknown): boolean =>
  isTransport(e) || (isProblem(e) && ((e.status ?? 0) >= 500 || e.status === 408 || e.status === 429 || e.reason === "rate_limited"))

/** The exit code of an ending. */
export const exitCodeOf = (e: unknown): ExitCode => {
  if (isInterrupted(e)) return e.signal === "SIGINT" ? ExitCode.Interrupted : ExitCode.Terminated
  // an answer in a coding the client cannot read is an answer of an unexpected form, like a shape
  if (isTransport(e) && e.reason === "Encoding") return ExitCode.Shape
  if (isResumable(e) || is("BudgetExhausted")(e)) return ExitCode.Budget
  if (isBadInput(e)) return ExitCode.BadInput
  if (is("PaymentRequired")(e)) return ExitCode.Payment
  if (is("AuthenticationFailed")(e)) return ExitCode.Authentication
  if (is("UnexpectedShape")(e)) return ExitCode.Shape
  if (isWarehouse(e)) return e.reason === "Locked" || e.reason === "Corrupt" || e.reason === "Foreign" ? ExitCode.BadInput : ExitCode.Other
  return ExitCode.Other
}

/**
 * The `_runs.status` an ending leaves: paused and interrupted runs resume; failed ones (an error
 * against the request, a reject ratio) do not stick. A local write that failed (a full disk, a
 * blocked folder) says nothing against the run: its journal holds what was paid, so it is paused.
 */
export const statusOf = (e: unknown): "paused" | "failed" | "interrupted" => {
  if (isInterrupted(e)) return "interrupted"
  if (isWarehouse(e)) return "paused"
  const code = exitCodeOf(e)
  return code === ExitCode.Budget || code === ExitCode.Payment || code === ExitCode.Shape ? "paused" : "failed"
}

/**
 * What a rerun does after an ending the service caused, appended to the run's message (`_runs.error`,
 * the summary, the event): every stop names its cause and whether a rerun helps. Empty where the
 * message says it already (a cap, a shape, the retry budget) or a rerun does not help as it is.
 */
export const rerunHint = (e: unknown): string => {
  if (is("PaymentRequired")(e)) return "; the run is paused: a rerun after the top-up resumes from its checkpoints"
  if (is("AuthenticationFailed")(e))
    return "; fix the credentials (SVC_API_KEY, SVC_EMAIL, SVC_PASSWORD), then rerun: what was paid is reused"
  // an outage's pause only: an answer in a coding the client cannot read is a shape's (exit 7), not one
  if (!isResumable(e) || exitCodeOf(e) !== ExitCode.Budget) return ""
  const limited = (isProblem(e) && (e.status === 429 || e.reason === "rate_limited")) || (isTransport(e) && e.status === 429)
  const after = (e as { retryAfterMs?: unknown }).retryAfterMs
  const wait = typeof after === "number" && after > 0 ? ` (${Math.ceil(after / 1000)} s)` : ""
  return limited
    ? `; the service still refused after the retries (rate limited): the run is paused, and a rerun after its Retry-After${wait} resumes from its checkpoints (service.retryMaxMs bounds a wait within a run)`
    : "; the service still failed after the retries: the run is paused, and a rerun resumes from its checkpoints once it answers"
}

/** The first line of a text (messages are one line; causes may not be). */
export const firstLine = (text: string): string => text.split("\n")[0]!

/**
 * A one-line message of any error, never a stack trace, with whatever looks like a credential in
 * it redacted (`Redaction.ts`): the line printed, stored in `_runs.error` and sent as an event.
 */
export const messageOf = (error: unknown): string =>
  redactText(
    firstLine(
      error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
        ? String((error as { message: unknown }).message)
        : String(error)
    )
  )
