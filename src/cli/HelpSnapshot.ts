/**
 * The command tree (`CommandTree.ts`) as JSON, written beside the bundle at build time
 * (`scripts/bundle.mjs`: `dist/bundle/help-tree.json`), so `--help` is printed without building
 * @effect/cli's commands (`FastPath.ts`). The same tree, so the same help.
 */
import type { CommandNode } from "./CommandTree.js"

export const HELP_SNAPSHOT = "help-tree.json"

export interface NodeJson extends Omit<CommandNode, "children"> {
  readonly children: ReadonlyArray<NodeJson>
}

export const snapshotOf = (node: CommandNode): NodeJson => ({ ...node, children: [...node.children.values()].map(snapshotOf) })

export const treeOf = (json: NodeJson): CommandNode => ({
  ...json,
  children: new Map(json.children.map((c) => [c.name, treeOf(c)] as const))
})
