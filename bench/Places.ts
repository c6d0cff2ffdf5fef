/**
 * Which sourcing places make a run of about N properties: countries of the sandbox world taken
 * smallest first (many similar slices keep the run's concurrency busy) until their matching
 * properties reach N. Counts come from the sandbox's ground truth, so the figures are exact.
 */
import type { SandboxProc } from "./Procs.js"
import type { Place } from "./Floor.js"

/** Countries the sandbox serves (docs/ASSUMPTIONS.md). */
export const COUNTRIES = ["ES", "PT", "FR", "IT", "DE", "GR", "AD", "GB", "NL", "BE", "AT", "CH", "IE", "PL", "HR", "CY"] as const

export interface PlaceSet {
  readonly places: ReadonlyArray<Place & { readonly count: number }>
  /** Matching properties over all places. */
  readonly total: number
}

const truth = (sandbox: SandboxProc, filter: Record<string, unknown>) =>
  sandbox.control<{ count: number }>(`truth/properties?filter=${encodeURIComponent(JSON.stringify(filter))}`).then((r) => r.count)

/** Places of about `target` matching properties (at least `target` when the world allows). */
export const placesFor = async (sandbox: SandboxProc, target: number, operation = "sale"): Promise<PlaceSet> => {
  const counts = await Promise.all(COUNTRIES.map(async (country) => ({ country, count: await truth(sandbox, { country, operation }) })))
  const sorted = counts.filter((c) => c.count > 0).sort((a, b) => a.count - b.count)
  const places: Array<Place & { count: number }> = []
  let total = 0
  for (const c of sorted) {
    if (total >= target) break
    places.push(c)
    total += c.count
  }
  return { places, total }
}

/** Pages a cursor walk strictly needs: one per `pageSize` matches (at least one per place). */
export const pagesNeeded = (set: PlaceSet, pageSize: number): number =>
  set.places.reduce((s, p) => s + Math.max(1, Math.ceil(p.count / pageSize)), 0)
