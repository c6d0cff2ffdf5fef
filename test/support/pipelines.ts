/**
 * End-to-end harness for pipelines: a sandbox on ephemeral ports, a warehouse in a temp folder,
 * and `run` / `query` that go through the same environment wiring as the CLI.
 */
import { Effect, Either, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { catalogue } from "../../pipelines/index.js"
import { decodeSettings } from "../../src/config/loadSettings.js"
import type { Settings } from "../../src/config/Settings.js"
import { makeEnvironment } from "../../src/wiring/Environment.js"
import { resolveParams, sampleRequested } from "../../src/pipeline/Params.js"
import { runSettingsOf } from "../../src/pipeline/RunSettings.js"
import type { Pipeline } from "../../src/pipeline/Pipeline.js"
import { Progress } from "../../src/pipeline/Progress.js"
import { runPipeline, type RunSummary } from "../../src/pipeline/Runner.js"
import type { SandboxOptions } from "../../src/sandbox/SandboxConfig.js"
import { queryWarehouse } from "./queryWarehouse.js"
import { startTestSandbox, totalUnits } from "./sandbox.js"

export interface HarnessOptions {
  readonly sandbox?: SandboxOptions
  /** Settings as in a config file (warehouse and output are set to the temp folder). */
  readonly settings?: Record<string, unknown>
}

export interface RunOptions {
  readonly params?: Record<string, unknown>
  readonly overrides?: ReadonlyArray<string>
  readonly maxUnits?: number
  readonly untilCap?: boolean
  readonly fullRefresh?: boolean
  readonly resume?: "auto" | "resume" | "restart"
  readonly shard?: { index: number; count: number }
  readonly warehouse?: string
  /** A sample run (`--sample`): a cap that cuts it short is reported, not a shortfall. */
  readonly sample?: boolean
  /** Buy every paid answer again (`--fresh`). */
  readonly fresh?: boolean
}

export const pipelineByName = (name: string): Pipeline => {
  const p = catalogue.find((x) => x.name === name)
  if (!p) throw new Error(`no pipeline ${name} in the catalogue`)
  return p
}

export const makeHarness = async (options: HarnessOptions = {}) => {
  const sandbox = await startTestSandbox(options.sandbox ?? {})
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-etl-"))
  const decoded = decodeSettings({ ...options.settings, warehouse: path.join(dir, "warehouse.duckdb"), output: dir }, "test")
  if (Either.isLeft(decoded)) throw new Error(decoded.left.message)
  const settings: Settings = decoded.right

  const env = (warehouse?: string, maxUnits?: number) =>
    makeEnvironment({ settings, sandbox, progress: Progress.Silent, warehouse, maxUnits })

  /** Runs a pipeline (by name or declaration) to its summary; errors before the run reject. */
  const run = (pipeline: Pipeline | string, opts: RunOptions = {}): Promise<RunSummary> => {
    const p = typeof pipeline === "string" ? pipelineByName(pipeline) : pipeline
    const fromSettings = { ...settings.pipelines[p.name]?.params, ...opts.params }
    const params = resolveParams(p, fromSettings, opts.overrides ?? [])
    if (Either.isLeft(params)) return Promise.reject(params.left)
    return runOrReject(
      runPipeline({
        pipeline: p,
        params: params.right,
        fullRefresh: opts.fullRefresh ?? false,
        resume: opts.resume,
        maxUnits: opts.maxUnits ?? settings.budget.maxUnits,
        untilCap: opts.untilCap ?? false,
        shard: opts.shard,
        ...runSettingsOf(settings),
        sample: opts.sample === true || sampleRequested(fromSettings, opts.overrides ?? []),
        fresh: opts.fresh
      }).pipe(Effect.provide(env(opts.warehouse, opts.maxUnits)), Effect.scoped)
    )
  }

  /** Runs an effect; a failure rejects with the error itself (not wrapped), so tests can match `_tag`. */
  const runOrReject = <A>(effect: Effect.Effect<A, unknown, never>): Promise<A> =>
    Effect.runPromise(Effect.either(effect)).then((e) => (Either.isRight(e) ? e.right : Promise.reject(e.left)))

  /** Any effect needing the warehouse (and the clients), e.g. exports. */
  const use = <A, E>(effect: Effect.Effect<A, E, any>, warehouse?: string): Promise<A> =>
    runOrReject(Effect.scoped(Effect.provide(effect, env(warehouse) as Layer.Layer<any, any, never>)) as Effect.Effect<A, E, never>)

  /** SQL over the warehouse; rows as plain objects (BIGINT as number when safe). */
  const query = (sql: string, warehouse?: string): Promise<Array<Record<string, unknown>>> =>
    queryWarehouse(warehouse ?? settings.warehouse, [sql]).then(([rows]) => rows!)

  const close = async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }

  return { sandbox, dir, settings, run, use, query, close }
}

export type Harness = Awaited<ReturnType<typeof makeHarness>>

/** Units the harness's sandbox has charged so far, over every operation (its own billing counter). */
export const unitsSpent = (h: Harness): number => totalUnits(h.sandbox)

/**
 * The harness of a `describe` block in one line: a sandbox on an ephemeral port and a warehouse
 * in a temp folder, started before the block's tests and closed after them.
 *
 *   describe("plots-germany", () => {
 *     const h = useHarness({ sandbox: { world: { plots: 300 } } })
 *     it("...", async () => { await h.run("plots-germany") })
 *   })
 */
export const useHarness = (options: HarnessOptions = {}): Harness => {
  let live: Harness | undefined
  beforeAll(async () => {
    live = await makeHarness(options)
  })
  afterAll(() => live?.close())
  return new Proxy({} as Harness, {
    get: (_, key) => {
      if (live === undefined) throw new Error("the harness is used outside its tests (before beforeAll)")
      return live[key as keyof Harness]
    }
  })
}
