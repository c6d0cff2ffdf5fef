/**
 * Layers hold (issue 31, item 4): no file of `src/` or `pipelines/` imports a folder above its
 * own. Every relative import counts, as TypeScript's scanner reads them (comments and strings
 * skipped): `import ... from`, `import type`, `export ... from`, a bare `import "..."`, a dynamic
 * `import("...")` and a type's `import("...")`. docs/ARCHITECTURE.md ("Rooms") states the same.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")

/**
 * The layers, lowest first: a file may import its own layer and those below. `pipelines` is the
 * top-level folder of built-ins, `index` is `src/index.ts`, every other name a folder of `src/`.
 */
const LAYERS: ReadonlyArray<ReadonlyArray<string>> = [
  ["shared"],
  ["config"],
  ["observe"],
  ["service"],
  ["extract", "normalize"],
  ["load"],
  ["pipeline", "export"],
  ["webhooks", "report", "monitor", "scaffold", "probe"],
  ["pipelines"],
  ["wiring"],
  ["cli", "library"],
  ["index"]
]

/** The sandbox stands beside the layers: what it may import, and what may import it (and tests). */
const SANDBOX = "sandbox"
const SANDBOX_IMPORTS: ReadonlySet<string> = new Set(["shared", "config", "service"])
const SANDBOX_IMPORTERS: ReadonlySet<string> = new Set(["wiring", "cli", "library", "index"])

const levelOf = (room: string): number => LAYERS.findIndex((layer) => layer.includes(room))

/** `src/<folder>/...` -> folder, `src/index.ts` -> index, `pipelines/...` -> pipelines. */
const roomOf = (file: string): string | undefined => {
  const parts = path.relative(ROOT, file).split(path.sep)
  if (parts[0] === "pipelines") return "pipelines"
  if (parts[0] !== "src" || parts.length < 2) return undefined
  return parts.length === 2 ? parts[1]!.replace(/\.[cm]?[jt]s$/, "") : parts[1]
}

const sourcesUnder = (dir: string): Array<string> =>
  fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.join(e.parentPath, e.name))

/** The relative module paths a file's text imports. */
const relativeImports = (text: string): Array<string> =>
  ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith("./") || name.startsWith("../"))

const allowed = (from: string, to: string): boolean => {
  if (from === to) return true
  if (from === SANDBOX) return SANDBOX_IMPORTS.has(to)
  if (to === SANDBOX) return SANDBOX_IMPORTERS.has(from)
  const a = levelOf(from)
  const b = levelOf(to)
  return a >= 0 && b >= 0 && b <= a
}

/** Every import that runs up, as `file (room) -> target (room)`. */
const violations = (): Array<string> => {
  const found: Array<string> = []
  for (const file of [...sourcesUnder(path.join(ROOT, "src")), ...sourcesUnder(path.join(ROOT, "pipelines"))]) {
    const from = roomOf(file)
    if (from === undefined) continue
    for (const spec of relativeImports(fs.readFileSync(file, "utf8"))) {
      const target = path.resolve(path.dirname(file), spec)
      const to = roomOf(target)
      if (to !== undefined && !allowed(from, to)) {
        found.push(`${path.relative(ROOT, file)} (${from}) -> ${path.relative(ROOT, target)} (${to})`)
      }
    }
  }
  return found.sort()
}

describe("layers", () => {
  it("place every folder of src/", () => {
    const folders = fs
      .readdirSync(path.join(ROOT, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== SANDBOX)
      .map((e) => e.name)
    expect(folders.filter((f) => levelOf(f) < 0)).toEqual([])
  })

  it("are read from every kind of relative import, not from comments or strings", () => {
    const text = [
      `import { a } from "./a.js"`,
      `import type { B } from "../b/B.js"`,
      `export { c } from "./c.js"`,
      `export * from "./d.js"`,
      `export type { E } from "./e.js"`,
      `import "./f.js"`,
      `const g = await import("../g/G.js")`,
      `type H = import("./h.js").H`,
      `import {\n  i,\n  j\n} from "./ij.js"`,
      `// import { x } from "./commented.js"`,
      `/* import { y } from "./commented-too.js" */`,
      'const template = `import { z } from "./in-a-string.js"`',
      `import { Effect } from "effect"`
    ].join("\n")
    expect(relativeImports(text).sort()).toEqual(
      ["./a.js", "../b/B.js", "./c.js", "./d.js", "./e.js", "./f.js", "../g/G.js", "./h.js", "./ij.js"].sort()
    )
  })

  it("hold: no import runs up, and the sandbox is imported only from wiring, cli, library and index", () => {
    expect(violations()).toEqual([])
  })
})
