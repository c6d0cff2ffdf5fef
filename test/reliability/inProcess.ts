/**
 * The reliability suites' helpers: the in-process CLI (`test/support/inProcessCli.ts`), the
 * sandbox's credentials, settings files and totals, a stack-trace matcher and the figures file.
 */
import * as fs from "node:fs"
import * as path from "node:path"

// one place for each: the in-process CLI, the credentials, the settings writer and the sandbox's totals
export { type Captured, cli } from "../support/inProcessCli.js"
export { sandboxEnv, settingsFile } from "../support/cli.js"
export { totalRequests, totalUnits } from "../support/sandbox.js"

/** A stack trace line, as Node prints them: never shown to a user. */
export const STACK_LINE = /^\s+at\s.+(\(|:\d+:\d+)/m

/** With RELIABILITY_FIGURES_DIR set, writes `<dir>/<name>.json` (figures for docs/RELIABILITY.md). */
export const writeFigures = (name: string, figures: unknown) => {
  const dir = process.env.RELIABILITY_FIGURES_DIR
  if (!dir) return
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ at: new Date().toISOString(), ...(figures as object) }, null, 2))
}
