/**
 * Where a run is pointed (issue 30, item 8), through the CLI (its entry, in this process): its
 * first line names the service or the embedded sandbox and the settings it read; from a sub-folder
 * the settings above are found as git finds its root (and `data/` lands at that root); a remote run
 * without its credentials stops with exit 5 before anything is written or paid.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sandboxEnv } from "../support/cli.js"
import { cli } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

/** The CLI's entry in this process (test/support/inProcessCli.ts), without credentials unless given. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, options: { readonly cwd?: string } = {}) =>
  cli(args, env, options)

describe("where a run is pointed", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let root: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 200 } })
    root = fs.mkdtempSync(path.join(os.tmpdir(), "estate-pointed-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(root, { recursive: true, force: true })
  })

  /** A data repository: `.git`, `estate-etl.json` at its root pointing at the test sandbox, and a deep sub-folder. */
  const repository = (name: string) => {
    const repo = path.join(root, name)
    fs.mkdirSync(path.join(repo, ".git"), { recursive: true })
    fs.mkdirSync(path.join(repo, "notebooks/2026"), { recursive: true })
    fs.writeFileSync(
      path.join(repo, "estate-etl.json"),
      JSON.stringify({ service: { target: "remote", platformUrl: sandbox.platformUrl, apiUrl: sandbox.apiUrl } })
    )
    return repo
  }

  it("from a sub-folder: the settings above it, data/ at the root, and a first line naming the service", async () => {
    const repo = repository("sub")
    const r = await runCli(["run", "references"], sandboxEnv(), { cwd: path.join(repo, "notebooks/2026") })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stderr.split("\n")
    expect(lines[0]).toBe(
      `settings: ${path.join(repo, "estate-etl.json")} (found above ${path.join(repo, "notebooks/2026")}; relative paths are from ${repo})`
    )
    const target = JSON.parse(lines[1]!) as Record<string, unknown>
    expect(target).toMatchObject({ type: "target", target: "remote", settings: "estate-etl.json" })
    expect(String(target.platformUrl)).toContain(new URL(sandbox.platformUrl).host)
    expect(target.warehouse).toBe(path.join(repo, "data/warehouse.duckdb"))
    expect(fs.existsSync(path.join(repo, "data/warehouse.duckdb"))).toBe(true)
    expect(fs.existsSync(path.join(repo, "notebooks/2026/data"))).toBe(false)
  })

  it("a repository without settings stops the search at its root: the embedded sandbox, said in the first line", async () => {
    const outer = repository("outer")
    const inner = path.join(outer, "vendor/inner")
    fs.mkdirSync(path.join(inner, ".git"), { recursive: true })
    const r = await runCli(["run", "references"], {}, { cwd: inner })
    expect(r.code, r.stderr).toBe(0)
    const target = JSON.parse(r.stderr.split("\n")[0]!) as Record<string, unknown>
    expect(target).toMatchObject({ type: "target", target: "sandbox", settings: null })
    expect(String(target.message)).toContain(`none found (no estate-etl.json or config/sandbox.json in ${inner}`)
    expect(fs.existsSync(path.join(inner, "data/warehouse.duckdb"))).toBe(true)
    expect(fs.existsSync(path.join(outer, "data"))).toBe(false)
  })

  it("a remote run without its credentials: exit 5 naming them, nothing written, nothing paid", async () => {
    const repo = repository("bare")
    const before = sandbox.control.stats().requests
    const r = await runCli(["run", "premises-search", "references"], { SVC_API_KEY: "", SVC_EMAIL: "", SVC_PASSWORD: "" }, { cwd: repo })
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toMatch(/SVC_API_KEY.* not set .*premises-search reads/)
    expect(fs.existsSync(path.join(repo, "data"))).toBe(false)
    expect(sandbox.control.stats().requests).toEqual(before)
  })
})
