/**
 * The cold start's fast path: `estate-etl --help` (of any command, or a group named alone) and a
 * plain `estate-etl list` answered without building the command line, so neither loads
 * @effect/cli, DuckDB, Arrow, the HTTP client, the sandbox or the pipelines. Help comes from the
 * command tree saved at build time (`HelpSnapshot.ts`), `list` from the built-in pipelines saved
 * at build time, the same settings and the same text as the `list` command (`ListSnapshot.ts`).
 * Anything else (other flags, a missing snapshot under tsx, a settings problem, the user's own
 * pipeline modules, a `.env` that could change the colour) answers `undefined`, and the full
 * command line runs as before, so its messages and exit codes stay the only ones.
 */
import * as fs from "node:fs"
import { helpText } from "./Help.js"
import { type NodeJson, treeOf } from "./HelpSnapshot.js"
import { colourFor, outputWidth } from "./Terminal.js"

const HELP = new Set(["--help", "-h"])

/** The built-in pipelines as `list` shows them (`ListSnapshot.ts`), written beside the bundle by the build. */
export const LIST_SNAPSHOT = "list-snapshot.json"

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

const listOf = async (args: ReadonlyArray<string>, snapshot: URL): Promise<number | undefined> => {
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
  const { listFromSnapshot } = await import("./ListSnapshot.js")
  const text = await listFromSnapshot(config, { json, wide }, snapshot)
  if (text === undefined) return undefined
  process.stdout.write(text)
  return 0
}

/** The snapshots the build writes beside the bundle: the command tree and the built-in pipelines. */
export interface Snapshots {
  readonly help: URL
  readonly list: URL
}

/** The exit code when `argv` (as in `process.argv`) was answered here, else `undefined`. */
export const fastPath = async (argv: ReadonlyArray<string>, snapshots: Snapshots): Promise<number | undefined> => {
  const args = argv.slice(2)
  if (args[0] === "list") return listOf(args, snapshots.list)
  if (args.every((a) => /^[a-z][a-z-]*$/.test(a) || HELP.has(a))) return helpOf(args, snapshots.help)
  return undefined
}
