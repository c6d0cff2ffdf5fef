/**
 * The command line's commands as plain data, read from @effect/cli's descriptors: each command's
 * name, description, flags (names, value, description) and positional arguments, and its
 * subcommands. What `Flags.ts` checks arguments against and what `Help.ts` prints, so a new
 * option or command needs no change in either.
 *
 * @effect/cli's public accessors stop one level down (`getSubcommands` of `alerts` gives no
 * `feeds`) and give no option descriptions, so this reads the descriptor's shape (`Map`,
 * `Subcommands`, `Standard`, and options' `Single` nodes); anything else yields no tree, and then
 * nothing is checked and the help falls back to @effect/cli's own.
 */
import type { Command, HelpDoc } from "@effect/cli"
import { CommandDescriptor, type Usage } from "@effect/cli"

export interface Flag {
  /** As declared, e.g. `["-c", "--config"]`. */
  readonly names: ReadonlyArray<string>
  /** What the value is (`file`, `text`, `integer`, `a | b`), when the flag takes one. */
  readonly value: string | undefined
  readonly repeated: boolean
  readonly description: string
}

export interface Arg {
  /** E.g. `<pipeline-or-set>`. */
  readonly name: string
  readonly repeated: boolean
  readonly optional: boolean
}

export interface CommandNode {
  readonly name: string
  readonly description: string
  readonly flags: ReadonlyArray<Flag>
  readonly args: ReadonlyArray<Arg>
  readonly children: ReadonlyMap<string, CommandNode>
}

type Descriptor = {
  readonly _tag: string
  readonly name?: string
  readonly description?: HelpDoc.HelpDoc
  readonly options?: unknown
  readonly command?: Descriptor
  readonly parent?: Descriptor
  readonly children?: ReadonlyArray<Descriptor>
}

/** The plain text of a help document or span (paragraphs joined by a space). */
export const plainText = (doc: unknown): string => {
  const d = doc as { _tag?: string; value?: unknown; left?: unknown; right?: unknown } | undefined
  switch (d?._tag) {
    case "Text":
    case "URI":
      return String(d.value)
    case "Paragraph":
    case "Header":
    case "Highlight":
    case "Weak":
    case "Strong":
    case "Code":
    case "Error":
      return plainText(d.value)
    case "Sequence":
      // a span sequence concatenates; a document sequence is paragraphs
      return [plainText(d.left), plainText(d.right)].filter((t) => t !== "").join(isSpan(d.left) ? "" : " ")
    default:
      return ""
  }
}
const isSpan = (x: unknown) =>
  ["Text", "URI", "Highlight", "Weak", "Strong", "Code", "Error"].includes((x as { _tag?: string })?._tag ?? "")

/** Descriptions of the options' `Single` nodes by their long name (`--config`). */
const optionDescriptions = (options: unknown, out = new Map<string, string>()): Map<string, string> => {
  const o = options as Record<string, unknown> | undefined
  if (o === undefined || o === null || typeof o !== "object") return out
  if (o._tag === "Single" && typeof o.fullName === "string") out.set(o.fullName, plainText(o.description))
  for (const k of ["options", "left", "right", "argumentOption"]) if (k in o) optionDescriptions(o[k], out)
  return out
}

const read = (
  usage: Usage.Usage,
  descriptions: ReadonlyMap<string, string>,
  flags: Array<Flag>,
  args: Array<Arg>,
  repeated = false,
  optional = false
) => {
  switch (usage._tag) {
    case "Named":
      if (usage.names.some((n) => n.startsWith("-"))) {
        const long = usage.names.find((n) => n.startsWith("--")) ?? usage.names[0]!
        flags.push({
          names: usage.names,
          value: usage.acceptedValues._tag === "Some" ? usage.acceptedValues.value : undefined,
          repeated,
          description: descriptions.get(long) ?? ""
        })
      } else if (usage.names[0]?.startsWith("<")) args.push({ name: usage.names[0], repeated, optional })
      return
    case "Optional":
      return read(usage.usage, descriptions, flags, args, repeated, true)
    case "Repeated":
      return read(usage.usage, descriptions, flags, args, true, optional)
    case "Concat":
    case "Alternation":
      read(usage.left, descriptions, flags, args, repeated, optional)
      return read(usage.right, descriptions, flags, args, repeated, optional)
    default:
      return
  }
}

const nodeOf = (d: Descriptor): CommandNode | undefined => {
  switch (d._tag) {
    case "Map":
      return d.command ? nodeOf(d.command) : undefined
    case "Standard":
    case "GetUserInput": {
      if (typeof d.name !== "string") return undefined
      const flags: Array<Flag> = []
      const args: Array<Arg> = []
      read(CommandDescriptor.getUsage(d as unknown as CommandDescriptor.Command<unknown>), optionDescriptions(d.options), flags, args)
      return { name: d.name, description: plainText(d.description), flags, args, children: new Map() }
    }
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

/** The tree of `command` (its root is the program), or `undefined` when its shape is not one known here. */
export const commandTree = <Name extends string, R, E, A>(command: Command.Command<Name, R, E, A>): CommandNode | undefined =>
  nodeOf(command.descriptor as unknown as Descriptor)

/** The node at `path` (command names below the root), if any. */
export const nodeAt = (root: CommandNode, path: ReadonlyArray<string>): CommandNode | undefined =>
  path.reduce<CommandNode | undefined>((node, name) => node?.children.get(name), root)

/** Every command's path below the root, depth first, in declaration order (groups before their members). */
export const allPaths = (root: CommandNode, prefix: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> =>
  [...root.children.values()].flatMap((c) => [[...prefix, c.name], ...allPaths(c, [...prefix, c.name])])
