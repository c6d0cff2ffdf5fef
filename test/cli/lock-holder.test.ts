/**
 * Who holds a warehouse, in words, when no run-state file names it (another command, or a run that
 * has not written its file yet): the holder's PID and its command line as the system shows it,
 * the CLI's as `estate-etl <args>`, anything like a credential redacted.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { holderOf } from "../../src/cli/LockWait.js"

describe("holderOf without a run-state file", () => {
  const children: Array<ReturnType<typeof spawn>> = []
  afterEach(() => {
    for (const c of children.splice(0)) c.kill("SIGKILL")
  })
  const sleeper = (script: string, args: ReadonlyArray<string>) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: "ignore" })
    children.push(child)
    return child.pid!
  }

  it.runIf(fs.existsSync("/proc/self/cmdline"))("names the PID and its command line, the CLI's as estate-etl", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-holder-"))
    const main = path.join(dir, "main.js")
    fs.writeFileSync(main, "setTimeout(() => {}, 30_000)\n")
    const warehouse = path.join(dir, "w.duckdb")
    const pid = sleeper(main, ["run", "plots-germany", "--param", "token=sk_live_0123456789abcdef0123"])
    const held = holderOf(warehouse, pid)
    expect(held.run).toBeUndefined()
    expect(held.text).toMatch(new RegExp(`^PID ${pid} \\(estate-etl run plots-germany --param token=`))
    expect(held.text).not.toContain("sk_live_0123456789abcdef0123")
    expect(holderOf(warehouse, undefined).text).toBe("another process")
    // any process, on one line: a script given with -e spans lines
    const script = sleeper("-e", ["setTimeout(() => {}, 30_000)\n// a second line"])
    const other = holderOf(warehouse, script).text
    expect(other).toMatch(new RegExp(`^PID ${script} \\(node -e setTimeout\\(\\(\\) => \\{\\}, 30_000\\) // a second line\\)$`))
    expect(other).not.toContain("\n")
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
