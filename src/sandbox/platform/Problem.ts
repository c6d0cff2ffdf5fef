/**
 * RFC 9457 problem records of the platform host (`application/problem+json`), and the plot
 * search's own `{error: {code, message}}` body.
 */
import { HttpServerResponse } from "@effect/platform"

export type ProblemCode =
  | "invalid_request"
  | "key_in_query"
  | "page_depth_exceeded"
  | "unauthorized"
  | "invalid_credential"
  | "credential_revoked"
  | "token_expired"
  | "payment_required"
  | "insufficient_scope"
  | "not_entitled"
  | "account_suspended"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "rate_limited"
  | "quota_reached"
  | "internal_error"
  | "bad_gateway"
  | "service_unavailable"

/** Assumed: fixed English titles (docs/ASSUMPTIONS.md); the spec does not show them. */
export const PROBLEM: Record<ProblemCode, { readonly status: number; readonly title: string }> = {
  invalid_request: { status: 400, title: "Invalid request" },
  key_in_query: { status: 400, title: "Credential in query" },
  page_depth_exceeded: { status: 400, title: "Page depth exceeded" },
  unauthorized: { status: 401, title: "Unauthorized" },
  invalid_credential: { status: 401, title: "Invalid credential" },
  credential_revoked: { status: 401, title: "Credential revoked" },
  token_expired: { status: 401, title: "Token expired" },
  payment_required: { status: 402, title: "Payment required" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  not_entitled: { status: 403, title: "Not entitled" },
  account_suspended: { status: 403, title: "Account suspended" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  payload_too_large: { status: 413, title: "Payload too large" },
  // Assumed: codes above 413 are not shown by the spec; these follow the same pattern.
  rate_limited: { status: 429, title: "Too many requests" },
  quota_reached: { status: 429, title: "Quota reached" },
  internal_error: { status: 500, title: "Internal error" },
  bad_gateway: { status: 502, title: "Bad gateway" },
  service_unavailable: { status: 503, title: "Service unavailable" }
}

export interface ProblemInput {
  readonly platformUrl: string
  readonly code: ProblemCode
  readonly detail: string
  readonly path: string
  readonly requestId: string
  readonly extra?: Record<string, unknown>
  readonly headers?: Record<string, string>
}

export const problemBody = (p: ProblemInput) => {
  const { status, title } = PROBLEM[p.code]
  return {
    type: `${p.platformUrl}/errors/${p.code.replace(/_/g, "-")}`,
    title,
    status,
    detail: p.detail,
    instance: p.path,
    code: p.code,
    request_id: p.requestId,
    ...p.extra
  }
}

export const problemResponse = (p: ProblemInput): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(problemBody(p)), {
    status: PROBLEM[p.code].status,
    contentType: "application/problem+json",
    headers: { "Svc-Request-Id": p.requestId, ...p.headers }
  })

/** The plot search's own error body (400, 401, 403, 429). */
export const plotErrorResponse = (
  status: number,
  code: string,
  message: string,
  requestId: string,
  headers?: Record<string, string>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: { code, message } }, { status, headers: { "Svc-Request-Id": requestId, ...headers } })
