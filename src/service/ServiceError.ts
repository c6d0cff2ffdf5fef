/**
 * Errors of the two host clients. A few tagged classes, each with a `reason` and the ids a
 * person needs (operation, request id, status). Every `message` is one human line and never
 * holds a secret (keys, passwords and tokens stay `Redacted` and are never copied here).
 *
 * How the CLI maps them to exit codes: `BudgetExhausted` 3 (resumable), `PaymentRequired` 4,
 * `AuthenticationFailed` 5, `InvalidRequest` 2, the rest 1.
 */
import { Data } from "effect"
import type { PaidRequest } from "./PaidAnswers.js"
import { PROBLEM_CODES as SPEC_PROBLEM_CODES } from "./schema/Problem.js"

/** Which host answered. */
export type Host = "platform" | "token"

/** Machine codes of the platform's problem records (spec, "Errors"), plus plot search's codes. */
export const PROBLEM_CODES = [...SPEC_PROBLEM_CODES, "rate_limited", "quota_reached"] as const
/** A known code, or any other string the service sent (kept as is). */
export type ProblemCode = (typeof PROBLEM_CODES)[number] | (string & {})

const where = (operation: string, requestId: string | undefined) =>
  requestId === undefined ? operation : `${operation} (request ${requestId})`

/**
 * The platform host refused a request: its problem record (`application/problem+json`) or plot
 * search's `{error: {code, message}}`. `reason` is the machine code; statuses without a body
 * get `http_<status>` (e.g. `http_503`).
 */
export class PlatformProblem extends Data.TaggedError("PlatformProblem")<{
  readonly reason: ProblemCode
  readonly status: number
  readonly operation: string
  readonly requestId?: string | undefined
  readonly detail?: string | undefined
  readonly title?: string | undefined
  /** Milliseconds to wait before trying again, from `Retry-After` / `RateLimit` (429, 503). */
  readonly retryAfterMs?: number | undefined
  /** `Svc-Units-Charged` of the failed response when above 0 (such a call is never retried). */
  readonly unitsCharged?: number | undefined
}> {
  override get message() {
    return `${where(this.operation, this.requestId)} failed with ${this.status} ${this.reason}${this.detail ? `: ${this.detail}` : ""}`
  }
}

/** Why the token host refused a request (derived from the status; the spec gives bodies, not codes). */
export type TokenProblemReason =
  | "bad_request" // 400 {message, errors, details}
  | "forbidden" // 403 {detail}: operation outside the subscription
  | "not_found" // 404 {errors} or {detail}
  | "conflict" // 409
  | "validation" // 422 {detail: [{loc, msg, type}]}
  | "rate_limited" // 429
  | "server_error" // 5xx
  | "request_timeout" // 408
  | "unexpected_status"

/** The token host refused a request. `details` holds the body's explanations, one line each. */
export class TokenProblem extends Data.TaggedError("TokenProblem")<{
  readonly reason: TokenProblemReason
  readonly status: number
  readonly operation: string
  readonly detail?: string | undefined
  readonly details?: ReadonlyArray<string> | undefined
  readonly retryAfterMs?: number | undefined
}> {
  override get message() {
    const more = this.details && this.details.length > 0 ? ` (${this.details.slice(0, 3).join("; ")})` : ""
    return `${this.operation} failed with ${this.status} ${this.reason}${this.detail ? `: ${this.detail}` : ""}${more}`
  }
}

/** The request never got a usable answer. Carries no stack or body dump, only what happened. */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly reason:
    | "Network" // connection refused, reset, DNS
    | "Timeout" // no complete answer within the per-request timeout
    | "TruncatedBody" // the body ended early / could not be read
    | "InvalidBody" // not JSON where JSON was expected (JSON of another shape is `UnexpectedShape`)
    | "WrongContentType" // e.g. an HTML error page from a proxy
    | "Encoding" // a content coding this client cannot decode (it names gzip, deflate and br)
  readonly operation: string
  readonly status?: number | undefined
  readonly requestId?: string | undefined
  /** One short line (never a stack trace, never a body dump). */
  readonly detail?: string | undefined
  /** Units the service charged before the body turned out unusable (never retried then). */
  readonly unitsCharged?: number | undefined
}> {
  override get message() {
    const status = this.status === undefined ? "" : ` (status ${this.status})`
    return `${where(this.operation, this.requestId)}: ${this.reason}${status}${this.detail ? `: ${this.detail}` : ""}`
  }
}

/** A budget stopped the run before sending; the run is paused and can be resumed. */
export class BudgetExhausted extends Data.TaggedError("BudgetExhausted")<{
  readonly reason: "UnitCap" | "DailyCap" | "RetryBudget"
  readonly operation: string
  /** The cap that would have been crossed (units, or retries for `RetryBudget`). */
  readonly limit: number
  /** Units (or retries) already used against that cap. */
  readonly used: number
  /** Units the refused call would have cost (0 for `RetryBudget`). */
  readonly wanted: number
  /** `RetryBudget`: what the last failed attempt said (one line), so the cause is in the message. */
  readonly lastError?: string | undefined
}> {
  override get message() {
    switch (this.reason) {
      case "UnitCap":
        return `${this.operation} refused before sending: it costs ${this.wanted} units and ${this.used} of the run's ${this.limit} are spent or reserved`
      case "DailyCap":
        return `${this.operation} refused before sending: it costs ${this.wanted} units and ${this.used} of today's ${this.limit} are spent or reserved`
      case "RetryBudget":
        return `retry budget spent (${this.used} of ${this.limit} retries) at ${this.operation}${this.lastError ? ` (last error: ${this.lastError})` : ""}; the run can be resumed later`
    }
  }
}

