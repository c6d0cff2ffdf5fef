/**
 * 3. Rate-limit use: the sandbox enforces a policy of `quota` requests per second on the
 * platform host; a sourcing-search run's achieved request rate over that policy, and the share
 * of its requests answered 429. The sandbox's own counters are the ground truth.
 */
import * as path from "node:path"
import type { PlaceSet } from "./Places.js"
import { runOnce, type SandboxProc } from "./Procs.js"
import { fmt, type Line } from "./Report.js"

interface Stats {
  readonly statuses: Record<string, number>
  readonly unitsSpent: Record<string, number>
}

export const sumOf = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0)

export const rateLimitUse = async (
  sandbox: SandboxProc,
  set: PlaceSet,
  dir: string,
  options: { quota: number; pages: number }
): Promise<ReadonlyArray<Line>> => {
  const places = set.places.map(({ country }) => ({ country }))
  const maxPages = Math.max(1, Math.ceil(options.pages / places.length))
  await sandbox.control("rate-limit", { host: "platform", quota: options.quota, windowSeconds: 1 })
  try {
    const before = await sandbox.control<Stats>("stats")
    const run = await runOnce({
      platformUrl: sandbox.platformUrl,
      apiUrl: sandbox.apiUrl,
      warehouse: path.join(dir, "rate.duckdb"),
      pipeline: "sourcing-search",
      params: { places, operation: "sale", pageSize: 200, maxPages, concurrency: 4 }
    })
    const after = await sandbox.control<Stats>("stats")
    const sent = sumOf(after.statuses) - sumOf(before.statuses)
    const limited = (after.statuses["429"] ?? 0) - (before.statuses["429"] ?? 0)
    const accepted = sent - limited
    const rate = accepted / (run.elapsedMs / 1000)
    const use = rate / options.quota
    return [
      {
        group: "rate limit",
        measure: `sourcing-search ${fmt(accepted)} pages at a policy of ${options.quota}/s: achieved rate / policy`,
        value: `${fmt(rate, 1)} requests/s`,
        baseline: `policy ${options.quota}/s`,
        ratio: use,
        target: ">= 0.95",
        met: use >= 0.95
      },
      {
        group: "rate limit",
        measure: "share of requests answered 429",
        value: `${fmt(limited)} of ${fmt(sent)}`,
        baseline: "",
        ratio: sent > 0 ? limited / sent : 0,
        target: "<= 0.01",
        met: sent > 0 && limited / sent <= 0.01
      }
    ]
  } finally {
    await sandbox.control("rate-limit", { host: "platform", quota: 0, windowSeconds: 1 })
  }
}
