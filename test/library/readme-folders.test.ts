/** README's folder list names every folder of `src/`, and no other. */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")

describe("README's folders", () => {
  it("are exactly the folders of src/", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
    const start = readme.indexOf("Folders follow that path:")
    expect(start).toBeGreaterThan(0)
    const paragraph = readme.slice(start, readme.indexOf("\n\n", start))
    const named = [...new Set([...paragraph.matchAll(/`src\/([a-z]+)`/g)].map((m) => m[1]!))].sort()
    const folders = fs
      .readdirSync(path.join(ROOT, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
    expect(named).toEqual(folders)
  })
})
