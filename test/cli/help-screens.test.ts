/**
 * Every command's `--help` is one screen: the help of the program and of each command (as
 * `Help.ts` renders it for `--help`, at 100 columns) has at most 40 lines of at most 100
 * characters, and each command has examples (test/cli/help-examples.test.ts runs every one of
 * them, in `make walkthrough`).
 */
import { describe, expect, it } from "vitest"
import { commands } from "../../src/cli/Commands.js"
import { allPaths, commandTree, nodeAt } from "../../src/cli/CommandTree.js"
import { examplesOf, helpText } from "../../src/cli/Help.js"

const root = commandTree(commands)!
const paths: Array<ReadonlyArray<string>> = [[], ...allPaths(root)]

describe("help", () => {
  it("every command's help is one screen of at most 100 columns, with examples", () => {
    expect(paths.length).toBeGreaterThan(20)
    for (const p of paths) {
      const node = nodeAt(root, p)!
      const text = helpText(root, node, p, { colour: false, width: 100 })
      const lines = text.replace(/\n$/, "").split("\n")
      const name = ["estate-etl", ...p].join(" ")
      expect(lines.length, name).toBeLessThanOrEqual(40)
      for (const l of lines) expect(l.length, `${name}: ${l}`).toBeLessThanOrEqual(100)
      expect(examplesOf(node).length, name).toBeGreaterThan(0)
      expect(text, name).toMatch(/^Examples?:\n {2}(?:[A-Z_]+=\S+ )*estate-etl /m)
    }
  })
})
