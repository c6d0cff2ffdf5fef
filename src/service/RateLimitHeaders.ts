/**
 * Pure parsers of rate-limit headers. The current IETF httpapi draft (11) sends Structured Field
 * lists, one item per policy:
 *
 *   RateLimit-Policy: "default";q=100;w=60      (quota q per window w seconds; qu, pk optional)
 *   RateLimit: "default";r=50;t=30              (r remaining, t seconds to reset)
 *
 * Older drafts sent one dictionary (`RateLimit: limit=100, remaining=50, reset=5`), a list of bare
 * quotas (`RateLimit-Policy: 100;w=60`), or three headers (`RateLimit-Limit/-Remaining/-Reset`,
 * and the de-facto `X-RateLimit-*`). `Retry-After` is seconds or an HTTP date. Malformed fields
 * and members are ignored, never an error.
 */

/** One policy: `quota` requests (or `quotaUnit`s) per `windowSeconds`. */
export interface RateLimitPolicy {
  readonly name: string
  readonly quota: number
  readonly windowSeconds: number
  readonly quotaUnit?: string
  readonly partitionKey?: string
}

/** The server's view of one policy now: `remaining` before `resetSeconds` from now. */
export interface RateLimitState {
  readonly name: string
  readonly remaining: number
  readonly resetSeconds?: number
  /** Only the older forms carry the limit next to the state. */
  readonly limit?: number
}

/** Everything one response says about rate limits. */
export interface RateLimitInfo {
  readonly policies: ReadonlyArray<RateLimitPolicy>
  readonly states: ReadonlyArray<RateLimitState>
  /** From `Retry-After`, in milliseconds from now (never negative). */
  readonly retryAfterMs?: number
}

type Bare = string | number | boolean
interface SfItem {
  readonly value: Bare
  readonly params: ReadonlyMap<string, Bare>
}

/** Splits at commas outside quoted strings. */
const splitTop = (input: string, sep: string): Array<string> => {
  const out: Array<string> = []
  let cur = ""
  let quoted = false
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!
    if (quoted && c === "\\" && i + 1 < input.length) {
      cur += c + input[++i]
      continue
    }
    if (c === '"') quoted = !quoted
    if (c === sep && !quoted) {
      out.push(cur)
      cur = ""
    } else cur += c
  }
  out.push(cur)
  return out
}

const KEY = /^[a-z*][a-z0-9_\-.*]*$/
const TOKEN = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*$/

