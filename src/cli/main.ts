#!/usr/bin/env node
/**
 * The `estate-etl` command line. Commands: list, plan, run, status, export, reload, query,
 * merge, sandbox, demo. Exit codes: 0 done, 2 bad input, 3 budget or retry budget reached
 * (resumable), 4 payment required, 5 authentication, 1 other.
 */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Logger, LogLevel, Option } from "effect"
import { exitCodeOf } from "../pipeline/RunError.js"
import { messageOf } from "../pipeline/Runner.js"
import { commands } from "./Commands.js"
import { exitCode } from "./CliState.js"

const cli = Command.run(commands, {
  name: "estate-etl",
  version: "0.1.0"
})

const program = Effect.suspend(() => cli(process.argv)).pipe(
  Effect.provide(NodeContext.layer),
  Logger.withMinimumLogLevel(LogLevel.Warning)
)

NodeRuntime.runMain(
  program.pipe(
    Effect.exit,
    Effect.flatMap((exit) =>
      Effect.sync(() => {
        if (Exit.isSuccess(exit)) return process.exit(exitCode.value)
        const failure = Cause.failureOption(exit.cause)
        if (Option.isSome(failure)) {
          const e = failure.value
          // @effect/cli prints its own validation errors; they are bad input (2)
          const tag = (e as { _tag?: string })._tag ?? ""
          if (!["MissingValue", "InvalidValue", "CommandMismatch", "UnclusteredFlag", "MultipleValuesDetected", "InvalidArgument", "MissingFlag", "MissingSubcommand", "CorrectedFlag", "NoBuiltInMatch", "HelpRequested"].includes(tag)) {
            process.stderr.write(`error: ${messageOf(e)}\n`)
            return process.exit(exitCodeOf(e))
          }
          return process.exit(tag === "HelpRequested" ? 0 : 2)
        }
        process.stderr.write(`error: ${Cause.pretty(exit.cause).split("\n")[0]}\n`)
        return process.exit(1)
      })
    )
  ),
  { disableErrorReporting: true, disablePrettyLogger: true }
)
