/**
 * The catalogue under every sandbox dialect (src/config/Dialect.ts, applied by src/sandbox/Dialect.ts): each pipeline runs into a
 * fresh warehouse and either lands exactly the sandbox's ground truth (test/support/groundTruth.ts)
 * or stops with a named, documented status: `incomplete` (exit 6, a shortfall named), `paused`
 * with `UnexpectedShape` (exit 7), or an authentication failure (exit 5) where the dialect makes
 * it the honest answer. A run that says `done` with other rows than the truth is a silent
 * shortfall and fails. The outcome each dialect should give is asserted too, so a regression into
 * a named stop is caught as well.
 *
 * The outcomes (dialect run x pipeline) are written to `.vitest-dialects.json` and printed as a
 * markdown table at the end (for docs/RELIABILITY.md).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalogue } from "../../pipelines/index.js"
import type { RunSummary } from "../../src/pipeline/Runner.js"
import { LOW_BALANCE, SANDBOX_API_KEY, WELL_KNOWN_CREDENTIALS } from "../../src/sandbox/Credentials.js"
import { DIALECT_NAMES, DIALECTS, type DialectFlags, type DialectName } from "../../src/config/Dialect.js"
import { makeFeeds } from "../support/feeds.js"
import { CASES, type PipelineCase, TRUTH_WORLD, type TruthContext } from "../support/groundTruth.js"
import { type Harness, makeHarness, unitsSpent } from "../support/pipelines.js"
import { queryWarehouse } from "../support/queryWarehouse.js"
import { type Comparison, compare } from "../support/truthCompare.js"

type Named = "truth" | "incomplete (6)" | "UnexpectedShape (7)" | "coding (7)" | "auth (5)"
/** A named outcome, or a description of anything else (always a failure). */
type Outcome = Named | `BUG: ${string}` | `other: ${string}`

interface DialectRun {
  readonly label: string
  readonly dialect: DialectName
  /** Flags laid over the preset (a combination of readings). */
  readonly flags?: DialectFlags
  readonly settings?: Record<string, unknown>
  readonly expected: (c: PipelineCase) => Named
}

/**
 * Settings of every run, under each run's own: no client-side pacing (the test sandbox has its
 * rate limits off, and the 20 requests a second the platform client assumes before it sees a
 * policy would make the by-key fan-outs the slowest part of the matrix), and one DuckDB thread
 * (the warehouses are tiny; the pipelines of a dialect run side by side).
 */
const BASE_SETTINGS = { service: { platformRate: 0, apiRate: 0 }, duckdb: { threads: 1 } }
const settingsOf = (run: DialectRun) => ({
  ...BASE_SETTINGS,
  ...run.settings,
  service: { ...BASE_SETTINGS.service, ...(run.settings?.service as Record<string, unknown> | undefined) }
})

const truthAlways = () => "truth" as const
/** Every operation whose list the spec does not show, read under `items` (the results-key dialect's key). */
const itemsShapes = Object.fromEntries(
  [...new Set(CASES.flatMap((c) => c.unshownOperations))].map((op) => [op, { results: DIALECTS["results-key"].resultsKey }])
)

