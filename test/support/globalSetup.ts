/**
 * Builds the compiled CLI once per test run (`dist/`, as `make` builds it at setup): the suites
 * that drive the real CLI as child processes run `node dist/src/cli/main.js`, what users run,
 * and a compiled process starts in about half the CPU of one under tsx.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export default function setup() {
  const root = path.resolve(import.meta.dirname, "../..")
  execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit"
  })
  // the bundle users run (package bin and entry): scripts/bundle.mjs
  execFileSync(process.execPath, [path.join(root, "scripts/bundle.mjs")], { cwd: root, stdio: "inherit" })
  // what the Makefile's build step leaves, so make targets run by tests do not build again
  fs.writeFileSync(path.join(root, "dist/.build-stamp"), "")
}
