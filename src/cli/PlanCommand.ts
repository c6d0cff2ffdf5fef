/** `plan`: requests, pages, units and EUR a run would take; nothing paid is called. */
import {
  configOption as config,
  warehouseOption as warehouse,
  namesArg as names,
  paramsOption as params,
  jsonOption as json,
  withSettings,
  either
} from "./CommonOptions.js"
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { durationMs } from "../config/Settings.js"
import { Warehouse } from "../load/Warehouse.js"
import { resolveParams } from "../pipeline/Params.js"
import { type Plan, planPipeline, resumePlan } from "../pipeline/Planner.js"
import { unfinishedRunOf } from "../pipeline/run/Start.js"
import { planRefresh, refreshLine } from "../pipeline/RefreshPlan.js"
import { Progress } from "../pipeline/Progress.js"
import { makeRegistry } from "../pipeline/Registry.js"
import { makeEnvironment } from "../wiring/Environment.js"
import { makeMissingKeyTables, planNote } from "./KeyTables.js"
import { planWarehousePath } from "./WarehouseAccess.js"
import { eur, table } from "./Format.js"
import { lockWait, lockWaitOption, parseLockWait } from "./LockWait.js"
import { eurOf } from "../service/CostGuard.js"

const fullRefresh = Options.boolean("full-refresh").pipe(
  Options.withDescription("Plan the runs as `run --full-refresh` makes them: incremental reads in full (the weekly pull)")
)

/**
 * A plan as `run --full-refresh` would read: an incremental read's full pull (`fullUnits`, the
 * planner's own figure), its requests and pages in proportion to the units.
 */
const asFullPull = (p: Plan): Plan => {
  if (p.fullUnits === p.units) return p
  const requests = p.unitsPerRequest > 0 ? Math.round(p.fullUnits / p.unitsPerRequest) : p.requests
  return {
    ...p,
    units: p.fullUnits,
    eur: eurOf(p.fullUnits),
    requests,
    pages: Math.max(p.pages, requests),
    exact: false,
    note: `read in full (--full-refresh)${p.note ? `; ${p.note}` : ""}`
  }
}

export const planCommand = Command.make("plan", { config, warehouse, names, params, json, fullRefresh, lockWait: lockWaitOption }, (o) =>
  withSettings(o.config, (settings, catalogue) => {
    // never creates the warehouse: read-only when it exists, else keys from tables are "0 yet"
    const target = planWarehousePath(Option.getOrElse(o.warehouse, () => settings.warehouse))
    const lock = (waitMs: number) => (target.readOnly ? lockWait(target.path, waitMs) : {})
    const missingKeys = makeMissingKeyTables()
    return Effect.gen(function* () {
      const registry = makeRegistry(catalogue.all, settings)
      const pipelines = yield* either(registry.resolve(o.names))
      const plans: Array<Plan & { readonly keysPending?: boolean }> = []
      const observed = yield* Effect.flatMap(Warehouse, (w) => w.observedCosts())
      for (const p of pipelines) {
        const ps = yield* either(resolveParams(p, settings.pipelines[p.name]?.params ?? {}, o.params))
        missingKeys.take()
        const asPlanned = yield* planPipeline(p, ps, settings.budget.costs, observed)
        // a run left unfinished is what the next run does: it resumes (unless --full-refresh)
        const unfinished = o.fullRefresh ? Option.none() : yield* unfinishedRunOf(p.name)
        const planned = o.fullRefresh
          ? asFullPull(asPlanned)
          : Option.isSome(unfinished)
            ? resumePlan(asPlanned, unfinished.value.runId, yield* Effect.flatMap(Warehouse, (w) => w.slices(unfinished.value.runId)))
            : asPlanned
        const missing = missingKeys.take()
        const earlier = plans.map((q) => q.pipeline)
        plans.push(
          missing.length === 0
            ? planned
            : {
                ...planned,
                keysPending: true,
                note: [...missing.map((m) => planNote(m, earlier, catalogue.all)), ...(planned.note ? [planned.note] : [])].join("; ")
              }
        )
      }
      const total = plans.reduce((s, p) => s + p.units, 0)
      const pending = plans.filter((p) => p.keysPending).map((p) => p.pipeline)
      // a full pull saves nothing against itself: the refresh line is the night's
      const refresh = o.fullRefresh ? undefined : yield* planRefresh(plans, { registry, settings, observed })
      // what a rerun reads from the raw archive instead of buying again (`budget.reuseWithin`)
      const within = durationMs(settings.budget.reuseWithin)
      const answers =
        within > 0 ? yield* Effect.flatMap(Warehouse, (w) => w.reusableAnswers(new Date(Date.now() - within).toISOString())) : []
      const reuse = plans.flatMap((p) => {
        const mine = new Map(answers.filter((a) => a.pipeline === p.pipeline).map((a) => [`${a.operation}\u0000${a.key}`, a.units]))
        const units = [...mine.values()].reduce((s, u) => s + u, 0)
        return mine.size > 0 ? [{ pipeline: p.pipeline, answers: mine.size, units }] : []
      })
      if (o.json) process.stdout.write(JSON.stringify({ plans, units: total, eur: eurOf(total), refresh, reuse }, null, 2) + "\n")
      else {
        process.stdout.write(
          table(
            plans.map((p) => ({
              pipeline: p.pipeline,
              slices: p.slices,
              requests: p.requests,
              pages: p.pages,
              units: p.units,
              eur: eur(p.units),
              "units/call": p.costSource === "unmetered" ? "" : `${p.unitsPerRequest} ${p.costSource}`,
              exact: p.keysPending ? "keys pending" : p.exact ? "yes" : "estimate",
              note: p.note ?? ""
            }))
          ) +
            `\ntotal: ${total} units (${eur(total)}), cap ${settings.budget.maxUnits}` +
            (pending.length > 0 ? `; not counted: ${pending.join(", ")} (keys known after an earlier pipeline runs)` : "") +
            "\n" +
            (refresh ? `${refreshLine(refresh)}\n` : "") +
            reuse
              .map(
                (r) =>
                  `reuse: ${r.pipeline}: ${r.answers} answer(s) bought within budget.reuseWithin (${settings.budget.reuseWithin}), ${r.units} units, are read from the raw archive at 0 units when a run asks the same again (--fresh buys them again)\n`
              )
              .join("") +
            plans.flatMap((p) => (p.costWarning ? [`warning: ${p.pipeline}: ${p.costWarning}\n`] : [])).join("")
        )
      }
    }).pipe((planned) =>
      Effect.flatMap(parseLockWait(o.lockWait), (waitMs) =>
        Effect.provide(
          planned,
          makeEnvironment({
            settings,
            progress: Progress.Silent,
            warehouse: target.path,
            readOnly: target.readOnly,
            onMissingKeyTable: missingKeys.record,
            lock: lock(waitMs)
          })
        )
      )
    )
  })
).pipe(
  Command.withDescription(
    "Print requests, pages and units/EUR a run expects, calling nothing paid and writing nothing (a source whose keys come from a table an earlier pipeline writes counts 0 keys until then, and says so; --full-refresh plans incremental reads in full, as the weekly pull). Examples: estate-etl plan nightly; estate-etl plan weekly --full-refresh"
  )
)