const RUNS: ReadonlyArray<DialectRun> = [
  { label: "default", dialect: "default", expected: truthAlways },
  { label: "capped-pages", dialect: "capped-pages", expected: truthAlways },
  { label: "no-count", dialect: "no-count", expected: truthAlways },
  // capped pages that declare nothing: a short page proves nothing, the slice reads to an empty page
  { label: "no-count + capped-pages", dialect: "no-count", flags: { pageCap: 37 }, expected: truthAlways },
  // Without next links a cursor has no way past its first page: the count says more remain.
  {
    label: "no-next",
    dialect: "no-next",
    expected: (c) => (c.paging === "cursor" || c.paging === "single+cursor" ? "incomplete (6)" : "truth")
  },
  // A not-shown payload under another key is not guessed: the run stops, naming the shape.
  { label: "results-key", dialect: "results-key", expected: (c) => (c.unshownOperations.length > 0 ? "UnexpectedShape (7)" : "truth") },
  { label: "results-key + service.shapes", dialect: "results-key", settings: { service: { shapes: itemsShapes } }, expected: truthAlways },
  { label: "strict-datetime", dialect: "strict-datetime", expected: truthAlways },
  { label: "missing-keys", dialect: "missing-keys", expected: truthAlways },
  // The key in Authorization: Bearer is refused by a service that reads it from its own header.
  { label: "header-key", dialect: "header-key", expected: (c) => (c.host === "platform" ? "auth (5)" : "truth") },
  {
    label: "header-key + service.apiKeyHeader",
    dialect: "header-key",
    settings: { service: { apiKeyHeader: DIALECTS["header-key"].apiKeyHeader } },
    expected: truthAlways
  },
  { label: "payment-member", dialect: "payment-member", expected: truthAlways },
  // Unshown lists paged by next links only (offset ignored): the slices follow the links.
  { label: "next-only", dialect: "next-only", expected: truthAlways },
  // Unshown lists that do not page at all: one wasted page, then a named stop.
  {
    label: "no-paging",
    dialect: "no-paging",
    expected: (c) => (c.pipeline === "premises-search" || c.pipeline === "seller-leads" ? "incomplete (6)" : "truth")
  },
  // A stale second page (the first again): the slice stops at once, one wasted page. (The
  // sandbox repeats the pages of every paged list but the alerts-api feed list.)
  {
    label: "repeat-pages",
    dialect: "repeat-pages",
    expected: (c) => (c.pages === "more" && c.pipeline !== "alert-feeds" ? "incomplete (6)" : "truth")
  },
  // premises-search beyond the plan's page depth: what was reachable, and a named limit.
  { label: "page-depth", dialect: "page-depth", expected: (c) => (c.pipeline === "premises-search" ? "incomplete (6)" : "truth") },
  // records leave a list between its pages: read again from before the shift; the live records land.
  { label: "removals", dialect: "removals", expected: truthAlways },
  { label: "gzip", dialect: "gzip", expected: truthAlways },
  // a coding the client cannot decode: the first answer of every pipeline stops it, named
  { label: "zstd", dialect: "zstd", expected: () => "coding (7)" },
  { label: "big-ids", dialect: "big-ids", expected: truthAlways },
  { label: "string-ids", dialect: "string-ids", expected: truthAlways }
]

/**
 * `make test` runs, in each dialect other than the default, the pipelines the dialect can change:
 * in a dialect that changes paging, one paged pipeline of each way of paging on each host
 * (PAGING_COVER); in every dialect, those whose expected outcome is a stop and those it names
 * below (dates, fan-outs by key, ids, codings). The default dialect runs every pipeline.
 * `make chaos` (CHAOS=full) runs the whole matrix, every pipeline in every dialect.
 */
const FULL = process.env.CHAOS === "full"
const ALSO: Partial<Record<string, ReadonlyArray<string>>> = {
  "strict-datetime": ["market-time-series", "market-analysis", "alerts-search", "properties-changed"],
  "missing-keys": ["properties-by-id", "properties-match", "comparables", "sourcing-properties", "sourcing-changed", "sourcing-resolve"],
  "big-ids": ["alerts-search", "properties-changed"],
  "string-ids": ["alerts-search"],
  "payment-member": ["references"],
  "header-key": ["references"],
  // a coding of every body: one list paged in full on each host
  gzip: ["sourcing-search", "alerts"],
  // a coding nothing decodes stops every pipeline at its first answer: the paged cover, a fan-out
  // by key and a single answer on each host
  zstd: ["properties-by-id", "sourcing-properties", "references", "market-time-series"]
}
/** The flags that change how lists page or where their records sit: only their runs read every paged list. */
const PAGING_FLAGS: ReadonlyArray<keyof DialectFlags> = [
  "pageCap",
  "noCount",
  "noNext",
  "resultsKey",
  "linkPaging",
  "noPaging",
  "repeatPage",
  "pageDepth",
  "removeAfterFirstPage"
]
const changesPaging = (run: DialectRun): boolean => {
  const flags: DialectFlags = { ...DIALECTS[run.dialect], ...run.flags }
  return PAGING_FLAGS.some((f) => flags[f] !== undefined && flags[f] !== false)
}
/**
 * One paged pipeline of each (host, paging, list shown or not): sourcing-describe pages as
 * sourcing-search does, premises-search as seller-leads (both run where their outcome is a stop).
 */
