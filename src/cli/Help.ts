/**
 * `--help`: one screen per command (at most 40 lines at 100 columns; `test/cli/manners.test.ts`
 * checks every command), printed instead of @effect/cli's own, which spends five lines on each
 * option and as many again on its built-ins.
 *
 * Usage, what the command does, its flags one line each, its subcommands, and examples. Examples
 * live at the end of each command's description (`Command.withDescription` in `Commands.ts` and
 * beside it), after `Example:` or `Examples:`, separated by `; `, each starting with `estate-etl`
 * (optionally after `NAME=value` environment settings): the same text shell completions show.
 * Every example shown is run by `test/cli/help-examples.test.ts` (`make walkthrough`) in a
 * scratch folder whose `config/sandbox.json` reaches a test sandbox, and must not exit 2 (bad
 * input).
 */
import type { CommandNode, Flag } from "./CommandTree.js"
import { wrap } from "./Terminal.js"

export const PROGRAM = "estate-etl"
/** Help lines are at most this wide unless told otherwise (`Format.outputWidth`). */
const DEFAULT_WIDTH = 100

/** Where an example starts: `estate-etl`, after any `NAME=value` environment settings. */
const EXAMPLE_START = `(?=(?:[A-Z_][A-Z0-9_]*=\\S*\\s+)*${PROGRAM}(?:\\s|$))`
const EXAMPLES = new RegExp(`\\s*\\bExamples?:\\s+${EXAMPLE_START}`)
const BETWEEN = new RegExp(`;\\s+${EXAMPLE_START}`)

/** A description as what the command does and its examples. */
export const splitExamples = (description: string): { readonly summary: string; readonly examples: ReadonlyArray<string> } => {
  const m = EXAMPLES.exec(description)
  if (!m) return { summary: description.trim(), examples: [] }
  const tail = description.slice(m.index + m[0].length)
  return {
    summary: description.slice(0, m.index).trim(),
    examples: tail
      .split(BETWEEN)
      .map((e) => e.trim())
      .filter((e) => e !== "")
  }
}

/** The examples a node's help shows: its own, else (a group) the first of each subcommand's. */
export const examplesOf = (node: CommandNode): ReadonlyArray<string> => {
  const own = splitExamples(node.description).examples
  if (own.length > 0 || node.children.size === 0) return own
  return [...node.children.values()].flatMap((c) => examplesOf(c).slice(0, 1))
}

/** The first sentence of a summary, for lists of commands. */
const firstSentence = (text: string) => /^(.*?)\.(?:\s|$)/.exec(text)?.[1] ?? text

/** `text` cut to `width` characters, with an ellipsis when cut. */
export const ellipsis = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`)

/** Two columns: names left, text right (wrapped under itself). */
const columns = (rows: ReadonlyArray<readonly [string, string]>, width: number, maxLeft = 30): Array<string> => {
  const left = Math.min(maxLeft, Math.max(0, ...rows.map(([l]) => l.length)))
  const indent = " ".repeat(2 + left + 2)
  return rows.flatMap(([l, text]) => {
    const body = wrap(text, Math.max(20, width - indent.length))
    if (l.length > left) return [`  ${l}`, ...body.map((b) => indent + b)]
    return body.length === 0 ? [`  ${l}`] : [`  ${l.padEnd(left)}  ${body[0]}`, ...body.slice(1).map((b) => indent + b)]
  })
}

const flagLabel = (f: Flag) => {
  const names = [...f.names].sort((a, b) => a.length - b.length).join(", ")
  const value = f.value === undefined ? "" : ` <${f.value.replace(/\s*\|\s*/g, "|")}>`
  return `${names}${value}${f.repeated ? "..." : ""}`
}

const usageOf = (node: CommandNode, path: ReadonlyArray<string>) => {
  const args = node.args.map((a) => {
    const one = `${a.name}${a.repeated ? "..." : ""}`
    return a.optional ? `[${one}]` : one
  })
  const command = [PROGRAM, ...path].join(" ")
  if (node.children.size > 0) return `${command} <command> [options]`
  return [command, ...(node.flags.length > 0 ? ["[options]"] : []), ...args].join(" ")
}

/** The built-in flags the root's help lists (every command takes `--help`). */
const ROOT_BUILT_INS: ReadonlyArray<readonly [string, string]> = [
  ["--completions <bash|zsh|fish>", 'Print a shell completion script (see README, "Shell completion")'],
  ["--version", "Print the version"]
]

/**
 * The help of the command at `path` below the root (`[]`: the program), in lines of at most
 * `width` characters (but for a word longer than that); headings in bold when `colour`.
 */
export const helpText = (
  root: CommandNode,
  node: CommandNode,
  path: ReadonlyArray<string>,
  options: { readonly colour: boolean; readonly width?: number | undefined }
): string => {
  const width = options.width ?? DEFAULT_WIDTH
  const heading = (h: string) => (options.colour ? `\x1b[1m${h}\x1b[0m` : h)
  const { summary } = splitExamples(node.description)
  const out: Array<string> = [`${heading("Usage:")} ${usageOf(node, path)}`, "", ...wrap(summary, width)]
  if (node.children.size > 0) {
    out.push("", heading("Commands:"))
    out.push(
      ...columns(
        [...node.children.values()].map(
          (c) => [c.name, ellipsis(firstSentence(splitExamples(c.description).summary), width - 20)] as const
        ),
        width,
        16
      ).map((l) => ellipsis(l, width))
    )
  }
  const flags = node.flags.map((f) => [flagLabel(f), f.description] as const)
  const help = [
    "-h, --help",
    node.children.size > 0 ? `Show this help; ${[PROGRAM, ...path].join(" ")} <command> --help shows a command's` : "Show this help"
  ] as const
  out.push("", heading("Options:"), ...columns([...flags, ...(path.length === 0 ? ROOT_BUILT_INS : []), help], width))
  const examples = examplesOf(node)
  if (examples.length > 0) out.push("", heading(examples.length === 1 ? "Example:" : "Examples:"), ...examples.map((e) => `  ${e}`))
  if (path.length > 0 && root !== node) out.push("", `Exit codes: see ${PROGRAM} --help.`)
  return out.join("\n") + "\n"
}
