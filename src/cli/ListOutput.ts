/**
 * What `list` prints, for the `list` command and the cold start's fast path (`FastPath.ts`) alike:
 * the pipelines of the catalogue with their unit cost under these settings, and the sets, as JSON
 * or as text (`ListText.ts`).
 */
import { Effect, Exit, Option } from "effect"
import { loadDotEnv } from "../config/DotEnv.js"
import type { Settings } from "../config/Settings.js"
import { type Catalogue, loadCliSettingsAndCatalogue, originOf } from "../pipeline/Catalogue.js"
import { unitCost } from "../pipeline/Planner.js"
import { listText } from "./ListText.js"

export const listOutput = (
  settings: Settings,
  catalogue: Catalogue,
  options: { readonly json: boolean; readonly wide: boolean }
): string => {
  const rows = catalogue.all.map((p) => ({
    pipeline: p.name,
    host: p.host,
    operation: p.cost.operation,
    units_per_call: unitCost(p, settings.budget.costs),
    tables: p.tables.map((t) => t.name).join(", "),
    description: p.description,
    from: originOf(catalogue, p.name)
  }))
  if (options.json) return JSON.stringify({ pipelines: rows, sets: settings.sets }, null, 2) + "\n"
  return listText(rows, settings.sets, options.wide)
}

/** `list`'s output with the settings of `config` (and `.env`), or `undefined` when they do not load. */
export const listOutputOrUndefined = async (
  config: string | undefined,
  options: { readonly json: boolean; readonly wide: boolean }
): Promise<string | undefined> => {
  const before = new Set(Object.keys(process.env))
  const exit = await Effect.runPromiseExit(
    Effect.zipRight(loadDotEnv(), loadCliSettingsAndCatalogue(Option.fromNullable(config))).pipe(
      Effect.map((loaded) => listOutput(loaded.settings, loaded.catalogue, options))
    )
  )
  if (Exit.isSuccess(exit)) return exit.value
  // the full command line reads `.env` again and reports the failure as it does
  for (const name of Object.keys(process.env)) if (!before.has(name)) delete process.env[name]
  return undefined
}
