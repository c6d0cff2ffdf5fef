/**
 * 2. Memory: peak RSS of a whole sourcing-search run, one fresh process per size, so the figure
 * holds nothing but that run (the runtime, the toolkit, DuckDB and the pages in flight).
 * Streaming means the figure must not grow with the number of properties.
 */
import * as path from "node:path"
import type { PlaceSet } from "./Places.js"
import { runOnce, type SandboxProc } from "./Procs.js"
import { fmt, type Line } from "./Report.js"
import type { RunOnceOutput } from "./runOnce.js"

/**
 * The lean profile: what a memory-bound nightly job sets. V8's old space capped at 96 MB and its
 * young generation at 4 MB semi-spaces (the run streams: its live heap stays under 90 MB, of
 * which ~57 MB is the loaded code; the rest of an uncapped heap is garbage V8 has not collected
 * yet), DuckDB's `memory_limit` at 64 MB (setting `duckdb.memoryLimit`; it writes to its file
 * sooner; at 32 MB its checkpoint failed with "failed to pin block", measured 2026-11-23), and two malloc arenas instead of one per thread (glibc). It costs about a fifth of the
 * throughput (more collections, smaller DuckDB cache).
 */
export const LEAN = {
  label: "lean: --max-old-space-size=96 --max-semi-space-size=4, duckdb.memoryLimit 64MB, MALLOC_ARENA_MAX=2",
  nodeArgs: ["--max-old-space-size=96", "--max-semi-space-size=4"],
  env: { MALLOC_ARENA_MAX: "2" },
  duckdbMemory: "64MB"
} as const

/** Runs sourcing-search over `set` in a fresh process (its peak RSS is the figure). */
export const sourcingRun = (sandbox: SandboxProc, set: PlaceSet, warehouse: string, lean = false): Promise<RunOnceOutput> =>
  runOnce(
    {
      platformUrl: sandbox.platformUrl,
      apiUrl: sandbox.apiUrl,
      warehouse,
      pipeline: "sourcing-search",
      params: { places: set.places.map(({ country }) => ({ country })), operation: "sale", pageSize: 200 },
      ...(lean ? { duckdbMemory: LEAN.duckdbMemory } : {})
    },
    lean ? LEAN.nodeArgs : [],
    lean ? LEAN.env : {}
  )

/** Lines comparing the small and the large run's peak RSS (`profile` names the settings). */
export const memoryLines = (
  small: { set: PlaceSet; run: RunOnceOutput },
  large: { set: PlaceSet; run: RunOnceOutput },
  profile: string
): ReadonlyArray<Line> => {
  const growth = large.run.peakRssMb / small.run.peakRssMb
  return [
    {
      group: "memory",
      measure: `${profile}: peak RSS, ${fmt(small.set.total)} properties`,
      value: `${fmt(small.run.peakRssMb)} MB`,
      baseline: `JS heap ${fmt(small.run.peakHeapMb)} MB`,
      ratio: undefined,
      target: "",
      met: undefined
    },
    {
      group: "memory",
      measure: `${profile}: peak RSS, ${fmt(large.set.total)} properties`,
      value: `${fmt(large.run.peakRssMb)} MB`,
      baseline: `JS heap ${fmt(large.run.peakHeapMb)} MB`,
      ratio: undefined,
      target: "<= 300 MB",
      met: large.run.peakRssMb <= 300
    },
    {
      group: "memory",
      measure: `${profile}: peak RSS growth ${fmt(small.set.total)} -> ${fmt(large.set.total)}`,
      value: `+${fmt((growth - 1) * 100, 1)}%`,
      baseline: `${fmt(small.run.peakRssMb)} MB`,
      ratio: growth,
      target: "<= 1.15",
      met: growth <= 1.15
    }
  ]
}

export const warehouseIn = (dir: string, name: string) => path.join(dir, `${name}.duckdb`)
