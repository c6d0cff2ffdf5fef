/**
 * What `list` prints, for the `list` command and the cold start's fast path (`ListSnapshot.ts`)
 * alike: the pipelines with their unit cost under these settings, and the sets, as JSON or as
 * text (`ListText.ts`). It reads pipelines as `ListEntry`s, the few fields `list` shows, so the fast
 * path can print them from the build's snapshot without importing the pipelines.
 */
import type { Settings } from "../config/Settings.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { unitCost } from "../pipeline/Planner.js"
import { listText } from "./ListText.js"

/** What `list` shows of a pipeline. `from`: `built-in`, or the module that declares it. */
export interface ListEntry {
  readonly name: string
  readonly host: string
  readonly operation: string
  readonly tables: ReadonlyArray<string>
  readonly description: string
  readonly from: string
}

export const listEntryOf = (p: Pipeline, from: string): ListEntry => ({
  name: p.name,
  host: p.host,
  operation: p.cost.operation,
  tables: p.tables.map((t) => t.name),
  description: p.description,
  from
})

export const listOutput = (
  settings: Settings,
  entries: ReadonlyArray<ListEntry>,
  options: { readonly json: boolean; readonly wide: boolean }
): string => {
  const rows = entries.map((p) => ({
    pipeline: p.name,
    host: p.host,
    operation: p.operation,
    units_per_call: unitCost(p.host, p.operation, settings.budget.costs),
    tables: p.tables.join(", "),
    description: p.description,
    from: p.from
  }))
  if (options.json) return JSON.stringify({ pipelines: rows, sets: settings.sets }, null, 2) + "\n"
  return listText(rows, settings.sets, options.wide)
}
