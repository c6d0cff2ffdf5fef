/**
 * A stop requested from outside: SIGINT (Ctrl-C) or SIGTERM (a cron timeout, `systemctl stop`, a
 * pod eviction). The CLI's entry point provides it and triggers it from the process's signals;
 * the runner listens: it stops fetching (the paid call in flight is lost, as the page journal
 * promises; every journaled page still lands), marks the run `interrupted` (resumable), and ends
 * with its summary and a `run_finished` event. Without the service nothing listens.
 */
import { Context, Deferred, Effect, Exit, FiberId } from "effect"

export type StopSignal = "SIGINT" | "SIGTERM"

/** The conventional exit codes: 128 + the signal's number. */
export const exitCodeOfSignal = (signal: StopSignal): 130 | 143 => (signal === "SIGINT" ? 130 : 143)

export class Shutdown extends Context.Tag("pipeline/Shutdown")<
  Shutdown,
  {
    /** Completes with the first signal received. */
    readonly requested: Effect.Effect<StopSignal>
    /** The signal received so far, if any. */
    readonly received: () => StopSignal | undefined
  }
>() {}

/** A shutdown switch: the service, and `trigger` for the signal handler. */
export const makeShutdown = () => {
  const deferred = Deferred.unsafeMake<StopSignal>(FiberId.none)
  let received: StopSignal | undefined
  return {
    service: Shutdown.of({ requested: Deferred.await(deferred), received: () => received }),
    trigger: (signal: StopSignal) => {
      if (received === undefined) received = signal
      Deferred.unsafeDone(deferred, Exit.succeed(signal))
    }
  }
}
