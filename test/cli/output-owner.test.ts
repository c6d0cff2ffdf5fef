/**
 * Output folders are owned, through the CLI (its entry, in this process): the first warehouse
 * exporting into a folder records itself in `.estate-etl-output.json`; another warehouse exporting
 * there (`export` or `run --export`) is refused with exit 2 and one line naming both, before any
 * request, and the first warehouse's Parquet stays as it was.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { OWNER_FILE } from "../../src/export/OutputOwner.js"
import { remoteConfig, sandboxEnv } from "../support/cli.js"
import { cli } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

/** The CLI's entry in this process (test/support/inProcessCli.ts), without credentials unless given. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, options: { readonly cwd?: string } = {}) =>
  cli(args, env, options)

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const plots = { "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 2, sample: true } } }
const requests = (s: Sandbox) => Object.values(s.control.stats().requests).reduce((a, b) => a + b, 0)

/** Every file under `dir` with its size and modification time. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name)
      if (e.isDirectory()) walk(f)
      else if (e.isSymbolicLink()) out[path.relative(dir, f)] = `-> ${fs.readlinkSync(f)}`
      else {
        const st = fs.statSync(f)
        out[path.relative(dir, f)] = `${st.size}@${st.mtimeMs}`
      }
    }
  }
  walk(dir)
  return out
}

describe("output folders are owned", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-output-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("a second warehouse exporting into the same folder is refused (exit 2, one line naming both); the first one's files stay", async () => {
    const output = path.join(dir, "shared-output")
    const first = path.join(dir, "a", "warehouse.duckdb")
    const second = path.join(dir, "b", "warehouse.duckdb")
    const configA = remoteConfig(dir, sandbox, { pipelines: plots, warehouse: first, output })
    const configB = remoteConfig(dir, sandbox, { pipelines: plots, warehouse: second, output })

    const a = await runCli(["run", "plots-germany", "--config", configA, "--export", "parquet"], sandboxEnv())
    expect(a.code, a.stderr).toBe(0)
    const real = (f: string) => path.join(fs.realpathSync(path.dirname(f)), path.basename(f))
    expect(JSON.parse(fs.readFileSync(path.join(output, OWNER_FILE), "utf8")).warehouse).toBe(real(first))
    const files = snapshot(path.join(output, "parquet"))
    expect(Object.keys(files).some((f) => f.startsWith("plots"))).toBe(true)

    // run --export: refused before anything is sent
    const before = requests(sandbox)
    const b = await runCli(["run", "plots-germany", "--config", configB, "--export", "parquet"], sandboxEnv())
    expect(b.code).toBe(2)
    const line = b.stderr.split("\n").filter((l) => l.trim() !== "")
    expect(line).toHaveLength(1)
    expect(line[0]).toContain(real(first))
    expect(line[0]).toContain(real(second))
    expect(requests(sandbox)).toBe(before)

    // export of a warehouse that has data: refused too
    expect((await runCli(["run", "plots-germany", "--config", configB], sandboxEnv())).code).toBe(0)
    const e = await runCli(["export", "--config", configB])
    expect(e.code).toBe(2)
    expect(e.stderr).toContain(real(first))
    expect(e.stderr).toContain(real(second))
    expect(snapshot(path.join(output, "parquet"))).toEqual(files)

    // a table whose own name ends in _history (a demo's property_price_history) is no history export:
    // a plain export writes the current rows only
    fs.mkdirSync(path.join(output, "arrow"), { recursive: true })
    fs.writeFileSync(path.join(output, "arrow", "property_price_history.arrow"), "")
    const current = await runCli(["export", "--config", configA, "--format", "arrow"])
    expect(current.code, current.stderr).toBe(0)
    expect(fs.existsSync(path.join(output, "arrow", "plots_history.arrow"))).toBe(false)
    fs.rmSync(path.join(output, "arrow", "property_price_history.arrow"))

    // the owner exports again as before; its own folder is not refused (--history: plots keeps
    // history, so its every version is written beside its current rows; a merge table has none)
    const again = await runCli(["export", "--config", configA, "--format", "arrow", "--history"])
    expect(again.code, again.stderr).toBe(0)
    expect(fs.readdirSync(path.join(output, "arrow")).sort()).toEqual(["plot_agency_links.arrow", "plots.arrow", "plots_history.arrow"])

    // an export without --history keeps the folder's _history export current (written anew), not stale
    const historyFile = path.join(output, "arrow", "plots_history.arrow")
    const historyIno = fs.statSync(historyFile).ino
    const plain = await runCli(["export", "--config", configA, "--format", "arrow"])
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toContain("plots_history")
    expect(fs.statSync(historyFile).ino).not.toBe(historyIno)

    // a misspelt table is bad input (exit 2) with the closest name, and writes nothing
    const typo = await runCli(["export", "plotz", "--config", configA, "--format", "arrow"])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(
      /^error: export: no table plotz is declared in this warehouse; did you mean "plots"\?; tables: plot_agency_links, plots$/m
    )
  }, 180_000)
})
