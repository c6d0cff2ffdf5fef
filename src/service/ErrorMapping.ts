/**
 * Maps a non-2xx answer of each host to its tagged error (see `ServiceError.ts`).
 *
 * Platform: an RFC 9457 problem record (`code`, `request_id`, `detail`; the 402 carries
 * `payment_url`), or plot search's `{error: {code, message}}` passed through from the plot
 * service. Token host: bodies by status (400 `{message, errors, details}`, 401/403 `{detail}`,
 * 404 `{errors}`, 422 `{detail: [{loc, msg, type}]}`).
 *
 * Assumed: the spec lists no platform codes above 413 and no machine codes on the token host;
 * a platform answer without a code becomes `http_<status>`, a token-host reason follows its status.
 */
import {
  AuthenticationFailed,
  PaymentRequired,
  PlatformProblem,
  type ServiceError,
  TokenProblem,
  type TokenProblemReason
} from "./ServiceError.js"

/** A response as the transport read it: status, lower-case headers and the whole body text. */
export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

const parse = (text: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(text)
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)
/** One line of at most 300 characters (bodies are written for people, but never trusted to be short). */
const line = (v: unknown): string | undefined => {
  const s = str(v)
  return s === undefined ? undefined : s.replace(/\s+/g, " ").slice(0, 300)
}

const AUTH_CODES = new Set(["unauthorized", "invalid_credential", "credential_revoked", "token_expired"])

/**
 * Assumed (docs/ASSUMPTIONS.md): the 402 problem names its payment link `payment_url`; the spec
 * says the problem carries one but not its name. Setting: `service.paymentLinkMember`.
 */
export const DEFAULT_PAYMENT_LINK_MEMBER = "payment_url"

/** Members of a problem whose value is an http(s) URL (the payment link by any name). */
const urlMembers = (body: Record<string, unknown> | undefined, except: string): Array<string> =>
  Object.entries(body ?? {}).flatMap(([k, v]) =>
    k !== except && k !== "type" && typeof v === "string" && /^https?:\/\//i.test(v) ? [`${k}: ${v.slice(0, 300)}`] : []
  )

export const platformError = (
  operation: string,
  res: RawResponse,
  retryAfterMs: number | undefined,
  unitsCharged: number,
  paymentLinkMember: string = DEFAULT_PAYMENT_LINK_MEMBER
): ServiceError => {
  const body = parse(res.text)
  const plot = body && typeof body.error === "object" && body.error !== null ? (body.error as Record<string, unknown>) : undefined
  const code = str(body?.code) ?? str(plot?.code) ?? `http_${res.status}`
  const detail = line(body?.detail) ?? line(plot?.message) ?? line(body?.title)
  const requestId = str(body?.request_id) ?? res.headers["svc-request-id"]
  if (res.status === 402 || code === "payment_required") {
    const paymentUrl = str(body?.[paymentLinkMember])
    return new PaymentRequired({ operation, paymentUrl, requestId, detail, links: urlMembers(body, paymentLinkMember) })
  }
  if (res.status === 401) {
    return new AuthenticationFailed({
      reason: AUTH_CODES.has(code) ? (code as "unauthorized") : "unauthorized",
      host: "platform",
      operation,
      requestId,
      detail
    })
  }
  return new PlatformProblem({
    reason: code,
    status: res.status,
    operation,
    requestId,
    detail,
    title: line(body?.title),
    retryAfterMs,
    ...(unitsCharged > 0 ? { unitsCharged } : {})
  })
}

const TOKEN_REASONS: Record<number, TokenProblemReason> = {
  400: "bad_request",
  403: "forbidden",
  404: "not_found",
  408: "request_timeout",
  409: "conflict",
  422: "validation",
  429: "rate_limited"
}

/** Explanations of a token-host error body, one line each. */
const tokenDetails = (body: Record<string, unknown> | undefined): Array<string> => {
  if (!body) return []
  const out: Array<string> = []
  if (Array.isArray(body.errors)) out.push(...body.errors.flatMap((e) => (line(e) ? [line(e)!] : [])))
  else if (typeof body.errors === "object" && body.errors !== null) {
    for (const [k, v] of Object.entries(body.errors)) out.push(`${k}: ${line(Array.isArray(v) ? v.join(", ") : String(v))}`)
  }
  if (line(body.details)) out.push(line(body.details)!)
  if (Array.isArray(body.detail)) {
    for (const d of body.detail as Array<Record<string, unknown>>) {
      const loc = Array.isArray(d?.loc) ? d.loc.filter((x) => x !== "body").join(".") : ""
      out.push(`${loc ? `${loc}: ` : ""}${line(d?.msg) ?? "invalid"}`)
    }
  }
  return out.slice(0, 20)
}

export const tokenError = (operation: string, res: RawResponse, retryAfterMs: number | undefined): ServiceError => {
  const body = parse(res.text)
  const detail = line(body?.detail) ?? line(body?.message)
  if (res.status === 401) return new AuthenticationFailed({ reason: "unauthorized", host: "token", operation, detail })
  return new TokenProblem({
    reason: TOKEN_REASONS[res.status] ?? (res.status >= 500 ? "server_error" : "unexpected_status"),
    status: res.status,
    operation,
    detail,
    details: tokenDetails(body),
    retryAfterMs
  })
}
