/**
 * The cold start's fast path: `estate-etl --help` (of any command, or a group named alone) and a
 * plain `estate-etl list` answered without building the command line, so neither loads
 * @effect/cli, DuckDB, Arrow, the HTTP client or the sandbox. Help comes from the command tree
 * saved at build time (`HelpSnapshot.ts`), `list` from the same settings, catalogue and text as
 * the `list` command (`ListOutput.ts`). Anything else (other flags, a missing snapshot under tsx, a
 * settings problem, a `.env` that could change the colour) answers `undefined`, and the full
 * command line runs as before, so its messages and exit codes stay the only ones.
 */
import * as fs from "node:fs"
import { helpText } from "./Help.js"
import { type NodeJson, treeOf } from "./HelpSnapshot.js"
import { colourFor, outputWidth } from "./Terminal.js"

const HELP = new Set(["--help", "-h"])

const helpOf = (args: ReadonlyArray<string>, snapshot: URL): number | undefined => {
  const asked = args.length > 0 && HELP.has(args[args.length - 1]!)
  const path = asked ? args.slice(0, -1) : args
  // the colour depends on NO_COLOR, which a `.env` may set: leave that case to the full path
  if (process.stdout.isTTY && fs.existsSync(".env")) return undefined
  let json: NodeJson
  try {
    json = JSON.parse(fs.readFileSync(snapshot, "utf8")) as NodeJson
  } catch {
    return undefined
  }
  const root = treeOf(json)
  let node = root
  for (const name of path) {
    const next = node.children.get(name)
    if (!next) return undefined
    node = next
  }
  if (!asked && node.children.size === 0) return undefined
  process.stdout.write(helpText(root, node, path, { colour: colourFor(process.stdout), width: outputWidth() }))
  return 0
}

const listOf = async (args: ReadonlyArray<string>): Promise<number | undefined> => {
  let config: string | undefined
  let json = false
  let wide = false
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!
    if (a === "--json" && !json) json = true
    else if (a === "--wide" && !wide) wide = true
    else if ((a === "--config" || a === "-c") && config === undefined && i + 1 < args.length && !args[i + 1]!.startsWith("-"))
      config = args[++i]!
    else return undefined
  }
  const { listOutputOrUndefined } = await import("./ListOutput.js")
  const text = await listOutputOrUndefined(config, { json, wide })
  if (text === undefined) return undefined
  process.stdout.write(text)
  return 0
}

/** The exit code when `argv` (as in `process.argv`) was answered here, else `undefined`. */
export const fastPath = async (argv: ReadonlyArray<string>, snapshot: URL): Promise<number | undefined> => {
  const args = argv.slice(2)
  if (args[0] === "list") return listOf(args)
  if (args.every((a) => /^[a-z][a-z-]*$/.test(a) || HELP.has(a))) return helpOf(args, snapshot)
  return undefined
}
