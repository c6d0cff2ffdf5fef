import * as fs from "node:fs"
import * as nodePath from "node:path"
import { expect } from "vitest"

/**
 * The visible entries of an export folder (`<out>/parquet`), after checking that each hidden one is
 * the version folder a table's link points to (no temporary or left-over siblings).
 */
export const exportedNames = (dir: string): Array<string> => {
  const names = fs.readdirSync(dir)
  const visible = names.filter((n) => !n.startsWith(".")).sort()
  const linked = visible.flatMap((n) =>
    fs.lstatSync(nodePath.join(dir, n)).isSymbolicLink() ? [fs.readlinkSync(nodePath.join(dir, n))] : []
  )
  expect(names.filter((n) => n.startsWith(".") && n !== ".estate-etl-output.json").sort()).toEqual(linked.sort())
  return visible
}
