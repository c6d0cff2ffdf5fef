/**
 * Misspelt flags and commands, named as such, before @effect/cli parses anything. @effect/cli
 * notices `--confg` (its `CorrectedFlag`) but drops that error when the command also takes
 * repeated arguments, so `run --confg x nightly` used to reach the handler with `--confg` as a
 * pipeline name; and an unknown command got a bare list of the commands, printed twice. This scan
 * of the raw arguments comes first:
 * - a `--name` the command (and its parents, and the built-ins) does not declare is an
 *   `InvalidInput` (exit 2): `run: unknown flag --confg; did you mean --config?`;
 * - a word where a command of a group is expected: `estate-etl: unknown command "stauts"; did
 *   you mean status?`;
 * - and it says which command the arguments name and whether help was asked for (`Help.ts`).
 * The declared flags and commands are read from the commands themselves (`CommandTree.ts`), so
 * new ones need no change here.
 */
import type { Command } from "@effect/cli"
import { closest } from "../config/Suggest.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { type CommandNode, commandTree, type Flag } from "./CommandTree.js"

type Known = Pick<Flag, "names"> & { readonly takesValue: boolean }

/** @effect/cli's own: --help/-h, --version, --wizard, --completions <shell>, --log-level <level>. */
export const BUILT_IN: ReadonlyArray<Known> = [
  { names: ["--help", "-h"], takesValue: false },
  { names: ["--version"], takesValue: false },
  { names: ["--wizard"], takesValue: false },
  { names: ["--completions"], takesValue: true },
  { names: ["--log-level"], takesValue: true }
]

const LONG_FLAG = /^(--[A-Za-z0-9][A-Za-z0-9_-]*)(=.*)?$/s

/** What the raw arguments name. */
export interface Scan {
  /** The commands named, below the program (`["alerts", "feeds", "list"]`). */
  readonly path: ReadonlyArray<string>
  /** A misspelt flag or command. */
  readonly error: InvalidInput | undefined
  /** `--help` or `-h` was given (before any `--`). */
  readonly help: boolean
  /** Nothing follows the commands named: no flag, no argument. */
  readonly bare: boolean
  /** The shell `--completions` names, if given. */
  readonly completions: string | undefined
}

/**
 * Reads `argv` (as in `process.argv`) against the commands of `command`. Without a command tree
 * (a descriptor shape not known to `CommandTree.ts`) nothing is checked.
 */
export const scanArgs = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>, argv: ReadonlyArray<string>): Scan => {
  const args = argv.slice(2)
  const root = commandTree(command)
  if (!root) return { path: [], error: undefined, help: false, bare: args.length === 0, completions: undefined }
  let node = root
  const path: Array<string> = []
  const known = new Map<string, Known>()
  const learn = (n: CommandNode) =>
    n.flags.forEach((f) => f.names.forEach((name) => known.set(name.toLowerCase(), { names: f.names, takesValue: f.value !== undefined })))
  learn(root)
  BUILT_IN.forEach((f) => f.names.forEach((name) => known.set(name, f)))
  let positional = false
  let help = false
  let rest = 0
  let completions: string | undefined
  const done = (error?: InvalidInput): Scan => ({ path, error, help, bare: rest === 0, completions })
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      rest++
      break
    }
    const long = LONG_FLAG.exec(arg)
    if (long) {
      rest++
      const flag = known.get(long[1]!.toLowerCase())
      if (!flag) return done(unknownFlagOf(long[1]!, node, path))
      if (long[1] === "--help") help = true
      if (long[1] === "--completions") completions = long[2]?.slice(1) ?? args[i + 1]
      if (flag.takesValue && long[2] === undefined) {
        // a value-taking flag at the end, or before another flag, has no value: say so, rather
        // than let the parser read the flag as a pipeline name
        const next = args[i + 1]
        if (next === undefined || (LONG_FLAG.test(next) && known.has(LONG_FLAG.exec(next)![1]!.toLowerCase()))) {
          return done(new InvalidInput({ field: long[1]!, detail: "needs a value" }))
        }
        i++
      }
      continue
    }
    if (arg.startsWith("-") && arg.length > 1) {
      // a short alias, or a value such as -5 (left to @effect/cli)
      rest++
      if (arg === "-h") help = true
      if (known.get(arg)?.takesValue) i++
      continue
    }
    const child = positional ? undefined : node.children.get(arg)
    if (child) {
      node = child
      path.push(arg)
      learn(child)
      continue
    }
    rest++
    if (!positional && node.children.size > 0) return done(unknownCommand(arg, node, path))
    positional = true
  }
  return done()
}

const unknownFlagOf = (flag: string, node: CommandNode, path: ReadonlyArray<string>): InvalidInput => {
  const own = node.flags.map((f) => f.names.find((n) => n.startsWith("--")) ?? f.names[0]!)
  const candidates = [...own, ...BUILT_IN.map((f) => f.names[0]!)]
  const best = closest(flag, candidates)
  const command = path.length > 0 ? path.join(" ") : node.name
  const hint =
    best !== undefined
      ? `; did you mean ${best}?`
      : own.length > 0
        ? `; flags of ${command}: ${own.join(", ")}`
        : `; ${command} takes no flags`
  return new InvalidInput({ field: command, detail: `unknown flag ${flag}${hint}` })
}

const unknownCommand = (word: string, node: CommandNode, path: ReadonlyArray<string>): InvalidInput => {
  const names = [...node.children.keys()]
  const best = closest(word, names)
  const group = path.length > 0 ? path.join(" ") : node.name
  return new InvalidInput({
    field: group,
    detail: `unknown command "${word}"${best !== undefined ? `; did you mean ${best}?` : ""}; commands: ${names.join(", ")}`
  })
}
