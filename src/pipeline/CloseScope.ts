/**
 * The scope a run's history keys belong to (`load/HistoryClosing.ts`): the pipeline's parameters
 * as saved (encoded), without those that change how pages are read but not which records a slice
 * lists (page size, concurrency, page caps, incremental knobs), nor those the pipeline names as
 * choosing its slices (`Pipeline.scopeIgnores`: each slice's key says it already). A full pull
 * closes only records its own scope's slices listed: a run with other criteria (other regions,
 * another price band) never closes what this one found.
 */
import { canonicalJson } from "../shared/ExactJson.js"
import type { Pipeline } from "./Pipeline.js"

/** Parameters that change how a slice is read, never which records it lists. */
export const PAGING_PARAMS: ReadonlySet<string> = new Set([
  "pageSize",
  "concurrency",
  "maxPages",
  "knownPagesTolerated",
  "sinceOverlapDays",
  "since"
])

/** The scope of a run of `pipeline` with these encoded (saved) parameters. */
export const scopeOf = (pipeline: Pick<Pipeline, "name" | "scopeIgnores">, encoded: unknown): string => {
  const ignored = new Set(pipeline.scopeIgnores ?? [])
  const params =
    typeof encoded === "object" && encoded !== null && !Array.isArray(encoded)
      ? Object.fromEntries(Object.entries(encoded).filter(([k]) => !PAGING_PARAMS.has(k) && !ignored.has(k)))
      : encoded
  return canonicalJson(params ?? null)
}
