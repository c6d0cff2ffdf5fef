/**
 * The command line as a function: arguments in, exit code out. `main.ts` runs it and exits;
 * tests and tools can run many invocations in one process.
 * Exit codes: `ExitCode` in src/pipeline/RunError.ts, printed by `--help` (src/cli/ExitCodes.ts)
 * and tabled in README ("Exit codes"); test/cli/exit-code-table.test.ts keeps the three in step.
 *
 * Before @effect/cli parses anything, the arguments are scanned (`Flags.ts`): a misspelt flag or
 * command is bad input with a "did you mean"; `--help` (and a group named without a command)
 * prints this program's own one-screen help (`Help.ts`); `--completions` prints a completion script
 * (`Completions.ts`). Colour only on a terminal without
 * `NO_COLOR` (`Colour.ts`).
 */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Cause, Effect, Either, Exit, Logger, LogLevel, Option } from "effect"
import { redactText } from "../shared/Redaction.js"
import { loadDotEnv } from "../config/DotEnv.js"
import { moveToSettingsRoot } from "../config/SettingsRoot.js"
import { setEnvFlag, takeEnvFlag } from "../config/SettingsOverlay.js"
import { ExitCode, exitCodeOf } from "../pipeline/RunError.js"
import { messageOf } from "../pipeline/Runner.js"
import { CommandEnded } from "./CommandEnded.js"
import { commands } from "./Commands.js"
import { hoistGlobalOptions } from "./GlobalOptions.js"
import { StderrLogger } from "./StderrLogger.js"
import { colourFor, withPlainConsole } from "./Colour.js"
import { commandTree, nodeAt } from "./CommandTree.js"
import { completionScript } from "./Completions.js"
import { scanArgs } from "./Flags.js"
import { outputWidth } from "./Format.js"
import { helpText } from "./Help.js"

const cli = Command.run(commands, { name: "estate-etl", version: "0.1.0" })

/** Validation errors of @effect/cli itself (it prints them): bad input. */
const CLI_VALIDATION = new Set([
  "MissingValue",
  "InvalidValue",
  "CommandMismatch",
  "UnclusteredFlag",
  "MultipleValuesDetected",
  "InvalidArgument",
  "MissingFlag",
  "MissingSubcommand",
  "CorrectedFlag",
  "NoBuiltInMatch"
])

export interface CliOptions {
  /**
   * Read this `.env` file (relative to the working directory) into the environment first, leaving
   * variables the environment sets (`config/DotEnv.ts`). `main.ts` passes `.env`; in-process
   * callers (tests, tools) leave it out, so one invocation's `.env` never leaks into the next.
   */
  readonly dotEnv?: string | undefined
}

/**
 * Runs one invocation (`argv` as in `process.argv`: node, script, ...args) to its exit code.
 * Logs go to stderr (`StderrLogger.ts`) from warning up; @effect/cli's built-in `--log-level`
 * (anywhere on the line) sets the minimum level inside this default for the whole command, so
 * `--log-level debug` shows every request (`service/RequestLog.ts`).
 */
export const runCliMain = (argv: ReadonlyArray<string>, options: CliOptions = {}): Effect.Effect<number> =>
  Effect.gen(function* () {
    ignoreClosedReaders()
    // `--env <name>` (anywhere): the settings overlay of this invocation (`config/SettingsOverlay.ts`)
    const taken = yield* Either.match(takeEnvFlag(argv), { onLeft: Effect.fail, onRight: Effect.succeed })
    setEnvFlag(taken.env)
    const args = yield* Either.match(hoistGlobalOptions(commands, taken.argv), { onLeft: Effect.fail, onRight: Effect.succeed })
    const scan = scanArgs(commands, args)
    if (scan.error) return yield* Effect.fail(scan.error)
    // from a sub-folder: the settings above it, as git finds its root (before `.env` is read there)
    const moved = scan.help ? undefined : moveToSettingsRoot(args.slice(2), scan.path[0])
    if (moved !== undefined) process.stderr.write(`${moved}\n`)
    if (options.dotEnv !== undefined) yield* loadDotEnv(options.dotEnv)
    const root = commandTree(commands)
    const node = root && nodeAt(root, scan.path)
    if (root && node && (scan.help || (scan.bare && node.children.size > 0))) {
      process.stdout.write(helpText(root, node, scan.path, { colour: colourFor(process.stdout), width: outputWidth() }))
      return
    }
    if (scan.completions === "bash" || scan.completions === "zsh" || scan.completions === "fish") {
      process.stdout.write((yield* completionScript(commands, "estate-etl", scan.completions)) + "\n")
      return
    }
    return yield* cli(args)
  }).pipe(
    withPlainConsole,
    Effect.provide(NodeContext.layer),
    Effect.provide(StderrLogger),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    Effect.exit,
    Effect.map((exit) => {
      if (Exit.isSuccess(exit)) return ExitCode.Done
      const failure = Cause.failureOption(exit.cause)
      if (Option.isSome(failure)) {
        // the command printed its own account (a run's summary) and ends with its code
        if (failure.value instanceof CommandEnded) return failure.value.code
        const tag = (failure.value as { _tag?: string })._tag ?? ""
        if (tag === "HelpRequested") return ExitCode.Done
        if (CLI_VALIDATION.has(tag)) return ExitCode.BadInput
        // one line, whatever looks like a credential redacted (`messageOf`)
        process.stderr.write(`error: ${messageOf(failure.value)}\n`)
        return exitCodeOf(failure.value)
      }
      if (Cause.isInterruptedOnly(exit.cause)) return 130
      process.stderr.write(`error: ${redactText(Cause.pretty(exit.cause).split("\n")[0]!)}\n`)
      return ExitCode.Other
    }),
    Effect.tap(() => Effect.promise(() => Promise.all([flushed(process.stdout), flushed(process.stderr)])))
  )

/**
 * Resolves once everything written to `stream` so far has been handed to the OS. Writes to a pipe
 * are asynchronous, and `main.ts` exits right after the command: without this, output beyond the
 * pipe's buffer (64 KiB: a long `status --verbose`, a large `query`) was cut short when piped.
 */
const flushed = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => {
    // nothing pending (also when a caller captures output by replacing `write`, as tests do)
    if (stream.destroyed || !stream.writable || stream.writableLength === 0) return resolve()
    stream.write("", () => resolve())
  })

/** A reader that stops early (`estate-etl query ... | head`) is no failure of the command. */
let quietEpipe = false
const ignoreClosedReaders = () => {
  if (quietEpipe) return
  quietEpipe = true
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code !== "EPIPE") throw e
    })
  }
}
