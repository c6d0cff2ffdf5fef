/**
 * Builds the compiled CLI once per test run (`dist/`, as `make` builds it at setup): the suites
 * that drive the real CLI as child processes run `node dist/bundle/main.js`, what users run.
 * `make test` builds it beside the typecheck (two tsc programs on two cores) before vitest starts;
 * then `dist/.build-stamp` is newer than every source and the build is not repeated here.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")
const stamp = path.join(root, "dist/.build-stamp")

/** The newest modification time under the build's inputs. */
const newestInput = (): number => {
  let newest = 0
  const visit = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false })
    if (!st) return
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e))
    else newest = Math.max(newest, st.mtimeMs)
  }
  for (const p of ["src", "pipelines", "scripts/bundle.mjs", "tsconfig.json", "tsconfig.build.json", "package.json"])
    visit(path.join(root, p))
  return newest
}

export default function setup() {
  const built = fs.statSync(stamp, { throwIfNoEntry: false })
  if (built && built.mtimeMs >= newestInput() && fs.existsSync(path.join(root, "dist/bundle/main.js"))) return
  execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit"
  })
  // the bundle users run (package bin and entry): scripts/bundle.mjs
  execFileSync(process.execPath, [path.join(root, "scripts/bundle.mjs")], { cwd: root, stdio: "inherit" })
  // what the Makefile's build step leaves, so make targets run by tests do not build again
  fs.writeFileSync(stamp, "")
}
