/**
 * How far the installed CLI lets V8's heap grow. Two knobs, each measured on the 207,071-property
 * sourcing run (docs/BENCHMARKS.md):
 *
 * - **Old space: 1.5x between full collections** (`--heap-growing-percent=50`). The live heap of a
 *   run is small (45-50 MB), but every page's rows wait for their group commit long enough to
 *   reach the old space; with its own heuristics V8 let it grow to four times the live heap before
 *   collecting it. Capped: peak RSS about 90 MB lower, CPU within the noise.
 * - **Young generation: semi-spaces of at most 4 MB.** V8 grows each semi-space to 16 MB while
 *   modules load and pages arrive. Node's `--max-semi-space-size` can only be given at start, so
 *   the CLI holds them with the flag V8 reads at each scavenge (`--semi-space-growth-factor`): 1
 *   (no growth) while the command line loads, then 2 while they are below the cap and 1 once they
 *   reach it (`holdYoungGeneration`). Measured: at 4 MB peak RSS about 25 MB lower, CPU within
 *   the noise of alternated runs (0-5%); held at the start size (1 MB) the same RSS cost about 10%
 *   more CPU (more scavenges).
 *
 * Neither caps the heap: the old space still grows as far as a command needs (an export, a big
 * query); only the young generation, where objects die young, stays small. Set only in the CLI's
 * own process (`main.ts`), before the command line loads; a library user's process keeps its own
 * settings.
 *
 * Overrides: `ESTATE_ETL_HEAP_GROWING_PERCENT=<n>` and `ESTATE_ETL_SEMI_SPACE_MB=<n>`
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
/** Assumed (measured on this project's sourcing runs): the most each semi-space may grow to, in MB. */
export const DEFAULT_SEMI_SPACE_MB = 4

const OLD_SPACE: Knob = {
  flag: "--heap-growing-percent",
  env: "ESTATE_ETL_HEAP_GROWING_PERCENT",
  fallback: DEFAULT_HEAP_GROWING_PERCENT,
  max: 1000,
  own: /--(heap-growing-percent|max-old-space-size|max-heap-size)\b/
}

const YOUNG_GENERATION: Knob = {
  flag: "--semi-space-growth-factor",
  env: "ESTATE_ETL_SEMI_SPACE_MB",
  fallback: DEFAULT_SEMI_SPACE_MB,
  max: 64,
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

/** The most each semi-space may grow to, in MB, or undefined to leave V8's heuristics alone. */
export const semiSpaceMb = (env: NodeJS.ProcessEnv, execArgv: ReadonlyArray<string>) => valueOf(YOUNG_GENERATION, env, execArgv)

const growth = (factor: 1 | 2) => v8.setFlagsFromString(`${YOUNG_GENERATION.flag}=${factor}`)

/** One semi-space's size now (V8 counts both in the new space). */
export const semiSpaceBytes = () => (v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0) / 2

/**
 * Applies the policy to this process, before the command line loads: the old space's growth, and
 * semi-spaces that do not grow until `holdYoungGeneration` runs. Returns what it set.
 */
export const applyHeapPolicy = (env: NodeJS.ProcessEnv = process.env, execArgv: ReadonlyArray<string> = process.execArgv) => {
  const percent = heapGrowingPercent(env, execArgv)
  if (percent !== undefined) v8.setFlagsFromString(`${OLD_SPACE.flag}=${percent}`)
  const semiMb = semiSpaceMb(env, execArgv)
  if (semiMb !== undefined) growth(1)
  return { percent, semiMb }
}

/**
 * Lets the semi-spaces grow to `mb` and holds them there for the life of the process: while they
 * are smaller it lets V8 double them, checking every `everyMs`; once they are not it stops that and
 * checks every `heldEveryMs` (a server idling all night wakes once a second for it). The timers keep
 * nothing alive. V8 grows them only after a scavenge, by doubling, so they end at the first power
 * of two from 1 MB that reaches `mb` (one doubling more if a check comes late).
 */
export const holdYoungGeneration = (mb: number, everyMs = 20, heldEveryMs = 1_000) => {
  let factor: 1 | 2 = 1
  const check = () => {
    const want = semiSpaceBytes() < mb * 2 ** 20 ? 2 : 1
    if (want !== factor) growth((factor = want))
    setTimeout(check, factor === 2 ? everyMs : heldEveryMs).unref()
  }
  check()
}
