/**
 * How far the installed CLI lets V8's heap grow. Two knobs, each measured on the 207,071-property
 * sourcing run (docs/BENCHMARKS.md):
 *
 * - **Old space: 1.5x between full collections** (`--heap-growing-percent=50`). The live heap of a
 *   run is small (45-50 MB), but every page's rows wait for their group commit long enough to
 *   reach the old space; with its own heuristics V8 let it grow to four times the live heap before
 *   collecting it. Capped: peak RSS about 90 MB lower, CPU within the noise.
 * - **Young generation: no growth** (`--semi-space-growth-factor=1`). V8 grows each semi-space to
 *   16 MB while modules load and pages arrive; kept at its start size, peak RSS measured about
 *   25 MB lower for about 5% more CPU (more, smaller scavenges).
 *
 * Both are growth factors, not caps: a command that needs a large heap (an export, a big query)
 * still gets it. Set only in the CLI's own process (`main.ts`), before the command line loads; a
 * library user's process keeps its own settings.
 *
 * Overrides: `ESTATE_ETL_HEAP_GROWING_PERCENT=<n>` and `ESTATE_ETL_SEMI_SPACE_GROWTH_FACTOR=<n>`
 * (0 or `off`: V8's own heuristics), and node's own flags for the same space (in its arguments or
 * `NODE_OPTIONS`) win.
 */
import * as v8 from "node:v8"

interface Knob {
  readonly flag: string
  readonly env: string
  readonly fallback: number
  readonly max: number
  /** node flags with which the user sets this space themselves. */
  readonly own: RegExp
}

/** Assumed (measured on this project's sourcing runs): the old space's growth between full collections, in percent. */
export const DEFAULT_HEAP_GROWING_PERCENT = 50
/** Assumed (measured on this project's sourcing runs): the semi-spaces keep the size they start with. */
export const DEFAULT_SEMI_SPACE_GROWTH_FACTOR = 1

const OLD_SPACE: Knob = {
  flag: "--heap-growing-percent",
  env: "ESTATE_ETL_HEAP_GROWING_PERCENT",
  fallback: DEFAULT_HEAP_GROWING_PERCENT,
  max: 1000,
  own: /--(heap-growing-percent|max-old-space-size|max-heap-size)\b/
}

const YOUNG_GENERATION: Knob = {
  flag: "--semi-space-growth-factor",
  env: "ESTATE_ETL_SEMI_SPACE_GROWTH_FACTOR",
  fallback: DEFAULT_SEMI_SPACE_GROWTH_FACTOR,
  max: 16,
  own: /--(semi-space-growth-factor|max-semi-space-size|min-semi-space-size|max-heap-size)\b/
}

/** The knob's value to apply, or undefined to leave V8's heuristics alone. */
const valueOf = (knob: Knob, env: NodeJS.ProcessEnv, execArgv: ReadonlyArray<string>): number | undefined => {
  if (knob.own.test(`${execArgv.join(" ")} ${env.NODE_OPTIONS ?? ""}`)) return undefined
  const raw = env[knob.env]?.trim()
  if (raw === undefined || raw === "") return knob.fallback
  if (raw === "off" || raw === "0") return undefined
  const n = Number(raw)
  // not a whole number in range: the default, not a flag V8 would refuse (or crash on)
  return Number.isInteger(n) && n > 0 && n <= knob.max ? n : knob.fallback
}

/** The old space's growth percent to apply, or undefined to leave V8's heuristics alone. */
export const heapGrowingPercent = (env: NodeJS.ProcessEnv, execArgv: ReadonlyArray<string>) => valueOf(OLD_SPACE, env, execArgv)

/** The semi-spaces' growth factor to apply, or undefined to leave V8's heuristics alone. */
export const semiSpaceGrowthFactor = (env: NodeJS.ProcessEnv, execArgv: ReadonlyArray<string>) => valueOf(YOUNG_GENERATION, env, execArgv)

/** The V8 flags the policy sets for this environment and node's arguments. */
export const heapFlags = (env: NodeJS.ProcessEnv, execArgv: ReadonlyArray<string>): ReadonlyArray<string> =>
  [OLD_SPACE, YOUNG_GENERATION].flatMap((knob) => {
    const value = valueOf(knob, env, execArgv)
    return value === undefined ? [] : [`${knob.flag}=${value}`]
  })

/** Applies the policy to this process (V8 reads these flags at each collection); returns the flags set. */
export const applyHeapPolicy = (env: NodeJS.ProcessEnv = process.env, execArgv: ReadonlyArray<string> = process.execArgv) => {
  const flags = heapFlags(env, execArgv)
  for (const flag of flags) v8.setFlagsFromString(flag)
  return flags
}
