/**
 * The probe as one call, for the command line and tests: which pipelines fit the unit cap, the
 * probes themselves (`Probe.ts`), a key refused as Bearer tried in the header names the service
 * may read it from, and the verdicts with the settings fragment (`Verdicts.ts`).
 */
import { Effect, type Layer } from "effect"
import { durationMs, type Settings } from "../config/Settings.js"
import { mergeOver } from "../config/loadSettings.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { chooseCost } from "../pipeline/Planner.js"
import { type PipelineProbe, probeAll } from "./Probe.js"
import { fragmentOf, type Row, rowsOf, UNCHECKABLE } from "./Verdicts.js"

/**
 * Header names an API key is tried in when the service refuses it as `Authorization: Bearer`
 * (Assumed: the spec writes the product's name as `Svc` in header names and names no key header).
 */
export const KEY_HEADERS = ["Svc-Api-Key", "X-Api-Key", "Api-Key", "X-Svc-Api-Key"]

export interface ProbeTarget {
  readonly pipeline: Pipeline
  readonly params: unknown
}

/** Free pipelines always; paid ones while their first call fits `cap` (in order). */
export const chooseTargets = (targets: ReadonlyArray<ProbeTarget>, settings: Settings, cap: number) => {
  let units = 0
  const chosen: Array<ProbeTarget> = []
  const skipped: Array<{ readonly pipeline: string; readonly units: number }> = []
  for (const t of targets) {
    const cost = chooseCost(t.pipeline, settings.budget.costs).perRequest
    if (units + cost <= cap) {
      units += cost
      chosen.push(t)
    } else skipped.push({ pipeline: t.pipeline.name, units: cost })
  }
  return { chosen, skipped, units }
}

/** Rounds of probing again pipelines that stopped on a shape the probe has since found. */
const ROUNDS = 3

/** `settings` with a fragment laid over it (objects merge member by member, as `include` does). */
const withSettings = (settings: Settings, fragment: Record<string, unknown>): Settings => mergeOver(settings, fragment) as Settings

/** One row per assumption: a difference seen anywhere wins over a `holds`. */
const merged = (rows: ReadonlyArray<Row>): Array<Row> => {
  const by = new Map<string, Row>()
  for (const r of rows) {
    const had = by.get(r.assumption)
    if (had === undefined || (had.verdict !== "differs" && r.verdict === "differs")) by.set(r.assumption, r)
  }
  return [...by.values()]
}

export interface ProbeReport {
  readonly results: ReadonlyArray<PipelineProbe>
  readonly rows: ReadonlyArray<Row>
  /** The settings that fit what was seen. */
  readonly fragment: Record<string, unknown>
  readonly units: number
  /** The platform key was refused in every way tried. */
  readonly refused: boolean
}

/**
 * Probes `targets` with the environment `env(settings)` builds (the run's clients and warehouse),
 * trying the key in other headers when the platform refuses it as Bearer.
 */
export const probeService = <E>(
  settings: Settings,
  targets: ReadonlyArray<ProbeTarget>,
  options: { readonly fresh: boolean; readonly env: (settings: Settings) => Layer.Layer<any, E, never> }
) =>
  Effect.gen(function* () {
    const run = (s: Settings, list: ReadonlyArray<ProbeTarget>) =>
      Effect.map(
        probeAll(list, { fresh: options.fresh, reuseWithinMs: durationMs(s.budget.reuseWithin) }).pipe(Effect.provide(options.env(s))),
        (r) => r.results
      )
    let results: Array<PipelineProbe> = [...(yield* run(settings, targets))]
    // what every round charged (a round's results replace the last round's, its units add up)
    let units = results.reduce((s, r) => s + r.units, 0)
    const refused = results.filter((r) => r.host === "platform" && r.errorTag === "AuthenticationFailed")
    let keyHeader: string | undefined
    if (refused.length > 0 && settings.service.apiKeyHeader === undefined) {
      const named = (names: ReadonlyArray<string>) => targets.filter((t) => names.includes(t.pipeline.name))
      for (const header of KEY_HEADERS) {
        const s: Settings = { ...settings, service: { ...settings.service, apiKeyHeader: header } }
        const again = yield* run(s, named([refused[0]!.pipeline]))
        if (again.some((r) => r.errorTag === "AuthenticationFailed")) continue
        keyHeader = header
        const rest = yield* run(s, named(refused.slice(1).map((r) => r.pipeline)))
        units += [...again, ...rest].reduce((n, r) => n + r.units, 0)
        const redone = new Map([...again, ...rest].map((r) => [r.pipeline, r] as const))
        results = results.map((r) => redone.get(r.pipeline) ?? r)
        break
      }
    }
    // a pipeline stopped on a shape it now knows (a fragment setting) is probed again with it: its
    // first answer is reused from the archive at 0 units, and the call after it is seen too
    const rowsOfAll = (rs: ReadonlyArray<PipelineProbe>, s: Settings) =>
      rs.flatMap((r) => rowsOf(r, targets.find((t) => t.pipeline.name === r.pipeline)!.pipeline, s))
    let extra: Array<Row> = []
    for (let round = 0; round < ROUNDS; round++) {
      const shaped = results.filter((r) => r.errorTag === "UnexpectedShape")
      const fragment = fragmentOf(merged([...rowsOfAll(results, settings), ...extra]))
      if (shaped.length === 0 || Object.keys(fragment).length === 0) break
      const fitted = withSettings(settings, fragment)
      const again = yield* run(
        keyHeader === undefined ? fitted : { ...fitted, service: { ...fitted.service, apiKeyHeader: keyHeader } },
        targets.filter((t) => shaped.some((r) => r.pipeline === t.pipeline.name))
      )
      units += again.reduce((n, r) => n + r.units, 0)
      if (again.every((r, i) => r.errorTag === "UnexpectedShape" && r.error === shaped[i]?.error)) break
      // rows seen under the fitted settings, judged against the assumed ones
      extra = [...extra, ...rowsOfAll(again, settings)]
      const redone = new Map(again.map((r) => [r.pipeline, r] as const))
      results = results.map((r) => redone.get(r.pipeline) ?? r)
    }
    const keyRow: ReadonlyArray<Row> =
      keyHeader === undefined
        ? []
        : [
            {
              assumption: "API key header",
              assumed: "Authorization: Bearer",
              observed: `refused as Bearer, accepted in ${keyHeader}`,
              verdict: "differs",
              setting: { path: ["service", "apiKeyHeader"], value: keyHeader }
            }
          ]
    const rows = merged([...rowsOfAll(results, settings), ...extra, ...keyRow, ...UNCHECKABLE])
    return {
      results,
      rows,
      fragment: fragmentOf(rows),
      units,
      refused: refused.length > 0 && keyHeader === undefined
    } satisfies ProbeReport
  })
