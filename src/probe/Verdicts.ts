/**
 * What the probe saw against what the toolkit assumes: one row per assumption it could check
 * (holds / differs / not seen), the rows it cannot check in one call (said so, never guessed),
 * and the settings that make the toolkit fit what it saw, as a fragment of a settings file.
 */
import { Either } from "effect"
import type { Settings } from "../config/Settings.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { identityOf } from "../pipeline/RecordKey.js"
import { readRateLimitHeaders } from "../service/RateLimitHeaders.js"
import { readList } from "../service/ResponseShape.js"
import { DEFAULT_UNIT_COSTS } from "../config/UnitCosts.js"
import { SHAPED_OPERATIONS } from "../config/ShapedOperations.js"
import { RECORD_OPERATIONS, shapeOf } from "../service/Shapes.js"
import { parseJson } from "../shared/ExactJson.js"
import { findCount, findNext, findRecords, findReturned, hasBigInteger, urlMembers, valueAt } from "./Discover.js"
import type { PipelineProbe } from "./Probe.js"

export type Verdict = "holds" | "differs" | "not seen" | "cannot check"

export interface Row {
  /** What is assumed, e.g. `shape ai_search_premises results`. */
  readonly assumption: string
  readonly assumed: string
  readonly observed: string
  readonly verdict: Verdict
  /** The setting that makes the toolkit fit what was seen (a dotted path and its value). */
  readonly setting?: { readonly path: ReadonlyArray<string>; readonly value: unknown } | undefined
}

/** What one call cannot tell, said as such (docs/ASSUMPTIONS.md says the same). */
export const UNCHECKABLE: ReadonlyArray<Row> = [
  {
    assumption: "failed calls are not charged",
    assumed: "a refused or failed call costs 0 units; a paid call that timed out is not retried (it may have been charged)",
    observed: "one successful call a pipeline says nothing of failures",
    verdict: "cannot check"
  },
  {
    assumption: "token lifetimes",
    assumed: "access 900 s, refresh 86400 s; the client renews on 401 whatever they are",
    observed: "a probe lasts seconds",
    verdict: "cannot check"
  },
  {
    assumption: "webhook signature and payload",
    assumed: "Standard Webhooks 1.0",
    observed: "deliveries come only to a receiver",
    verdict: "cannot check"
  }
]