const PAGING_COVER: ReadonlyArray<string> = [
  "plots-germany",
  "seller-leads",
  "sourcing-search",
  "alerts",
  "alerts-search",
  "alert-feeds",
  "properties-search"
]
const runsCase = (run: DialectRun, c: (typeof CASES)[number]): boolean =>
  FULL ||
  run.dialect === "default" ||
  (run.expected(c) !== "truth" && (run.dialect !== "zstd" || PAGING_COVER.includes(c.pipeline))) ||
  (changesPaging(run) && PAGING_COVER.includes(c.pipeline)) ||
  (ALSO[run.dialect]?.includes(c.pipeline) ?? false)

/** Units the warehouses' ledgers hold, and the sandbox charged, per dialect run. */
const charged = new Map<string, number>()
const spent = new Map<string, number>()
/** run label -> paid pipeline -> `charged (<= allowed)` */
const unitsOf = new Map<string, Map<string, string>>()

/** run label -> pipeline -> outcome */
const outcomes = new Map<string, Map<string, Outcome>>()
const record = (run: string, pipeline: string, outcome: Outcome) => {
  if (!outcomes.has(run)) outcomes.set(run, new Map())
  outcomes.get(run)!.set(pipeline, outcome)
}
const details: Array<Record<string, unknown>> = []

const OUTCOME_FILE = path.resolve(import.meta.dirname, "../../.vitest-dialects.json")

afterAll(() => {
  const pipelines = catalogue.map((p) => p.name)
  const runs = RUNS.map((r) => r.label).filter((l) => outcomes.has(l))
  const table = Object.fromEntries(
    runs.map((r) => [r, Object.fromEntries(pipelines.map((p) => [p, outcomes.get(r)!.get(p) ?? "not run"]))])
  )
  const paid = [...new Set([...unitsOf.values()].flatMap((m) => [...m.keys()]))]
  const cost = Object.fromEntries(runs.map((r) => [r, Object.fromEntries(paid.map((p) => [p, unitsOf.get(r)?.get(p) ?? null]))]))
  fs.writeFileSync(OUTCOME_FILE, JSON.stringify({ world: TRUTH_WORLD, outcomes: table, units: cost, problems: details }, null, 2) + "\n")
  const lines = [
    `| pipeline | ${runs.join(" | ")} |`,
    `|---|${runs.map(() => "---").join("|")}|`,
    ...pipelines.map((p) => `| ${p} | ${runs.map((r) => outcomes.get(r)!.get(p) ?? "not run").join(" | ")} |`)
  ]
  // units each paid pipeline was charged under each dialect, against its needed-units bound
  const unitLines = [
    `| pipeline | ${runs.join(" | ")} |`,
    `|---|${runs.map(() => "---").join("|")}|`,
    ...paid.map((p) => `| ${p} | ${runs.map((r) => unitsOf.get(r)?.get(p) ?? "-").join(" | ")} |`)
  ]
  console.log(
    `\nOutcomes by dialect (also in ${path.basename(OUTCOME_FILE)}):\n\n${lines.join("\n")}\n\nUnits charged:\n\n${unitLines.join("\n")}\n`
  )
})

