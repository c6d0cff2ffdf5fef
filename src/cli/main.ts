#!/usr/bin/env node
/**
 * The `estate-etl` command line. Commands: list, plan, run, status, export, reload, query,
 * merge, alerts, serve-alerts, sandbox, demo, config, init, new pipeline, state, drop. Exit codes: the table in README ("Exit codes") and
 * `src/pipeline/RunError.ts`.
 *
 * Signals: the first SIGINT or SIGTERM asks a run to stop (it lands what is queued, marks the run
 * `interrupted`, prints its summary) and the process exits 130 or 143 within 2 seconds whatever
 * it was doing; a second signal exits at once. A process that received a signal never exits 0.
 *
 * `.env` in the working directory is read first; the environment wins over it (`config/DotEnv.ts`).
 *
 * Bundled as `dist/bundle/main.mjs`; the bin users run, `dist/bundle/main.js`, is `bin.cjs`, which
 * sizes libuv's threadpool and then imports this module. V8's policies for this process (its heap,
 * the HTTP parser's compiler) are set below, before the command line loads.
 */
import * as nodeModule from "node:module"
import { fastPath, LIST_SNAPSHOT } from "./FastPath.js"
import { HELP_SNAPSHOT } from "./HelpSnapshot.js"

// Node 22.1+ keeps the compiled code of the bundle between runs (a cold start compiles ~5 MB of
// JavaScript otherwise); Node 20 has no such cache and goes on without it
;(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.()

/** How long a stopping run may take to land what is queued and write its record. */
const GRACE_MS = 1_800

// `--help` and a plain `list` are answered before anything heavy loads (`FastPath.ts`); the
// command line and what it needs load only when they are not (lazy imports, their own chunks)
const fast = await fastPath(process.argv, {
  help: new URL(HELP_SNAPSHOT, import.meta.url),
  list: new URL(LIST_SNAPSHOT, import.meta.url)
})
if (fast !== undefined) {
  process.stdout.write("", () => process.exit(fast))
} else {
  // before the command line loads: loading it is what grows the young generation first; and
  // before the first request, undici's HTTP parser kept on V8's baseline compiler
  const [{ applyHeapPolicy, holdYoungGeneration }, { applyParserTiering }] = await Promise.all([
    import("./HeapPolicy.js"),
    import("./ParserTiering.js")
  ])
  const heap = applyHeapPolicy()
  applyParserTiering()
  const [{ Effect }, { exitCodeOfSignal, makeShutdown, Shutdown }, { runCliMain }, { DOT_ENV }, { messageOf }] = await Promise.all([
    import("effect"),
    import("../pipeline/Shutdown.js"),
    import("./Cli.js"),
    import("../config/DotEnv.js"),
    import("../shared/ErrorClass.js")
  ])
  if (heap.semiMb !== undefined) holdYoungGeneration(heap.semiMb)
  type StopSignal = import("../pipeline/Shutdown.js").StopSignal

  const shutdown = makeShutdown()
  for (const signal of ["SIGINT", "SIGTERM"] as const satisfies ReadonlyArray<StopSignal>) {
    process.on(signal, () => {
      const code = exitCodeOfSignal(shutdown.service.received() ?? signal)
      if (shutdown.service.received() !== undefined) process.exit(code)
      shutdown.trigger(signal)
      setTimeout(() => process.exit(code), GRACE_MS).unref()
    })
  }

  Effect.runPromise(runCliMain(process.argv, { dotEnv: DOT_ENV }).pipe(Effect.provideService(Shutdown, shutdown.service))).then(
    (code) => {
      const signal = shutdown.service.received()
      process.exit(signal !== undefined ? exitCodeOfSignal(signal) : code)
    },
    (error) => {
      process.stderr.write(`error: ${messageOf(error)}\n`)
      process.exit(1)
    }
  )
}
