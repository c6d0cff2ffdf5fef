/**
 * The package build: `tsc -p tsconfig.build.json` then `scripts/bundle.mjs` (what `npm run build`
 * and the test run's `globalSetup.ts` do) emit declarations into `dist/src/` and the bundled
 * library entry and CLI into `dist/bundle/`, and the package.json `bin`, `types` and `exports`
 * point at them.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..")
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))

/**
 * The chunks a bundle file loads, statically or on first use (`import("./chunks/...")`), and
 * what those load in turn.
 */
const reachable = (file: string, seen = new Set<string>()): Set<string> => {
  const text = fs.readFileSync(file, "utf8")
  for (const m of text.matchAll(/(?:from |import\()"(\.{1,2}\/[^"]+\.m?js)"/g)) {
    const next = path.resolve(path.dirname(file), m[1]!)
    // a module path inside a string (the scaffold's templates) is not a chunk of the bundle
    if (!seen.has(next) && fs.existsSync(next)) {
      seen.add(next)
      reachable(next, seen)
    }
  }
  return seen
}

describe("package build", () => {
  /** A package path (`./dist/...`) in the build of this test run. */
  const built = (p: string) => path.join(root, path.normalize(p))

  it("emits the CLI, the entry point and their declarations where package.json says", () => {
    const bin = built(pkg.bin["estate-etl"])
    expect(fs.existsSync(bin)).toBe(true)
    expect(fs.readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node")).toBe(true)
    expect(fs.existsSync(built(pkg.types))).toBe(true)
    expect(built(pkg.exports["."].types)).toBe(built(pkg.types))
    const entry = built(pkg.exports["."].import)
    const dts = fs.readFileSync(built(pkg.types), "utf8")
    for (const name of ["extract", "openSession", "query", "writeArrow", "Etl", "definePipeline", "flatTable", "Settings"]) {
      expect(dts).toMatch(new RegExp(`\\b${name}\\b`))
    }
    // imported by a plain Node, as a user's script would (vitest's own import of the bundle
    // transforms every chunk again: ~5 s of the worker's CPU against ~0.9 s here)
    const lib = JSON.parse(
      execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const lib = await import(${JSON.stringify(entry)})
           console.log(JSON.stringify({ extract: typeof lib.extract, etlExtract: typeof lib.Etl.extract, catalogue: lib.catalogue.length }))`
        ],
        { cwd: root, encoding: "utf8" }
      )
    )
    expect(lib).toMatchObject({ extract: "function", etlExtract: "function" })
    expect(lib.catalogue).toBeGreaterThan(0)
    const help = execFileSync(process.execPath, [bin, "--help"], { cwd: root, stdio: "pipe" }).toString()
    expect(help).toMatch(/estate-etl/)
    // `npm run build` (what a git install runs) and `make build` run the same steps
    const makeBuild = fs.readFileSync(path.join(root, "Makefile"), "utf8").split("\n$(BUILT):")[1]!.split("\n\n")[0]!
    for (const step of (pkg.scripts.build as string).split("&&").map((x) => x.trim().replace(/^tsc /, "")))
      expect(makeBuild, step).toContain(step)
    // one copy of the library in a process: the CLI and the entry share the bundle's chunks, so a
    // user's pipeline module importing "estate-etl" meets the same classes the CLI checks against
    const reached = reachable(bin)
    expect([...reachable(entry)].filter((c) => reached.has(c)).length).toBeGreaterThan(0)
  }, 90_000)
})