/** The named stop a summary or a refusal stands for, if any. */
const namedStop = (summary: RunSummary | undefined, rejected: unknown): Named | undefined => {
  if (summary === undefined) {
    const tag = (rejected as { _tag?: string } | undefined)?._tag
    if (/which this client cannot decode/.test(String((rejected as Error | undefined)?.message))) return "coding (7)"
    return tag === "AuthenticationFailed" ? "auth (5)" : tag === "UnexpectedShape" ? "UnexpectedShape (7)" : undefined
  }
  if (summary.status === "incomplete" && summary.exitCode === 6 && summary.completeness.shortfalls.length > 0) return "incomplete (6)"
  if (summary.exitCode === 7 && /encoded as "[^"]+", which this client cannot decode/.test(summary.error ?? "")) return "coding (7)"
  if (summary.status === "paused" && summary.exitCode === 7 && /UnexpectedShape/.test(summary.error ?? "")) return "UnexpectedShape (7)"
  if (summary.exitCode === 5) return "auth (5)"
  return undefined
}

for (const run of RUNS) {
  // the pipelines of one dialect run side by side (each into its own warehouse file)
  describe.concurrent(`dialect ${run.label}`, () => {
    let h: Harness
    let ctx: TruthContext

    beforeAll(async () => {
      // the feeds are made in the default dialect (a dialect may answer their creation in a way the
      // client reads differently, e.g. zstd); the runs then speak the dialect
      h = await makeHarness({ sandbox: { world: TRUTH_WORLD }, settings: settingsOf(run) })
      const feeds = await makeFeeds(h, { alertsApi: ["a", "b", "c", "d", "e"], alertsApiFilter: { alert_subtypes: ["sold"] } })
      h.sandbox.control.setDialect({ ...DIALECTS[run.dialect], ...run.flags })
      ctx = {
        world: h.sandbox.context.world,
        now: h.sandbox.control.now(),
        dialect: { ...DIALECTS[run.dialect], ...run.flags },
        dir: h.dir,
        feeds
      }
    })
    afterAll(async () => {
      if (h) spent.set(run.label, unitsSpent(h))
      await h?.close()
    })

    for (const c of CASES.filter((c) => runsCase(run, c))) {
      const expected = run.expected(c)
      it(`${c.pipeline}: ${expected}`, async ({ expect }) => {
        const warehouse = path.join(h.dir, `${c.pipeline}.duckdb`)
        const truth = c.truth(ctx)
        if (run.dialect === "missing-keys" && ["properties-by-id", "sourcing-properties", "sourcing-resolve"].includes(c.pipeline)) {
          // the dialect hides at least one key of the run besides the one the world never had
          expect(truth.missing.length).toBeGreaterThanOrEqual(2)
        }
        let summary: RunSummary | undefined
        let rejected: unknown
        try {
          summary = await h.run(c.pipeline, { params: c.params(ctx), warehouse })
        } catch (e) {
          rejected = e
        }

        // records that left a list while it was read (the removals dialect) may land or not
        const optional = new Set(run.dialect === "removals" ? h.sandbox.control.removed() : [])
        let outcome: Outcome
        let comparison: Comparison | undefined
        if (summary?.status === "done" && summary.exitCode === 0) {
          comparison = await compare(warehouse, c.pipeline, truth, optional)
          outcome = comparison.exact ? "truth" : `BUG: done (exit 0) but ${comparison.problems.join("; ")}`
        } else {
          const stop = namedStop(summary, rejected)
          outcome =
            stop ??
            (summary
              ? `other: ${summary.status} (exit ${summary.exitCode}): ${summary.error ?? ""}`
              : `other: refused before the run: ${String((rejected as Error)?.message ?? rejected)}`)
          if (stop === "incomplete (6)") comparison = await compare(warehouse, c.pipeline, truth, optional)
        }
        record(run.label, c.pipeline, outcome)
        if (outcome !== expected) {
          details.push({
            run: run.label,
            pipeline: c.pipeline,
            expected,
            outcome,
            status: summary?.status,
            exitCode: summary?.exitCode,
            error: summary?.error ?? (rejected as Error | undefined)?.message,
            shortfalls: summary?.completeness.shortfalls,
            problems: comparison?.problems
          })
        }

        // what the service charged against what the records needed: at most one wasted page a
        // slice (plus the page that confirms an end nothing else declares, and one that repairs a shift)
        if (c.paid && summary) {
          const [slices, [ledger]] = await queryWarehouse(warehouse, [
            `SELECT slice, pages::INTEGER AS pages, coalesce(distinct_keys, landed + rejected)::INTEGER AS keys FROM _slices`,
            `SELECT coalesce(sum(units), 0)::INTEGER AS units FROM _ledger`
          ])
          const size = Math.min(c.paid.pageSize, ctx.dialect.pageCap ?? Infinity)
          const extra = c.paging === "single" ? 0 : 2 + (run.dialect === "removals" ? 1 : 0)
          // a slice stopped before any of its pages landed (a shape or coding stop) paid for one page
          const unlanded = Math.max(0, summary.plan.slices - slices!.length)
          const allowed =
            c.paid.unitsPerPage * unlanded +
            slices!.reduce((s, r) => s + c.paid!.unitsPerPage * (Math.ceil(Math.max(1, Number(r.keys)) / size) + extra), 0)
          const units = Number(ledger!.units)
          charged.set(run.label, (charged.get(run.label) ?? 0) + units)
          if (!unitsOf.has(run.label)) unitsOf.set(run.label, new Map())
          unitsOf.get(run.label)!.set(c.pipeline, `${units} (<= ${allowed})`)
          expect(units, `${c.pipeline} under ${run.label}: ${units} units charged for what ${allowed} units buy`).toBeLessThanOrEqual(
            allowed
          )
        }
        // a done run lands exactly the truth: a silent shortfall (or surplus) fails here
        if (summary?.status === "done") {
          expect(comparison!.problems, `${c.pipeline} under ${run.label} said done`).toEqual([])
        }
        // anything else is a named, documented stop
        expect(["truth", "incomplete (6)", "UnexpectedShape (7)", "coding (7)", "auth (5)"], outcome).toContain(outcome)
        if (outcome === "incomplete (6)") {
          expect(summary!.completeness.shortfalls.length).toBeGreaterThan(0)
          // what an incomplete run did land is right, only short
          expect(comparison!.foreign, "rows outside the truth").toEqual([])
        }
        if (outcome === "UnexpectedShape (7)") expect(summary?.error ?? String((rejected as Error)?.message)).toMatch(/UnexpectedShape/)
        // and the one this dialect should give
        expect(outcome).toBe(expected)
      })
    }
  })
}

