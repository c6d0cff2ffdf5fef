/**
 * `probe [pipeline-or-set...]`: first contact with the service the settings point at. One call a
 * pipeline (the first request its first slice sends, and one more when the answer carries a next
 * link), free token-host calls always, paid ones within `--max-units` (default 10): it prints
 * what it will spend first, and asks on a terminal (`--yes`, or no terminal: the cap is the
 * consent). Then a table of every assumption it could check against what came back, and the
 * settings that make the toolkit fit, written with `--write` as a fragment `--config` merges.
 * Its paid answers are archived, so the first nightly reuses them instead of buying them again.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as readline from "node:readline/promises"
import type { Settings } from "../config/Settings.js"
import { settingsFile } from "../config/loadSettings.js"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { resolveParams } from "../pipeline/Params.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { Progress } from "../pipeline/Progress.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { chooseTargets, probeService } from "../probe/ProbeService.js"
import { makeEnvironment } from "../wiring/Environment.js"
import { endWith } from "./CommandEnded.js"
import { configOption } from "./CommonOptions.js"
import { table } from "./Format.js"
import { parseUnits } from "./Preflight.js"

const names = Args.text({ name: "pipeline-or-set" }).pipe(Args.repeated)
const maxUnits = Options.text("max-units").pipe(
  Options.withDefault("10"),
  Options.withDescription("Units the probe may spend, a whole number >= 0 (default 10; premises search costs 40)")
)
const write = Options.text("write").pipe(
  Options.optional,
  Options.withDescription("Write the settings it found as a file your settings can include")
)
const force = Options.boolean("force").pipe(Options.withDescription("Replace the --write file if it exists"))
const yes = Options.boolean("yes").pipe(Options.withDescription("Spend without asking (without a terminal the cap is the consent)"))
const fresh = Options.boolean("fresh").pipe(Options.withDescription("Ask the service again instead of reusing answers bought lately"))
const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of tables"))

/** Pipelines to probe: the names given, else every pipeline of the settings' sets. */
const targetsOf = (settings: Settings, all: ReadonlyArray<Pipeline>, requested: ReadonlyArray<string>) => {
  const registry = makeRegistry(all, settings)
  const wanted = requested.length > 0 ? requested : [...new Set(Object.values(settings.sets).flat())]
  return Either.flatMap(registry.resolve(wanted.length > 0 ? wanted : all.map((p) => p.name)), (pipelines) =>
    Either.all(
      pipelines.map((pipeline) =>
        Either.map(resolveParams(pipeline, settings.pipelines[pipeline.name]?.params ?? {}, []), (params) => ({ pipeline, params }))
      )
    )
  )
}

/** Whether to spend: yes without a terminal (the cap is the consent), or when told so. */
const consent = (units: number, cap: number, assumeYes: boolean) =>
  Effect.promise(async () => {
    if (units === 0 || assumeYes || !process.stdin.isTTY) return true
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    const answer = await rl.question(`spend up to ${units} units (cap ${cap})? [y/N] `)
    rl.close()
    return /^y(es)?$/i.test(answer.trim())
  })

export const probeCommand = Command.make("probe", { config: configOption, names, maxUnits, write, force, yes, fresh, json }, (o) =>
  Effect.gen(function* () {
    const { settings, catalogue } = yield* loadCliSettingsAndCatalogue(o.config)
    const settingsPath = Option.getOrUndefined(o.config) ?? settingsFile(undefined)
    const cap = yield* parseUnits(o.maxUnits)
    const targets = yield* Either.match(targetsOf(settings, catalogue.all, o.names), { onLeft: Effect.fail, onRight: Effect.succeed })
    const out = Option.map(o.write, (p) => nodePath.resolve(p))
    if (Option.isSome(out) && fs.existsSync(out.value) && !o.force) {
      return yield* new InvalidInput({ field: "--write", detail: `${out.value} exists; choose another file or pass --force to replace it` })
    }
    const { chosen, skipped, units: planned } = chooseTargets(targets, settings, cap)
    const where = settings.service.target === "sandbox" ? "the embedded sandbox" : (settings.service.platformUrl ?? "the service")
    process.stderr.write(
      `probe: ${chosen.length} pipeline(s) against ${where}, about ${planned} unit(s) (up to ${cap})${skipped.length > 0 ? `; not probed within the cap: ${skipped.map((s) => `${s.pipeline} (${s.units} units a call)`).join(", ")}` : ""}\n`
    )
    if (!(yield* consent(planned, cap, o.yes)))
      return yield* new InvalidInput({ field: "probe", detail: "not confirmed; nothing was sent" })
    const { results, rows, fragment, refused } = yield* probeService(settings, chosen, {
      fresh: o.fresh,
      env: (s) => makeEnvironment({ settings: s, maxUnits: cap, progress: Progress.Silent })
    })
    const units = results.reduce((s, r) => s + r.units, 0)
    if (Option.isSome(out)) {
      fs.mkdirSync(nodePath.dirname(out.value), { recursive: true })
      fs.writeFileSync(out.value, JSON.stringify(fragment, null, 2) + "\n")
    }
    if (o.json) {
      process.stdout.write(
        JSON.stringify({ units, results: results.map(({ exchanges: _e, pages: _p, ...r }) => r), rows, fragment }, null, 2) + "\n"
      )
    } else {
      process.stdout.write(
        table(
          results.map((r) => ({
            pipeline: r.pipeline,
            calls: r.exchanges.length,
            units: r.units,
            answer: r.reused ? "reused from the archive (0 units)" : (r.error ?? "read")
          }))
        ) + "\n\n"
      )
      process.stdout.write(
        table(rows.map((r) => ({ assumption: r.assumption, assumed: r.assumed, observed: r.observed, verdict: r.verdict }))) + "\n"
      )
      const differs = rows.filter((r) => r.verdict === "differs").length
      process.stdout.write(
        `\n${differs} difference(s); ${units} unit(s) spent, the paid answers archived for the first run to reuse.\n` +
          (Object.keys(fragment).length === 0
            ? "no settings to change.\n"
            : Option.isSome(out)
              ? `settings that fit what was seen: ${out.value}; merge it with "include": [${JSON.stringify(nodePath.relative(nodePath.dirname(nodePath.resolve(settingsPath ?? "estate-etl.json")), out.value))}] in ${settingsPath ?? "your settings file"}\n`
              : `settings that fit what was seen (write them with --write config/probed.json):\n${JSON.stringify(fragment, null, 2)}\n`)
      )
    }
    // a key refused in every way tried is an authentication failure (5); differences stop nothing here
    yield* endWith(refused ? 5 : 0)
  })
).pipe(
  Command.withDescription(
    "Check every assumption against the service before the first nightly: one call a pipeline (paid ones within --max-units), a table of assumed against observed, the settings that fit. Example: estate-etl probe --max-units 10 --write config/probed.json"
  )
)
