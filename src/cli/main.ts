#!/usr/bin/env node
/**
 * The `estate-etl` command line. Commands: list, plan, run, status, export, reload, query,
 * merge, state, drop, alerts, serve-alerts, sandbox, demo. Exit codes: the table in README
 * ("Exit codes") and `src/pipeline/RunError.ts`.
 *
 * Signals: the first SIGINT or SIGTERM asks a run to stop (it lands what is queued, marks the run
 * `interrupted`, prints its summary) and the process exits 130 or 143 within 2 seconds whatever
 * it was doing; a second signal exits at once. A process that received a signal never exits 0.
 */
import { Effect } from "effect"
import { exitCodeOfSignal, makeShutdown, Shutdown, type StopSignal } from "../pipeline/Shutdown.js"
import { runCliMain } from "./Cli.js"
import { messageOf } from "../shared/ErrorClass.js"

/** How long a stopping run may take to land what is queued and write its record. */
const GRACE_MS = 1_800

const shutdown = makeShutdown()
for (const signal of ["SIGINT", "SIGTERM"] as const satisfies ReadonlyArray<StopSignal>) {
  process.on(signal, () => {
    const code = exitCodeOfSignal(shutdown.service.received() ?? signal)
    if (shutdown.service.received() !== undefined) process.exit(code)
    shutdown.trigger(signal)
    setTimeout(() => process.exit(code), GRACE_MS).unref()
  })
}

Effect.runPromise(runCliMain(process.argv).pipe(Effect.provideService(Shutdown, shutdown.service))).then(
  (code) => {
    const signal = shutdown.service.received()
    process.exit(signal !== undefined ? exitCodeOfSignal(signal) : code)
  },
  (error) => {
    process.stderr.write(`error: ${messageOf(error)}\n`)
    process.exit(1)
  }
)
