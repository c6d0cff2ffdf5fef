/**
 * `probe` against every sandbox dialect (issue "First contact"): for each, the probe names what
 * differs from the toolkit's assumptions and writes the settings that fit; for the dialects a
 * setting can fix, a nightly with the fragment laid over the settings lands the ground truth at
 * no more units than the default dialect's nightly (the probe's paid answers reused, not bought
 * again). The probe's own units per dialect are printed for docs/RELIABILITY.md.
 */
import { Effect, Either, Layer } from "effect"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { decodeSettings, mergeOver } from "../../src/config/loadSettings.js"
import type { Settings } from "../../src/config/Settings.js"
import { resolveParams } from "../../src/pipeline/Params.js"
import { Progress } from "../../src/pipeline/Progress.js"
import { runPipeline, type RunSummary } from "../../src/pipeline/Runner.js"
import { runSettingsOf } from "../../src/pipeline/RunSettings.js"
import { type ProbeReport, probeService } from "../../src/probe/ProbeService.js"
import { DIALECT_NAMES, DIALECTS, type DialectName } from "../../src/config/Dialect.js"
import { makeEnvironment } from "../../src/wiring/Environment.js"
import { makeFeeds } from "../support/feeds.js"
import { CASES, TRUTH_WORLD, type TruthContext } from "../support/groundTruth.js"
import { type Harness, makeHarness, pipelineByName, unitsSpent } from "../support/pipelines.js"
import { compare } from "../support/truthCompare.js"

/** The nightly the probe checks: the paid pipelines, and the token host's paged lists. */
const NIGHTLY = ["plots-germany", "sourcing-search", "seller-leads", "premises-search", "alerts", "alert-feeds", "properties-search"]
const CAP = 100

/** What each dialect's probe must name (a setting it writes, or a difference it sees), if anything. */
const EXPECTED: Partial<Record<DialectName, (report: ProbeReport) => void>> = {
  default: (r) => {
    expect(r.rows.filter((x) => x.verdict === "differs")).toEqual([])
    expect(r.fragment).toEqual({})
  },
  "results-key": (r) =>
    expect(r.fragment).toMatchObject({
      service: {
        shapes: { ai_search_premises: { results: "items" }, sourcing_search: { results: "items" }, seller_leads: { results: "items" } }
      }
    }),
  "header-key": (r) => expect(r.fragment).toMatchObject({ service: { apiKeyHeader: "Svc-Api-Key" } }),
  pricier: (r) => expect(r.fragment).toMatchObject({ budget: { costs: { plot_search: 3, sourcing_search: 3, seller_leads: 3 } } }),
  "capped-pages": (r) => expect(r.rows.some((x) => /^page size/.test(x.assumption) && x.verdict === "differs")).toBe(true),
  gzip: (r) => expect(r.rows.find((x) => x.assumption === "content coding")?.observed).toBe("gzip"),
  "big-ids": (r) => expect(r.rows.some((x) => /integers$/.test(x.assumption) && x.verdict === "holds")).toBe(true),
  zstd: (r) => expect(r.results.every((x) => /cannot decode/.test(x.error ?? ""))).toBe(true)
}

/** Dialects a setting fixes: the nightly with the probe's fragment lands the truth. */
const FIXED_BY_SETTINGS: ReadonlyArray<DialectName> = ["default", "results-key", "header-key", "pricier"]

const probeUnits = new Map<string, number>()
const nightlyUnits = new Map<string, number>()
afterAll(() => {
  console.log(
    `\nprobe units by dialect: ${[...probeUnits].map(([d, u]) => `${d} ${u}`).join(", ")}\nnightly units after the probe: ${[...nightlyUnits].map(([d, u]) => `${d} ${u}`).join(", ")}\n`
  )
})

/** The settings laid over with the probe's fragment (as `include` does), decoded. */
const withFragment = (settings: Settings, fragment: Record<string, unknown>): Settings =>
  Either.getOrThrow(decodeSettings(mergeOver(settings, fragment), "probed"))

/**
 * `make test` probes the dialects whose probe must name something (EXPECTED) and the default;
 * `make chaos` (CHAOS=full) every dialect, where the probe is only held to its cap and its units.
 */
const PROBED = process.env.CHAOS === "full" ? DIALECT_NAMES : DIALECT_NAMES.filter((d) => d === "default" || EXPECTED[d] !== undefined)

for (const dialect of PROBED) {
  describe(`probe under ${dialect}`, () => {
    let h: Harness
    let ctx: TruthContext

    it("names what differs, and a nightly with the settings it wrote lands the truth", async () => {
      h = await makeHarness({ sandbox: { world: TRUTH_WORLD }, settings: { service: { platformRate: 0, apiRate: 0 } } })
      try {
        const feeds = await makeFeeds(h, { alertsApi: ["a", "b", "c"], alertsApiFilter: {} })
        h.sandbox.control.setDialect(dialect)
        ctx = {
          world: h.sandbox.context.world,
          now: h.sandbox.control.now(),
          dialect: DIALECTS[dialect],
          dir: h.dir,
          feeds
        }
        const cases = NIGHTLY.map((name) => CASES.find((c) => c.pipeline === name)!)
        const targets = cases.map((c) => {
          const pipeline = pipelineByName(c.pipeline)
          return { pipeline, params: Either.getOrThrow(resolveParams(pipeline, c.params(ctx), [])) }
        })
        const warehouse = path.join(h.dir, "nightly.duckdb")
        const env = (s: Settings) =>
          makeEnvironment({ settings: s, sandbox: h.sandbox, progress: Progress.Silent, warehouse, maxUnits: CAP }) as Layer.Layer<
            any,
            unknown,
            never
          >
        const spent = unitsSpent(h)
        const report = await Effect.runPromise(Effect.scoped(probeService(h.settings, targets, { fresh: false, env })))
        probeUnits.set(dialect, unitsSpent(h) - spent)
        expect(report.units, "the probe's units are what the sandbox charged").toBe(unitsSpent(h) - spent)
        expect(report.units).toBeLessThanOrEqual(CAP)
        EXPECTED[dialect]?.(report)
        if (!FIXED_BY_SETTINGS.includes(dialect)) return

        // the nightly with the fragment: the truth, the probe's answers reused
        const settings = withFragment(h.settings, report.fragment)
        const before = unitsSpent(h)
        for (const [i, c] of cases.entries()) {
          const summary: RunSummary = await Effect.runPromise(
            runPipeline({
              pipeline: targets[i]!.pipeline,
              params: targets[i]!.params,
              fullRefresh: false,
              maxUnits: 1000,
              untilCap: false,
              ...runSettingsOf(settings)
            }).pipe(Effect.provide(env(settings)), Effect.scoped) as Effect.Effect<RunSummary, unknown, never>
          )
          expect([c.pipeline, summary.status, summary.error]).toEqual([c.pipeline, "done", undefined])
          const comparison = await compare(warehouse, c.pipeline, c.truth(ctx))
          expect(comparison.problems, c.pipeline).toEqual([])
        }
        const nightly = unitsSpent(h) - before
        nightlyUnits.set(dialect, nightly)
        // no more than the default dialect's nightly (a dialect that prices calls otherwise: in calls)
        const factor = DIALECTS[dialect].costFactor ?? 1
        if (nightlyUnits.has("default")) expect(nightly / factor).toBeLessThanOrEqual(nightlyUnits.get("default")!)
      } finally {
        await h.close()
      }
    }, 120_000)
  })
}
