/**
 * The exit codes as `--help` prints them: one short line per `ExitCode` of
 * `src/pipeline/RunError.ts`. README ("Exit codes") holds the same table in full;
 * `test/cli/exit-code-table.test.ts` keeps the three in step.
 */
import { ExitCode } from "../pipeline/RunError.js"

export const EXIT_CODES: ReadonlyArray<{ readonly code: ExitCode; readonly meaning: string }> = [
  { code: ExitCode.Done, meaning: "done" },
  { code: ExitCode.Other, meaning: "other failure" },
  { code: ExitCode.BadInput, meaning: "bad input (nothing sent, nothing spent, warehouse untouched)" },
  { code: ExitCode.Budget, meaning: "paused, resumable (unit cap, retry budget, service still failing)" },
  { code: ExitCode.Payment, meaning: "payment required" },
  { code: ExitCode.Authentication, meaning: "authentication" },
  { code: ExitCode.Incomplete, meaning: "incomplete (fewer keys than declared, a repeat, a cap, a service limit)" },
  { code: ExitCode.Shape, meaning: "unexpected response shape or coding (paused)" },
  { code: ExitCode.Interrupted, meaning: "stopped by SIGINT (resumable)" },
  { code: ExitCode.Terminated, meaning: "stopped by SIGTERM (resumable)" }
]

/** `Exit codes: 0 done; 1 other failure; ...` for the root command's description. */
export const exitCodesHelp = `Exit codes: ${EXIT_CODES.map((c) => `${c.code} ${c.meaning}`).join("; ")}.`