const shown = (v: unknown) => {
  const text = v === undefined ? "none" : typeof v === "string" ? v : JSON.stringify(v)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** The rows of one list answer's shape: where the records, count, next link and page count are. */
const shapeRows = (operation: string, body: unknown, settings: Settings, asked: number | undefined): Array<Row> => {
  const shape = shapeOf(operation, settings.service.shapes as never)
  const rows: Array<Row> = []
  const key = (member: string) => ["service", "shapes", operation, member]
  if (RECORD_OPERATIONS.has(operation)) {
    // a single record (an analysis, a distribution of properties): no paging to check
    const record = valueAt(body, shape.results)
    const holds = typeof record === "object" && record !== null && !Array.isArray(record)
    return [
      {
        assumption: `shape ${operation}: record`,
        assumed: shape.results,
        observed: holds ? `an object at ${shape.results}` : `${shown(record)} at ${shape.results}`,
        verdict: holds ? "holds" : "differs"
      }
    ]
  }
  const page = readList(body, shape)
  if (Either.isRight(page)) {
    rows.push({ assumption: `shape ${operation}: records`, assumed: shape.results, observed: shape.results, verdict: "holds" })
  } else {
    const found = findRecords(body)
    rows.push({
      assumption: `shape ${operation}: records`,
      assumed: shape.results,
      observed: found ?? `no list (${page.left})`,
      verdict: found === undefined ? "not seen" : "differs",
      ...(found !== undefined ? { setting: { path: key("results"), value: found } } : {})
    })
  }
  for (const [member, find] of [
    ["count", findCount],
    ["next", findNext],
    ["returned", findReturned]
  ] as const) {
    const assumed = shape[member]
    const here = assumed === null ? undefined : valueAt(body, assumed)
    if (here !== undefined) {
      rows.push({
        assumption: `shape ${operation}: ${member}`,
        assumed: assumed!,
        observed: `${assumed} (${shown(here)})`,
        verdict: "holds"
      })
      continue
    }
    const found = find(body)
    rows.push({
      assumption: `shape ${operation}: ${member}`,
      assumed: assumed ?? "none",
      observed: found === undefined ? "absent" : `${found} (${shown(valueAt(body, found))})`,
      // none assumed and none there holds; an assumed member absent from this answer proves nothing
      verdict: found === undefined ? (assumed === null ? "holds" : "not seen") : "differs",
      ...(found !== undefined ? { setting: { path: key(member), value: found } } : {})
    })
  }
  // a page smaller than asked while more remain: the plan's page-size cap (the pagers advance by what came)
  const records = Either.isRight(page) ? page.right.records.length : undefined
  const total = Either.isRight(page) ? page.right.total : undefined
  if (asked !== undefined && records !== undefined && total !== undefined && records < asked && total > records) {
    rows.push({
      assumption: `page size ${operation}`,
      assumed: `up to ${asked} (asked)`,
      observed: `${records} of ${total}: a page-size cap of ${records}`,
      verdict: "differs"
    })
  }
  return rows
}

const RATE_HEADERS = ["ratelimit-policy", "ratelimit", "ratelimit-limit", "x-ratelimit-limit"]

/**
 * The list answers a probe read, by the operation the pipeline read them as: its pages (bought
 * now or reused from the archive) and the body that stopped it on its shape; the page size asked
 * from the exchange that brought the same body.
 */
const listAnswersOf = (probe: PipelineProbe): Array<{ operation: string; raw: string; asked: number | undefined }> =>
  [
    ...probe.pages.flatMap((p) => (p.operation !== undefined && p.raw !== "" ? [{ operation: p.operation, raw: p.raw }] : [])),
    ...(probe.stop ? [probe.stop] : [])
  ].map((a, i) => ({
    ...a,
    // only a slice's first page says whether a page holds what was asked (a later one may be the last)
    asked: i === 0 ? probe.exchanges.find((e) => e.text === a.raw)?.asked : undefined
  }))

/** The rows of one pipeline's probe. */
export const rowsOf = (probe: PipelineProbe, pipeline: Pipeline, settings: Settings): Array<Row> => {
  const rows: Array<Row> = []
  for (const a of listAnswersOf(probe)) {
    if (!(SHAPED_OPERATIONS as ReadonlyArray<string>).includes(a.operation)) continue
    try {
      const body = parseJson(a.raw)
      if (body !== null) rows.push(...shapeRows(a.operation, body, settings, a.asked))
    } catch {
      // not JSON: the exchange's row says so
    }
  }
  for (const e of probe.exchanges) {
    const op = e.operation
    let body: unknown
    try {
      body = e.text === "" ? null : parseJson(e.text)
    } catch {
      rows.push({
        assumption: `${op} answer`,
        assumed: "JSON",
        observed: `not JSON (${e.headers["content-type"] ?? "no type"})`,
        verdict: "differs"
      })
      continue
    }
    if (e.status === 402) {
      const member = settings.service.paymentLinkMember
      const links = urlMembers(body)
      const holds = links.includes(member)
      rows.push({
        assumption: "402 payment link member",
        assumed: member,
        observed: links.join(", ") || "no URL member",
        verdict: holds ? "holds" : links.length > 0 ? "differs" : "not seen",
        ...(!holds && links.length > 0 ? { setting: { path: ["service", "paymentLinkMember"], value: links[0] } } : {})
      })
    }
    if (e.status < 200 || e.status >= 300) continue
    if (pipeline.host === "platform" && op !== "login") {
      const charged = Number(e.headers["svc-units-charged"] ?? NaN)
      const assumed = settings.budget.costs[op] ?? DEFAULT_UNIT_COSTS[op]
      if (Number.isFinite(charged)) {
        rows.push({
          assumption: `units a call of ${op}`,
          assumed: assumed === undefined ? "unknown (learnt from the first charge)" : String(assumed),
          observed: `${charged}${e.headers["svc-units-remaining"] !== undefined ? ` (${e.headers["svc-units-remaining"]} left)` : ""}`,
          verdict: assumed === charged ? "holds" : "differs",
          ...(assumed !== charged ? { setting: { path: ["budget", "costs", op], value: charged } } : {})
        })
      } else
        rows.push({
          assumption: `units a call of ${op}`,
          assumed: String(assumed ?? "?"),
          observed: "no Svc-Units-Charged",
          verdict: "not seen"
        })
    }
    if (hasBigInteger(body))
      rows.push({ assumption: `${op} integers`, assumed: "exact", observed: "integers beyond 2^53, read exactly", verdict: "holds" })
  }
  const last = probe.exchanges.at(-1)
  if (last !== undefined) {
    const info = readRateLimitHeaders((n) => last.headers[n], Date.now())
    const syntax =
      last.headers["ratelimit-policy"] !== undefined
        ? "RateLimit-Policy (draft 11)"
        : RATE_HEADERS.find((h) => last.headers[h] !== undefined)
    const policy = info.policies[0]
    const assumedRate = probe.host === "platform" ? settings.service.platformRate : settings.service.apiRate
    const seenRate = policy !== undefined ? policy.quota / policy.windowSeconds : undefined
    rows.push({
      assumption: `rate limit (${probe.host} host)`,
      assumed: `${assumedRate} requests/s until a policy is seen`,
      observed: policy !== undefined ? `${policy.quota} per ${policy.windowSeconds} s, ${syntax}` : (syntax ?? "no rate-limit headers"),
      verdict: seenRate === undefined ? "not seen" : seenRate === assumedRate ? "holds" : "differs",
      ...(seenRate !== undefined && seenRate !== assumedRate
        ? { setting: { path: ["service", probe.host === "platform" ? "platformRate" : "apiRate"], value: seenRate } }
        : {})
    })
    const coding = last.headers["content-encoding"]
    if (coding !== undefined) rows.push({ assumption: "content coding", assumed: "gzip, deflate, br", observed: coding, verdict: "holds" })
    for (const [name, value] of Object.entries(last.headers)) {
      if (/version$/.test(name))
        rows.push({ assumption: `version header ${name}`, assumed: "passed through", observed: value, verdict: "holds" })
    }
  }
  const first = probe.pages.find((p) => p.records.length > 0)?.records[0]
  const identity = identityOf(pipeline)
  if (first !== undefined && identity !== undefined) {
    const key = identity(first, "*")
    rows.push({
      assumption: `${pipeline.name}: record key`,
      assumed: pipeline.tables.find((t) => t.name === pipeline.records.table)?.primaryKey.join(", ") ?? "?",
      observed:
        key === undefined
          ? `none (members: ${Object.keys(first as object)
              .slice(0, 8)
              .join(", ")})`
          : key,
      verdict: key === undefined ? "differs" : "holds"
    })
  }
  if (probe.errorTag === "AuthenticationFailed" && pipeline.host === "platform") {
    rows.push({
      assumption: "API key header",
      assumed: settings.service.apiKeyHeader ?? "Authorization: Bearer",
      observed: `refused: ${probe.error ?? ""}`,
      verdict: "differs"
    })
  }
  return rows
}

/** The settings the rows call for, as one object (later rows win). */
export const fragmentOf = (rows: ReadonlyArray<Row>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const r of rows) {
    if (r.setting === undefined) continue
    let node = out
    r.setting.path.slice(0, -1).forEach((k) => {
      const child = node[k]
      node = node[k] = typeof child === "object" && child !== null ? (child as Record<string, unknown>) : {}
    })
    node[r.setting.path.at(-1)!] = r.setting.value
  }
  return out
}
