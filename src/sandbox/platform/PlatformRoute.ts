/**
 * One paid operation of the platform host: authenticate, check the balance, run the handler,
 * charge on success only and add the billing headers. Failures become problem records (or the
 * plot search's own body for 400/401/403/429).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Data, Effect, FiberRef } from "effect"
import type { Account } from "../Accounts.js"
import { activeDialect, DEFAULT_PAYMENT_LINK_MEMBER } from "../Dialect.js"
import { CurrentRequest, type RequestInfo } from "../HostMiddleware.js"
import type { SandboxState } from "../SandboxState.js"
import { authenticate } from "./PlatformAuth.js"
import { PROBLEM, type ProblemCode, plotErrorResponse, problemResponse } from "./Problem.js"

/** A refusal of a platform operation; `extra` members are added to the problem record. */
export class PlatformError extends Data.TaggedError("PlatformError")<{
  readonly code: ProblemCode
  readonly detail: string
  readonly extra?: Record<string, unknown>
}> {}

export const invalid = (detail: string) => new PlatformError({ code: "invalid_request", detail })

export interface OperationSpec {
  /** Units charged on success. */
  readonly cost: number
  /** The spec states the cost (premises search): a dialect's `costFactor` leaves it alone. */
  readonly specCost?: boolean
  /** Scope an OAuth token needs. */
  readonly scope?: string
  /** `plot`: errors 400/401/403/429 use `{error: {code, message}}`. */
  readonly style?: "problem" | "plot"
  /** Headers on every answer of the operation (e.g. `Ai-Version`). */
  readonly headers?: Record<string, string>
  /** Runs before the balance check (plot quota). */
  readonly precheck?: (account: Account) => PlatformError | undefined
}

/** Assumed: plan and units source values of the sandbox (docs/ASSUMPTIONS.md). */
export const PLAN = "sandbox"
export const UNITS_SOURCE = "balance"

/** The error answer of an operation, in its style. */
export const errorResponse = (
  state: SandboxState,
  info: RequestInfo,
  e: PlatformError,
  style: "problem" | "plot",
  headers: Record<string, string> = {}
) => {
  const status = PROBLEM[e.code].status
  if (style === "plot" && (status === 400 || status === 401 || status === 403 || status === 429)) {
    return plotErrorResponse(status, e.code, e.detail, info.id, headers)
  }
  return problemResponse({
    platformUrl: state.ctx.platformUrl(),
    code: e.code,
    detail: e.detail,
    path: info.path,
    requestId: info.id,
    headers,
    ...(e.extra ? { extra: e.extra } : {})
  })
}

/**
 * Assumed: 402 is a problem record on every operation, plot search included (its own error
 * body covers 400, 401, 403 and 429 only).
 */
const paymentRequired = (state: SandboxState, account: Account, cost: number) =>
  new PlatformError({
    code: "payment_required",
    detail: `This call costs ${cost} units; the balance holds ${Math.max(0, account.balance)}`,
    // Assumed: the payment link's field is `payment_url` (docs/ASSUMPTIONS.md); a dialect may rename it.
    extra: {
      [activeDialect(state.ctx).paymentLinkMember ?? DEFAULT_PAYMENT_LINK_MEMBER]:
        `${state.ctx.platformUrl()}/billing/top-up/${account.spec.id}`
    }
  })

const runsOut = (state: SandboxState, cost: number) => {
  const f = state.faults.platform
  const threshold = f.settings.unitsRunOutAfter
  return threshold !== undefined && state.accounts.totalCharged - f.unitsAtApply + cost > threshold
}

/** Wraps a handler returning a JSON body into a billed operation. */
export const operation = <R>(
  state: SandboxState,
  spec: OperationSpec,
  handler: (account: Account) => Effect.Effect<unknown, PlatformError, R>
) =>
  Effect.gen(function* () {
    const info = yield* FiberRef.get(CurrentRequest)
    const req = yield* HttpServerRequest.HttpServerRequest
    const style = spec.style ?? "problem"
    const headers = spec.headers ?? {}
    const auth = authenticate(state, req.url, req.headers, spec.scope)
    if (!auth.ok) return errorResponse(state, info, new PlatformError(auth.failure), style, headers)
    const account = auth.account
    const factor = spec.specCost ? 1 : (activeDialect(state.ctx).costFactor ?? 1)
    const cost = spec.cost * factor
    const pre = spec.precheck?.(account)
    if (pre !== undefined) return errorResponse(state, info, pre, style, headers)
    if (account.balance < cost || runsOut(state, cost)) {
      return errorResponse(state, info, paymentRequired(state, account, cost), style, headers)
    }
    const result = yield* Effect.either(handler(account))
    if (result._tag === "Left") return errorResponse(state, info, result.left, style, headers)
    state.accounts.charge(account, cost)
    return HttpServerResponse.unsafeJson(result.right, {
      status: 200,
      headers: {
        ...headers,
        "Svc-Units-Charged": String(cost),
        "Svc-Units-Remaining": String(account.balance),
        "Svc-Units-Source": UNITS_SOURCE,
        "Svc-Plan": PLAN
      }
    })
  })

/** Assumed: bodies above 1 MiB answer 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The JSON body of a request. Empty: `undefined` (the caller decides whether that is allowed).
 * Invalid JSON: 400 `invalid_request`.
 */
export const jsonBody: Effect.Effect<unknown, PlatformError, HttpServerRequest.HttpServerRequest> = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const length = Number(req.headers["content-length"] ?? "0")
  if (length > MAX_BODY_BYTES) return yield* new PlatformError({ code: "payload_too_large", detail: `Body above ${MAX_BODY_BYTES} bytes` })
  const text = yield* Effect.orElseSucceed(req.text, () => "")
  if (text.length > MAX_BODY_BYTES)
    return yield* new PlatformError({ code: "payload_too_large", detail: `Body above ${MAX_BODY_BYTES} bytes` })
  if (text.trim() === "") return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return yield* invalid("The body is not valid JSON")
  }
})

export const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** An integer field within bounds, or the default when absent. */
export const intField = (value: unknown, name: string, min: number, max: number, dflt: number): Effect.Effect<number, PlatformError> => {
  if (value === undefined || value === null) return Effect.succeed(dflt)
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value
  if (typeof n !== "number" || !Number.isInteger(n)) return Effect.fail(invalid(`${name} must be an integer`))
  if (n < min || n > max) return Effect.fail(invalid(`${name} must be between ${min} and ${max}`))
  return Effect.succeed(n)
}

/** 405 `method_not_allowed` with `Allow`; no credential is needed to learn it. */
export const methodNotAllowed = (state: SandboxState, allow: string) =>
  Effect.map(FiberRef.get(CurrentRequest), (info) =>
    errorResponse(state, info, new PlatformError({ code: "method_not_allowed", detail: `This path accepts ${allow} only` }), "problem", {
      Allow: allow
    })
  )