/** A bare item (RFC 9651 §3.3): integer, decimal, string, token, boolean; `undefined` if malformed. */
const parseBare = (raw: string): Bare | undefined => {
  const s = raw.trim()
  if (s === "") return undefined
  if (/^-?\d{1,15}$/.test(s)) return Number(s)
  if (/^-?\d{1,12}\.\d{1,3}$/.test(s)) return Number(s)
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    const body = s.slice(1, -1)
    if (/(^|[^\\])"/.test(body)) return undefined
    return body.replace(/\\(["\\])/g, "$1")
  }
  // Byte sequence (`:base64:`), e.g. a partition key: kept as its base64 text.
  if (/^:[A-Za-z0-9+/=]*:$/.test(s)) return s.slice(1, -1)
  if (s === "?1") return true
  if (s === "?0") return false
  if (TOKEN.test(s)) return s
  return undefined
}

/** `value;k=v;k2` -> item, or `undefined` when the bare value or a parameter is malformed. */
const parseItem = (raw: string): SfItem | undefined => {
  const [head, ...rest] = splitTop(raw, ";")
  const value = parseBare(head ?? "")
  if (value === undefined) return undefined
  const params = new Map<string, Bare>()
  for (const p of rest) {
    const eq = p.indexOf("=")
    const key = (eq < 0 ? p : p.slice(0, eq)).trim()
    if (!KEY.test(key)) return undefined
    const v = eq < 0 ? true : parseBare(p.slice(eq + 1))
    if (v === undefined) return undefined
    params.set(key, v)
  }
  return { value, params }
}

/** A Structured Field list; malformed members are dropped. */
export const parseSfList = (value: string): Array<SfItem> =>
  splitTop(value, ",").flatMap((m) => {
    const item = m.trim() === "" ? undefined : parseItem(m)
    return item ? [item] : []
  })

/** A dictionary `k=v, k2=v2`; malformed members dropped. */
const parseDictionary = (value: string): Map<string, Bare> => {
  const out = new Map<string, Bare>()
  for (const m of splitTop(value, ",")) {
    const eq = m.indexOf("=")
    if (eq < 0) continue
    const key = m.slice(0, eq).trim().toLowerCase()
    const item = parseItem(m.slice(eq + 1))
    if (KEY.test(key) && item) out.set(key, item.value)
  }
  return out
}

const nonNegative = (v: Bare | undefined): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined)
const positive = (v: Bare | undefined): number | undefined => {
  const n = nonNegative(v)
  return n !== undefined && n > 0 ? n : undefined
}
const itemName = (v: Bare): string => (typeof v === "string" ? v : String(v))
const looksLikeDictionary = (value: string) => /^\s*(limit|remaining|reset)\s*=/i.test(value)

/** `RateLimit-Policy` (draft 11 `"name";q=;w=` or older `100;w=60`). */
export const parseRateLimitPolicy = (value: string | undefined): Array<RateLimitPolicy> => {
  if (value === undefined) return []
  return parseSfList(value).flatMap((item) => {
    // Older form: the bare item is the quota itself.
    const quota = typeof item.value === "number" ? positive(item.value) : positive(item.params.get("q"))
    const window = positive(item.params.get("w"))
    if (quota === undefined) return []
    const qu = item.params.get("qu")
    const pk = item.params.get("pk")
    return [
      {
        name: typeof item.value === "number" ? "default" : itemName(item.value),
        quota,
        // Assumed (draft 11): `w` defaults to 1 second when a policy omits it.
        windowSeconds: window ?? 1,
        ...(typeof qu === "string" ? { quotaUnit: qu } : {}),
        ...(typeof pk === "string" ? { partitionKey: pk } : {})
      }
    ]
  })
}

/** `RateLimit` in draft 11 (`"name";r=;t=`) or the older dictionary (`limit=, remaining=, reset=`). */
export const parseRateLimit = (value: string | undefined): Array<RateLimitState> => {
  if (value === undefined) return []
  if (looksLikeDictionary(value)) {
    const d = parseDictionary(value)
    const remaining = nonNegative(d.get("remaining"))
    if (remaining === undefined) return []
    const reset = nonNegative(d.get("reset"))
    const limit = positive(d.get("limit"))
    return [
      { name: "default", remaining, ...(reset !== undefined ? { resetSeconds: reset } : {}), ...(limit !== undefined ? { limit } : {}) }
    ]
  }
  return parseSfList(value).flatMap((item) => {
    const remaining = nonNegative(item.params.get("r"))
    if (remaining === undefined) return []
    const reset = nonNegative(item.params.get("t"))
    return [{ name: itemName(item.value), remaining, ...(reset !== undefined ? { resetSeconds: reset } : {}) }]
  })
}

const firstInteger = (value: string | undefined): number | undefined => {
  const m = value === undefined ? null : /^\s*(\d{1,15})\s*(?:[,;]|$)/.exec(value)
  return m ? Number(m[1]) : undefined
}

/**
 * Older separate headers (`limit` may carry `;w=` as in draft 02). `reset` larger than 10^9 is read as epoch seconds (as several APIs send
 * in `X-RateLimit-Reset`), otherwise as seconds from now.
 */
export const parseSeparateHeaders = (
  limit: string | undefined,
  remaining: string | undefined,
  reset: string | undefined,
  nowMs: number
): { policy?: RateLimitPolicy; state?: RateLimitState } => {
  const l = firstInteger(limit)
  const r = firstInteger(remaining)
  let t = firstInteger(reset)
  if (t !== undefined && t > 1e9) t = Math.max(0, t - Math.floor(nowMs / 1000))
  const window = limit === undefined ? undefined : /;\s*w=(\d+)/.exec(limit)?.[1]
  return {
    // Without `;w=` the window is unknown: no policy, the state alone paces.
    ...(l !== undefined && l > 0 && window !== undefined && Number(window) > 0
      ? { policy: { name: "default", quota: l, windowSeconds: Number(window) } }
      : {}),
    ...(r !== undefined
      ? {
          state: {
            name: "default",
            remaining: r,
            ...(t !== undefined ? { resetSeconds: t } : {}),
            ...(l !== undefined ? { limit: l } : {})
          }
        }
      : {})
  }
}

/** `Retry-After`: delay-seconds or an HTTP date, in ms from `nowMs` (a past date gives 0). */
export const parseRetryAfter = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined
  const s = value.trim()
  if (/^\d{1,10}$/.test(s)) return Number(s) * 1000
  // HTTP-date (IMF-fixdate, or the obsolete RFC 850 / asctime forms Date.parse understands).
  if (!/[A-Za-z]{3}/.test(s)) return undefined
  const at = Date.parse(s)
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs)
}

/** Reads every rate-limit header of one response; `get` looks a header up case-insensitively. */
export const readRateLimitHeaders = (get: (name: string) => string | undefined, nowMs: number): RateLimitInfo => {
  const policies = parseRateLimitPolicy(get("ratelimit-policy"))
  const states = parseRateLimit(get("ratelimit"))
  const extraPolicies: Array<RateLimitPolicy> = []
  const extraStates: Array<RateLimitState> = []
  for (const prefix of ["ratelimit-", "x-ratelimit-"]) {
    const older = parseSeparateHeaders(get(`${prefix}limit`), get(`${prefix}remaining`), get(`${prefix}reset`), nowMs)
    if (older.policy && policies.length === 0 && extraPolicies.length === 0) extraPolicies.push(older.policy)
    if (older.state && states.length === 0 && extraStates.length === 0) extraStates.push(older.state)
  }
  const retryAfterMs = parseRetryAfter(get("retry-after"), nowMs)
  return {
    policies: [...policies, ...extraPolicies],
    states: [...states, ...extraStates],
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {})
  }
}

/** The most restrictive policy's rate, in requests per second (undefined when none is known). */
export const strictestRate = (policies: ReadonlyArray<RateLimitPolicy>): number | undefined => {
  const rates = policies.filter((p) => p.quotaUnit === undefined || p.quotaUnit === "requests").map((p) => p.quota / p.windowSeconds)
  return rates.length === 0 ? undefined : Math.min(...rates)
}

/** The tightest state: the fewest remaining requests (with their reset). */
export const tightestState = (states: ReadonlyArray<RateLimitState>): RateLimitState | undefined =>
  states.reduce<RateLimitState | undefined>((acc, s) => (acc === undefined || s.remaining < acc.remaining ? s : acc), undefined)
