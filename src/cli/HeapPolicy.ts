/**
 * How far the installed CLI lets V8's heap grow between two full collections. The CLI's live
 * heap during a run is small (about 45-50 MB on the 207,071-property sourcing run), but every
 * page's rows wait for their group commit long enough to reach V8's old space; with its own
 * heuristics V8 then let the old space grow to four times the live heap before collecting it
 * (measured: 180-230 MB of heap at the peak, most of it garbage). Capping the growth factor at
 * 1.5 keeps the heap near 100 MB for a few more full collections (measured: peak RSS 90 MB lower,
 * CPU within the noise of the machine; docs/BENCHMARKS.md).
 *
 * It is a growth factor, not a cap: a command that needs a large heap (an export, a big query)
 * still gets it. Set only in the CLI's own process (`main.ts`), before any work; a library user's
 * process keeps its own settings.
 *
 * Override: `ESTATE_ETL_HEAP_GROWING_PERCENT=<n>` (0 or `off`: V8's own heuristics), or any
 * `--heap-growing-percent` / `--max-old-space-size` given to node (in its arguments or
 * `NODE_OPTIONS`): the user's own policy wins.
 */
import * as v8 from "node:v8"

/** Assumed (measured on this project's sourcing runs): the growth of the heap between full collections, in percent. */
export const DEFAULT_HEAP_GROWING_PERCENT = 50

const OWN_POLICY = /--(heap-growing-percent|max-old-space-size|max-heap-size)\b/

/** The percent to apply, or undefined to leave V8's heuristics alone. */
export const heapGrowingPercent = (env: NodeJS.ProcessEnv, execArgv: ReadonlyArray<string>): number | undefined => {
  if (OWN_POLICY.test(`${execArgv.join(" ")} ${env.NODE_OPTIONS ?? ""}`)) return undefined
  const raw = env.ESTATE_ETL_HEAP_GROWING_PERCENT?.trim()
  if (raw === undefined || raw === "") return DEFAULT_HEAP_GROWING_PERCENT
  if (raw === "off" || raw === "0") return undefined
  const n = Number(raw)
  return Number.isInteger(n) && n > 0 && n <= 1000 ? n : DEFAULT_HEAP_GROWING_PERCENT
}

/** Applies the policy to this process (V8 reads the flag at each full collection). */
export const applyHeapPolicy = (env: NodeJS.ProcessEnv = process.env, execArgv: ReadonlyArray<string> = process.execArgv) => {
  const percent = heapGrowingPercent(env, execArgv)
  if (percent !== undefined) v8.setFlagsFromString(`--heap-growing-percent=${percent}`)
  return percent
}
