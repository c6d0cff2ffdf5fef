/**
 * undici, fast-check and @effect/cli's option-file parsers (yaml, toml, ini) stay files of their
 * own, required on first use (scripts/bundle.mjs `lazyDependencies`): no chunk of the bundle holds
 * their code, and a process that loads the CLI's entry and its library has read none of them. That undici is still found when a command sends a
 * request is what every suite that runs the CLI against the sandbox proves.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
const CHUNKS = path.join(ROOT, "dist/bundle/chunks")
const LAZY = ["undici", "fast-check", "yaml", "toml", "ini"]

it("no chunk holds the code of undici, fast-check or the option-file parsers", () => {
  const chunks = fs.readdirSync(CHUNKS).filter((f) => f.endsWith(".mjs"))
  expect(chunks.length).toBeGreaterThan(5)
  for (const f of chunks) {
    const text = fs.readFileSync(path.join(CHUNKS, f), "utf8")
    for (const pkg of LAZY) expect(text.includes(`// node_modules/${pkg}/`), `${f} bundles ${pkg}`).toBe(false)
  }
})

it("loading the CLI and the library reads none of these packages from disk, and each is found where the bundle looks", () => {
  const script = `
    const { createRequire } = require("node:module")
    const req = createRequire(${JSON.stringify(path.join(CHUNKS, "x.mjs"))})
    import(${JSON.stringify(path.join(ROOT, "dist/bundle/index.mjs"))}).then(() => {
      const read = Object.keys(require.cache).filter((f) => ${JSON.stringify(LAZY)}.some((p) => f.includes("/node_modules/" + p + "/")))
      // and each is found where the bundle will look for it
      const found = [req.resolve("@effect/platform-node"), req.resolve("effect"), req.resolve("@effect/cli")].map((from) => createRequire(from))
      const parsers = ["yaml", "toml", "ini"].map((p) => typeof found[2](p).parse)
      console.log(JSON.stringify({ read, undici: !!found[0].resolve("undici"), fastCheck: !!found[1].resolve("fast-check"), parsers }))
    })`
  const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" }))
  expect(out).toEqual({ read: [], undici: true, fastCheck: true, parsers: ["function", "function", "function"] })
})
