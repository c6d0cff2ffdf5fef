/**
 * Rate-limit use: the sandbox enforces a policy of `quota` requests per second on the platform
 * host; a sourcing-search run's achieved request rate over that policy, and the share of its
 * requests answered 429. The sandbox's own counters are the ground truth.
 *
 * Two rounds (issue 33): quiet (the machine as it is) and loaded, with two processes spinning a
 * core each beside the run and the sandbox, as when several nightly jobs share a host. The rate
 * is the sandbox's count of the requests it let through over the span from the first to the last
 * of them ("do requests leave on the policy's schedule"); the run timer's figure (login, plan and
 * the last commit included) is shown beside it. Each round also says where the gap to the policy
 * went, from the pacer (`Pacer.snapshot`): starts that left late though a request was waiting
 * (timer lateness) and slots that stood unused because no request was ready (too few in flight
 * for the latency, or fetching held back), and the mean exchange time.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import type { RateUse } from "../src/sandbox/RateLimits.js"
import type { PlaceSet } from "./Places.js"
import { runOnce, type SandboxProc } from "./Procs.js"
import { fmt, type Line } from "./Report.js"
import type { RunOnceOutput } from "./runOnce.js"

interface Stats {
  readonly statuses: Record<string, number>
  readonly unitsSpent: Record<string, number>
  readonly rateUse: { readonly platform: RateUse }
}

export const sumOf = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0)

/** `n` processes spinning a core each until stopped. */
const busy = (n: number): (() => void) => {
  const children: Array<ChildProcess> = Array.from({ length: n }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }))
  return () => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL")
  }
}

export interface RateRound {
  readonly label: string
  /** Processes spinning a core each beside the run. */
  readonly busy: number
  readonly quota: number
  readonly accepted: number
  readonly limited: number
  readonly sent: number
  /** Accepted requests over the span from the first to the last (the sandbox's clock), per second. */
  readonly spanRate: number
  /** Accepted requests over the run timer, per second. */
  readonly runRate: number
  readonly maxPerWindow: number
  readonly run: RunOnceOutput
}

const round = async (
  sandbox: SandboxProc,
  set: PlaceSet,
  dir: string,
  options: { quota: number; pages: number; busy: number; label: string; nodeArgs?: ReadonlyArray<string> | undefined }
): Promise<RateRound> => {
  const places = set.places.map(({ country }) => ({ country }))
  const maxPages = Math.max(1, Math.ceil(options.pages / places.length))
  // setting the policy starts the sandbox's count afresh
  await sandbox.control("rate-limit", { host: "platform", quota: options.quota, windowSeconds: 1 })
  const stop = busy(options.busy)
  try {
    const before = await sandbox.control<Stats>("stats")
    const run = await runOnce(
      {
        platformUrl: sandbox.platformUrl,
        apiUrl: sandbox.apiUrl,
        warehouse: path.join(dir, `rate-${options.label}-${options.busy}.duckdb`),
        pipeline: "sourcing-search",
        params: { places, operation: "sale", pageSize: 200, maxPages, concurrency: 4 }
      },
      options.nodeArgs
    )
    const after = await sandbox.control<Stats>("stats")
    const sent = sumOf(after.statuses) - sumOf(before.statuses)
    const limited = (after.statuses["429"] ?? 0) - (before.statuses["429"] ?? 0)
    const use = after.rateUse.platform
    const spanMs = (use.lastMs ?? 0) - (use.firstMs ?? 0)
    return {
      label: options.label,
      busy: options.busy,
      quota: options.quota,
      accepted: sent - limited,
      limited,
      sent,
      // n requests span n - 1 intervals
      spanRate: spanMs > 0 ? ((use.allowed - 1) * 1000) / spanMs : 0,
      runRate: ((sent - limited) * 1000) / run.elapsedMs,
      maxPerWindow: use.maxPerWindow,
      run
    }
  } finally {
    stop()
    await sandbox.control("rate-limit", { host: "platform", quota: 0, windowSeconds: 1 })
  }
}

/** The pacer's account of a round: where the time between starts went. */
export const pacingNote = (r: RateRound): string => {
  const p = r.run.platformPacing
  if (!p) return ""
  return `late ${fmt(p.lateMs)} ms, idle slots ${fmt(p.idleMs)} ms over ${fmt(p.taken)} starts; exchange ${fmt(p.exchangeMs / Math.max(1, p.exchanges), 1)} ms mean`
}

export const rateLimitRounds = async (
  sandbox: SandboxProc,
  set: PlaceSet,
  dir: string,
  options: { quota: number; pages: number; busy?: ReadonlyArray<number>; nodeArgs?: ReadonlyArray<string> },
  log: (s: string) => void = () => {}
): Promise<ReadonlyArray<RateRound>> => {
  const rounds: Array<RateRound> = []
  for (const n of options.busy ?? [0, 2]) {
    const label = n === 0 ? "quiet" : "loaded"
    const r = await round(sandbox, set, dir, { ...options, busy: n, label })
    log(
      `   ${label}${n > 0 ? ` (${n} busy processes)` : ""}: ${fmt(r.accepted)} accepted, ${fmt(r.limited)} x 429, ${fmt(r.spanRate, 2)}/s over the requests' span, ${fmt(r.runRate, 2)}/s over the run timer (${fmt(r.run.elapsedMs)} ms), at most ${r.maxPerWindow} in a window; ${pacingNote(r)}`
    )
    rounds.push(r)
  }
  return rounds
}

export const rateLimitLines = (rounds: ReadonlyArray<RateRound>): ReadonlyArray<Line> =>
  rounds.flatMap((r) => {
    const use = r.spanRate / r.quota
    return [
      {
        group: "rate limit",
        measure: `sourcing-search ${fmt(r.accepted)} pages at a policy of ${r.quota}/s, ${r.busy > 0 ? `${r.busy} busy processes beside it` : "quiet"}: achieved rate over the requests' span / policy (run timer: ${fmt(r.runRate, 1)}/s; ${pacingNote(r)})`,
        value: `${fmt(r.spanRate, 1)} requests/s`,
        baseline: `policy ${r.quota}/s`,
        ratio: use,
        target: ">= 0.95",
        met: use >= 0.95,
        why: `the rate follows the exchange time with one paid call in flight (budget.paidInFlight): ${pacingNote(r) || "no pacing figures"}; slots left idle mean no request was ready, a machine short of CPU for the CLI and the sandbox`
      },
      {
        group: "rate limit",
        measure: `share of requests answered 429, ${r.label} (at most ${r.maxPerWindow} let through in one window)`,
        value: `${fmt(r.limited)} of ${fmt(r.sent)}`,
        baseline: "",
        ratio: r.sent > 0 ? r.limited / r.sent : 0,
        target: "0",
        met: r.sent > 0 && r.limited === 0
      }
    ]
  })
