/**
 * `estate-etl --completions bash|zsh|fish`: @effect/cli's completion scripts, with two slips of
 * its generator (0.77) for a program name holding a hyphen mended, so that subcommands complete
 * their own flags and nested commands (`estate-etl alerts feeds c<TAB>`):
 * - bash: the `case` labels that move from one command to its subcommand name the command as
 *   the variable `cmd` holds it (`estate__etl__alerts,feeds`, not `estate-etl,alerts,feeds`;
 *   the program's own level `estate-etl,list`, as set from `$1`) and the subcommand as typed
 *   (`serve-alerts`, not `serve__alerts`);
 * - zsh: nested commands' helper functions are referred to by the names they are defined with
 *   (`_estate__etl__alerts_commands`, not `_estate-etl__alerts_commands`).
 * fish's script is passed through as generated.
 */
import type { Command } from "@effect/cli"
import { CommandDescriptor } from "@effect/cli"
import { Effect } from "effect"

export type Shell = "bash" | "zsh" | "fish"

/** How the generator turns a command path into a `cmd` value or a function name. */
const escape = (name: string) => name.replaceAll("-", "__")

const LABEL = /^(\s*)([\w-]+(?:,[\w-]+)+)\)$/

export const mendBash = (script: string, program: string): string =>
  script
    .split("\n")
    .map((line) => {
      const m = LABEL.exec(line)
      if (!m) return line
      const parts = m[2]!.split(",")
      const parent = parts.length === 2 ? program : escape(parts.slice(0, -1).join("__"))
      // the word as typed (`serve-alerts`; no command name here holds "__")
      return `${m[1]}${parent},${parts.at(-1)!.replaceAll("__", "-")})`
    })
    .join("\n")

export const mendZsh = (script: string, program: string): string => script.replaceAll(`_${program}__`, `_${escape(program)}__`)

/** The completion script of `shell` for `command`, installed as `program`. */
export const completionScript = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  program: string,
  shell: Shell
): Effect.Effect<string> => {
  const descriptor = command.descriptor as CommandDescriptor.Command<unknown>
  switch (shell) {
    case "bash":
      return Effect.map(CommandDescriptor.getBashCompletions(descriptor, program), (lines) => mendBash(lines.join("\n"), program))
    case "zsh":
      return Effect.map(CommandDescriptor.getZshCompletions(descriptor, program), (lines) => mendZsh(lines.join("\n"), program))
    case "fish":
      return Effect.map(CommandDescriptor.getFishCompletions(descriptor, program), (lines) => lines.join("\n"))
  }
}
