/**
 * How a command ends with a non-zero exit code after it has printed its own account (a run's
 * summary): it fails with `CommandEnded`, which `Cli.ts` turns into the code without printing
 * anything more. A command that succeeds exits 0; no state is shared between invocations.
 */
import { Data, Effect } from "effect"
import { ExitCode } from "../shared/ErrorClass.js"

export class CommandEnded extends Data.TaggedError("CommandEnded")<{ readonly code: ExitCode }> {}

/** Ends the command with `code`: succeeds on 0, fails with `CommandEnded` otherwise. */
export const endWith = (code: ExitCode): Effect.Effect<void, CommandEnded> =>
  code === ExitCode.Done ? Effect.void : Effect.fail(new CommandEnded({ code }))