/**
 * 402: the balance of units is spent. A person must open `paymentUrl`; the run stops. The line
 * also shows the problem's `detail` and every other member whose value is an http(s) URL, so the
 * link is never lost when the service names its member otherwise.
 */
export class PaymentRequired extends Data.TaggedError("PaymentRequired")<{
  readonly operation: string
  readonly paymentUrl?: string | undefined
  readonly requestId?: string | undefined
  readonly detail?: string | undefined
  /** Other members of the problem whose value is an http(s) URL, as `member: url`. */
  readonly links?: ReadonlyArray<string> | undefined
}> {
  override get message() {
    const link = this.paymentUrl ? `; add units at ${this.paymentUrl}` : ""
    const detail = this.detail ? ` (${this.detail})` : ""
    const links = this.links && this.links.length > 0 ? `; links: ${this.links.join(", ")}` : ""
    return `${where(this.operation, this.requestId)}: payment required, the unit balance is spent${detail}${link}${links}`
  }
}

/**
 * A 2xx body of another shape than the operation's: a list answer without the list (or count,
 * or next link) where its response shape says it is (`service.shapes`), or a single record that
 * is not the documented object. One exit code for both (7). The run stops paused; a charged page
 * keeps its raw body in the archive, so a rerun after a settings fix reuses it at 0 units.
 */
export class UnexpectedShape extends Data.TaggedError("UnexpectedShape")<{
  readonly operation: string
  readonly host: Host
  /** The path that was expected (e.g. `results`) and what was found there. */
  readonly detail: string
  /** The first characters of the body (credentials scrubbed). */
  readonly bodyStart: string
  readonly status?: number | undefined
  readonly requestId?: string | undefined
  /** Units the call was charged (its page is archived and entered in the ledger). */
  readonly unitsCharged?: number | undefined
  /** The whole body, for the raw archive; never printed. */
  readonly raw?: string | undefined
  /** The paid request it answers: archived with its key, a rerun after the settings fix reuses it at 0 units. */
  readonly request?: PaidRequest | undefined
  /** The archived page `reload` read it from (nothing was landed). */
  readonly archived?: { readonly runId: string; readonly pageKey: string; readonly pipeline: string } | undefined
}> {
  override get message() {
    const fix = this.archived
      ? `archived page ${this.archived.pageKey} of run ${this.archived.runId}, nothing reloaded: set service.shapes.${this.operation} to where this service puts it, then reload ${this.archived.pipeline} again (0 units)`
      : this.request?.reused
        ? `this answer was bought at ${this.request.boughtAt} and read again from the raw archive (0 units): set service.shapes.${this.operation} to where this service puts it and rerun, or rerun with --fresh to buy it again`
        : `set service.shapes.${this.operation} to where this service puts it, then resume (the paid answer is reused at 0 units)`
    return `${where(this.operation, this.requestId)}: UnexpectedShape: ${this.detail}; the body starts ${JSON.stringify(this.bodyStart)}; ${fix}; \`estate-etl probe\` checks the shape of every operation at once`
  }
}

/** A credential was refused: missing, wrong, revoked, or the token host refused login/refresh. */
export class AuthenticationFailed extends Data.TaggedError("AuthenticationFailed")<{
  readonly reason:
    | "unauthorized"
    | "invalid_credential"
    | "credential_revoked"
    | "token_expired"
    | "MissingCredentials" // nothing configured (no key / no e-mail and password)
    | "LoginRejected" // POST /login refused the e-mail and password
    | "StillUnauthorized" // 401 again right after a fresh token
  readonly host: Host
  readonly operation: string
  readonly requestId?: string | undefined
  readonly detail?: string | undefined
}> {
  override get message() {
    return `${where(this.operation, this.requestId)}: authentication failed on the ${this.host} host (${this.reason})${this.detail ? `: ${this.detail}` : ""}`
  }
}

/** A request built by the caller breaks the documented rules; refused before anything is sent. */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly reason: "Body" | "Query" | "Path" | "Url"
  readonly operation: string
  /** What is wrong, one or a few lines (from the schema's formatter). */
  readonly detail: string
}> {
  override get message() {
    return `${this.operation}: invalid request ${this.reason.toLowerCase()}: ${this.detail}`
  }
}

/** A 404 of either host: the key asked for does not exist there. */
export const isNotFound = (e: unknown): boolean => {
  const tag = (e as { _tag?: unknown } | null)?._tag
  return (tag === "PlatformProblem" || tag === "TokenProblem") && (e as { status: number }).status === 404
}

/**
 * A limit the service names for a list read (`page_depth_exceeded`: more results requested than
 * the plan allows): the slice ends there with what was reachable, a `limit`, not a failure.
 * Returns the line that says which limit, or undefined.
 */
export const serviceLimitOf = (e: unknown): string | undefined => {
  if ((e as { _tag?: unknown } | null)?._tag !== "PlatformProblem") return undefined
  const p = e as PlatformProblem
  return p.reason === "page_depth_exceeded"
    ? `the service's page depth (${p.status} page_depth_exceeded${p.detail ? `: ${p.detail}` : ""})`
    : undefined
}

/** Everything a client call can fail with. */
export type ServiceError =
  | UnexpectedShape
  | PlatformProblem
  | TokenProblem
  | TransportError
  | BudgetExhausted
  | PaymentRequired
  | AuthenticationFailed
  | InvalidRequest
