/**
 * Options a person gives once for the whole invocation may come before the subcommand:
 * `estate-etl --config x.json run nightly` means `estate-etl run --config x.json nightly`.
 * @effect/cli reads a command's options only after its name, so the raw arguments are rewritten
 * first: `--config`/`-c` and `--warehouse` (`--name value` or `--name=value`) found before the
 * subcommand move to just after it, when that subcommand declares them; when it does not, that is
 * an `InvalidInput` naming the subcommand (exit 2). `--log-level` needs no help: @effect/cli takes
 * it anywhere. Everything else keeps its place, so `Flags.ts`'s unknown-flag check sees the
 * options where the subcommand reads them.
 */
import type { Command } from "@effect/cli"
import { Either } from "effect"
import { InvalidInput } from "../shared/InvalidInput.js"
import { commandTree } from "./CommandTree.js"
import { BUILT_IN } from "./Flags.js"

/** The options that may come before the subcommand (each takes a value). */
export const GLOBAL_OPTIONS: ReadonlyArray<ReadonlyArray<string>> = [["--config", "-c"], ["--warehouse"]]

const globalName = (arg: string): { readonly name: string; readonly inline: boolean } | undefined => {
  for (const names of GLOBAL_OPTIONS) {
    for (const name of names) {
      if (arg === name) return { name: names[0]!, inline: false }
      if (name.startsWith("--") && arg.startsWith(`${name}=`)) return { name: names[0]!, inline: true }
    }
  }
  return undefined
}

const builtInTakesValue = (arg: string) => BUILT_IN.some((f) => f.takesValue && f.names.includes(arg))

/**
 * `argv` (as in `process.argv`) with the global options that precede the subcommand moved after
 * it; unchanged when there are none.
 */
export const hoistGlobalOptions = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  argv: ReadonlyArray<string>
): Either.Either<ReadonlyArray<string>, InvalidInput> => {
  const root = commandTree(command)
  if (!root) return Either.right(argv)
  const args = argv.slice(2)
  const prefix: Array<string> = []
  const hoisted: Array<{ readonly name: string; readonly tokens: ReadonlyArray<string> }> = []
  const path: Array<string> = []
  let node = root
  let i = 0
  // walk the subcommand names, taking the global options out from between them
  for (; i < args.length && node.children.size > 0; i++) {
    const arg = args[i]!
    if (arg === "--") break
    const global = globalName(arg)
    if (global) {
      const tokens = global.inline || i + 1 >= args.length ? [arg] : [arg, args[++i]!]
      hoisted.push({ name: global.name, tokens })
      continue
    }
    if (arg.startsWith("-")) {
      // another option of this level (`--log-level debug`, `--help`): left where it is
      prefix.push(arg)
      if (!arg.includes("=") && builtInTakesValue(arg) && i + 1 < args.length) prefix.push(args[++i]!)
      continue
    }
    const child = node.children.get(arg)
    if (!child) break
    prefix.push(arg)
    path.push(arg)
    node = child
  }
  if (hoisted.length === 0) return Either.right(argv)
  // no subcommand named: left to @effect/cli, which says what is missing
  if (path.length === 0) return Either.right(argv)
  const declared = new Set(node.flags.flatMap((f) => f.names))
  const undeclared = hoisted.find((h) => !declared.has(h.name))
  if (undeclared) {
    return Either.left(
      new InvalidInput({
        field: path.join(" "),
        detail: `${path.join(" ")} takes no ${undeclared.name} (an option given before the subcommand must be one of its own)`
      })
    )
  }
  return Either.right([...argv.slice(0, 2), ...prefix, ...hoisted.flatMap((h) => h.tokens), ...args.slice(i)])
}
