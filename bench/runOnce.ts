/**
 * One pipeline run in a fresh process, against a sandbox reached as a remote service, printing
 * one JSON line: the run summary, wall time, CPU time and peak RSS. A fresh process per run keeps
 * the RSS figure clean (nothing of an earlier run, of the sandbox or of the bench itself).
 *
 * Argument: JSON `RunOnceInput`. Run with `node --import tsx bench/runOnce.ts '<json>'`.
 */
import { Effect, Either } from "effect"
import type { Pipeline } from "../src/pipeline/Pipeline.js"
import { makeEnvironment } from "../src/wiring/Environment.js"
import { decodeSettings } from "../src/config/loadSettings.js"
import { resolveParams } from "../src/pipeline/Params.js"
import { Progress } from "../src/pipeline/Progress.js"
import { runPipeline } from "../src/pipeline/Runner.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../src/sandbox/Credentials.js"

export interface RunOnceInput {
  readonly platformUrl: string
  readonly apiUrl: string
  readonly warehouse: string
  readonly pipeline: string
  readonly params: Record<string, unknown>
  readonly maxUnits?: number
  /** DuckDB's memory_limit for the run (the `duckdb.memoryLimit` setting). */
  readonly duckdbMemory?: string
}

export interface RunOnceOutput {
  readonly status: string
  readonly records: number
  readonly rows: number
  readonly rowsPerTable: Record<string, number>
  readonly pages: number
  readonly units: number
  readonly requests: number
  readonly retries: number
  readonly plannedUnits: number
  readonly plannedRequests: number
  readonly planExact: boolean
  readonly elapsedMs: number
  readonly cpuMs: number
  /** Peak resident set size of this process, MB. */
  readonly peakRssMb: number
  /** Peak V8 heap in use, MB (sampled every 100 ms): what the JavaScript side holds. */
  readonly peakHeapMb: number
  readonly error?: string | undefined
  /** The platform host's pacer at the end of the run (`Pacer.snapshot`) and its exchanges. */
  readonly platformPacing?: {
    readonly taken: number
    readonly lateMs: number
    readonly idleMs: number
    readonly intervalMs: number
    readonly exchanges: number
    readonly exchangeMs: number
  }
}

const input = JSON.parse(process.argv[2] ?? "{}") as RunOnceInput
process.env.SVC_API_KEY = SANDBOX_API_KEY
process.env.SVC_EMAIL = SANDBOX_USER.email
process.env.SVC_PASSWORD = SANDBOX_USER.password

const settings = decodeSettings(
  {
    warehouse: input.warehouse,
    output: `${input.warehouse}.out`,
    ...(input.duckdbMemory ? { duckdb: { memoryLimit: input.duckdbMemory } } : {}),
    budget: {
      maxUnits: input.maxUnits ?? 10_000_000,
      ...(process.env.BENCH_PAID_IN_FLIGHT ? { paidInFlight: Number(process.env.BENCH_PAID_IN_FLIGHT) } : {})
    },
    // no pacing until the sandbox's RateLimit-Policy is seen: with limits off it sends none, and the
    // client's assumed 20 requests/s would then cap the throughput figures instead of the toolkit
    service: {
      target: "remote",
      platformUrl: input.platformUrl,
      apiUrl: input.apiUrl,
      platformRate: 0,
      apiRate: 0,
      ...(process.env.BENCH_HEADROOM ? { pacingHeadroom: Number(process.env.BENCH_HEADROOM) } : {})
    }
  },
  "bench"
)
if (Either.isLeft(settings)) throw new Error(settings.left.message)

// only the measured pipeline's module is loaded (its file is named after it)
const pipeline = (await import(`../pipelines/${input.pipeline}.js`)).default as Pipeline
if (pipeline?.name !== input.pipeline) throw new Error(`no pipeline ${input.pipeline}`)
const params = resolveParams(pipeline, input.params, [])
if (Either.isLeft(params)) throw new Error(String(params.left))

let peakHeap = 0
const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 100)
const cpu0 = process.cpuUsage()
const t0 = performance.now()
const [summary, pacing] = await Effect.runPromise(
  Effect.gen(function* () {
    const summary = yield* runPipeline({
      pipeline,
      params: params.right,
      fullRefresh: false,
      maxUnits: input.maxUnits ?? 10_000_000,
      untilCap: true,
      shard: undefined,
      maxRejectRatio: 0.05,
      costs: settings.right.budget.costs
    })
    // the same client the run used (one environment): how its pacing went
    const client = yield* PlatformClient
    const pacer = yield* client.pacer
    const transport = yield* client.stats
    return [
      summary,
      {
        taken: pacer.taken,
        lateMs: pacer.lateMs,
        idleMs: pacer.idleMs,
        intervalMs: pacer.intervalMs,
        exchanges: transport.exchanges,
        exchangeMs: transport.exchangeMs
      }
    ] as const
  }).pipe(Effect.provide(makeEnvironment({ settings: settings.right, progress: Progress.Silent })), Effect.scoped)
)
const elapsedMs = performance.now() - t0
clearInterval(sampler)
const cpu = process.cpuUsage(cpu0)
const out: RunOnceOutput = {
  status: summary.status,
  records: summary.totals.records,
  rows: summary.totals.rows,
  rowsPerTable: summary.rowsPerTable,
  pages: summary.totals.pages,
  units: summary.totals.units,
  requests: summary.totals.requests,
  retries: summary.totals.retries,
  plannedUnits: summary.plan.units,
  plannedRequests: summary.plan.requests,
  planExact: summary.plan.exact,
  elapsedMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
  peakHeapMb: peakHeap / 1024 / 1024,
  error: summary.error,
  platformPacing: pacing
}
process.stdout.write(`${JSON.stringify(out)}\n`)
process.exit(0)