describe("dialect payment-member: the 402 link under the dialect's member name", () => {
  let h: Harness
  beforeAll(async () => {
    // the harness's key, with the low balance of LOW_BALANCE_API_KEY: a 40-unit premises call answers 402
    const credentials = WELL_KNOWN_CREDENTIALS.map((c) => (c.key === SANDBOX_API_KEY ? { ...c, balance: LOW_BALANCE } : c))
    h = await makeHarness({ sandbox: { world: TRUTH_WORLD, dialect: "payment-member", credentials } })
  })
  afterAll(() => h?.close())

  it("premises-search stops paused (exit 4) and its message carries the top_up_url link, with the default member setting", async () => {
    expect(h.settings.service.paymentLinkMember).toBe("payment_url")
    const summary = await h.run("premises-search", {
      params: { body: { limit: 20 }, maxPages: 1 },
      warehouse: path.join(h.dir, "402.duckdb")
    })
    expect(summary.status).toBe("paused")
    expect(summary.exitCode).toBe(4)
    const link = `${h.sandbox.platformUrl}/billing/top-up/key_default`
    expect(link).toMatch(/^https?:\/\//)
    expect(summary.error).toContain(link)
    expect(summary.error).toMatch(/top_up_url/)
  })
})

it("the ledgers hold what the sandbox charged, in every dialect", () => {
  for (const [label, units] of spent) expect(charged.get(label) ?? 0, label).toBe(units)
})

it("covers every pipeline of the catalogue and every dialect", () => {
  expect(CASES.map((c) => c.pipeline).sort()).toEqual(catalogue.map((p) => p.name).sort())
  // `pricier` changes what a call costs, not how a body reads: test/pipeline/LearnedCosts.test.ts
  expect([...new Set(RUNS.map((r) => r.dialect))].sort()).toEqual(DIALECT_NAMES.filter((d) => d !== "pricier").sort())
})
