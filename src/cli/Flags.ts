/**
 * Misspelt flags, named as flags. @effect/cli notices `--confg` (its `CorrectedFlag`) but drops
 * that error when the command also takes repeated arguments, so `run --confg x nightly` used to
 * reach the handler with `--confg` as a pipeline name. This check runs on the raw arguments
 * first: a `--name` the command (and its parents, and the built-ins) does not declare is an
 * `InvalidInput` (exit 2): `run: unknown flag --confg; did you mean --config?`.
 * The declared flags are read from the commands themselves, so new options need no change here.
 */
import type { Command } from "@effect/cli"
import { CommandDescriptor, type Usage } from "@effect/cli"
import { closest } from "../config/Suggest.js"
import { InvalidInput } from "../pipeline/RunError.js"

export interface Flag {
  readonly names: ReadonlyArray<string>
  readonly takesValue: boolean
}

export interface Node {
  readonly name: string
  readonly flags: ReadonlyArray<Flag>
  readonly children: ReadonlyMap<string, Node>
}

/** @effect/cli's own: --help/-h, --version, --wizard, --completions <shell>, --log-level <level>. */
export const BUILT_IN: ReadonlyArray<Flag> = [
  { names: ["--help", "-h"], takesValue: false },
  { names: ["--version"], takesValue: false },
  { names: ["--wizard"], takesValue: false },
  { names: ["--completions"], takesValue: true },
  { names: ["--log-level"], takesValue: true }
]

const flagsOf = (usage: Usage.Usage): Array<Flag> => {
  switch (usage._tag) {
    case "Named":
      return usage.names.some((n) => n.startsWith("-")) ? [{ names: usage.names, takesValue: usage.acceptedValues._tag === "Some" }] : []
    case "Optional":
    case "Repeated":
      return flagsOf(usage.usage)
    case "Concat":
    case "Alternation":
      return [...flagsOf(usage.left), ...flagsOf(usage.right)]
    default:
      return []
  }
}

/**
 * The command tree. @effect/cli's public accessors stop one level down (`getSubcommands` of
 * `alerts` gives no `feeds`), so this reads the descriptor's shape (`Map`, `Subcommands`,
 * `Standard`); anything else yields no node, and then nothing is checked.
 */
type Descriptor = {
  readonly _tag: string
  readonly name?: string
  readonly command?: Descriptor
  readonly parent?: Descriptor
  readonly children?: ReadonlyArray<Descriptor>
}

const nodeOf = (d: Descriptor): Node | undefined => {
  switch (d._tag) {
    case "Map":
      return d.command ? nodeOf(d.command) : undefined
    case "Standard":
    case "GetUserInput":
      return typeof d.name === "string"
        ? {
            name: d.name,
            flags: flagsOf(CommandDescriptor.getUsage(d as unknown as CommandDescriptor.Command<unknown>)),
            children: new Map()
          }
        : undefined
    case "Subcommands": {
      const parent = d.parent ? nodeOf(d.parent) : undefined
      if (!parent) return undefined
      const children = (d.children ?? []).map(nodeOf)
      if (children.some((c) => c === undefined)) return undefined
      return { ...parent, children: new Map(children.map((c) => [c!.name, c!])) }
    }
    default:
      return undefined
  }
}

/** The command tree with each command's declared flags, or `undefined` when its shape is not the one known. */
export const commandTree = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>): Node | undefined =>
  nodeOf(command.descriptor as unknown as Descriptor)

const LONG_FLAG = /^(--[A-Za-z0-9][A-Za-z0-9_-]*)(=.*)?$/s

/**
 * The first long flag in `argv` (as in `process.argv`) that the command it follows does not
 * declare, as an `InvalidInput` with the closest declared flag, or `undefined`.
 */
export const unknownFlag = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  argv: ReadonlyArray<string>
): InvalidInput | undefined => {
  const root = commandTree(command)
  if (!root) return undefined
  let node = root
  const path: Array<string> = []
  const known = new Map<string, Flag>()
  const learn = (n: Node) => n.flags.forEach((f) => f.names.forEach((name) => known.set(name.toLowerCase(), f)))
  learn(root)
  BUILT_IN.forEach((f) => f.names.forEach((name) => known.set(name, f)))
  let positional = false
  const args = argv.slice(2)
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    const long = LONG_FLAG.exec(arg)
    if (long) {
      const flag = known.get(long[1]!.toLowerCase())
      if (!flag) return unknown(long[1]!, node, path)
      if (flag.takesValue && long[2] === undefined) i++
      continue
    }
    if (arg.startsWith("-") && arg.length > 1) {
      // a short alias, or a value such as -5 (left to @effect/cli)
      if (known.get(arg)?.takesValue) i++
      continue
    }
    const child = positional ? undefined : node.children.get(arg)
    if (child) {
      node = child
      path.push(arg)
      learn(child)
    } else positional = true
  }
  return undefined
}

const unknown = (flag: string, node: Node, path: ReadonlyArray<string>): InvalidInput => {
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
