/**
 * `estate-etl init` and the repository's `.gitignore`, through the CLI (its entry, in this process)
 * in a temp folder:
 * - a folder without one gets one, and git (when installed) ignores the data folder, `.env`,
 *   `node_modules/` and a warehouse's side files there, but not the files `init` writes;
 * - an existing one is never overwritten: only the lines it lacks are appended (a line it has in
 *   another spelling, `/data`, counts), and `init` says so;
 * - one that has every line is left byte for byte, `--force` or not;
 * - a refused `init` (files exist, no `--force`) writes no `.gitignore` either.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { cli } from "../support/inProcessCli.js"

/** The CLI's entry in this process (test/support/inProcessCli.ts), without credentials unless given. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, options: { readonly cwd?: string } = {}) =>
  cli(args, env, options)

const dirs: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-init-gitignore-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

const gitignore = (dir: string) => fs.readFileSync(path.join(dir, ".gitignore"), "utf8")
const hasGit = spawnSync("git", ["--version"]).status === 0

describe("init writes a .gitignore", () => {
  it("writes one where there is none; git ignores data/, .env, node_modules/ and side files, not init's files", async () => {
    const dir = tempDir()
    const r = await runCli(["init"], {}, { cwd: dir })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^wrote \.gitignore\s+keeps data\/, \.env, node_modules\//m)
    const lines = gitignore(dir).split("\n")
    for (const l of ["data/", ".env", "node_modules/", "*.duckdb.wal", "*.duckdb.tmp", "*.duckdb.journal/"]) expect(lines).toContain(l)
    // the credentials' file: the CLI reads .env itself, no export
    expect(fs.readFileSync(path.join(dir, ".env.example"), "utf8")).toMatch(/reads \.env itself/)
    if (!hasGit) return
    expect(spawnSync("git", ["init", "-q"], { cwd: dir }).status).toBe(0)
    const ignored = (p: string) => spawnSync("git", ["check-ignore", "-q", "--no-index", p], { cwd: dir }).status === 0
    for (const p of [
      "data/warehouse.duckdb",
      "data/raw/x.json.gz",
      "data/parquet/plots/part-0.parquet",
      ".env",
      "node_modules/estate-etl/package.json",
      "elsewhere/w.duckdb.wal",
      "elsewhere/w.duckdb.tmp",
      "elsewhere/w.duckdb.journal/000001.ndjson"
    ])
      expect(ignored(p), p).toBe(true)
    for (const p of ["estate-etl.json", "estate-etl.mk", ".env.example", "pipelines/price-drops.mjs", "config/remote.example.json"])
      expect(ignored(p), p).toBe(false)
  })

  it("appends only the lines an existing .gitignore lacks, keeps its own, and says so", async () => {
    const dir = tempDir()
    // no final newline; data/ spelt /data
    const before = "# mine\ndist/\n/data"
    fs.writeFileSync(path.join(dir, ".gitignore"), before)
    const r = await runCli(["init"], {}, { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      "appended to .gitignore (it existed; its own lines kept): .env, node_modules/, *.duckdb.wal, *.duckdb.tmp, *.duckdb.journal/"
    )
    const after = gitignore(dir)
    expect(after.startsWith(before + "\n\n")).toBe(true)
    const added = after.slice(before.length).split("\n")
    expect(added).not.toContain("data/")
    for (const l of [".env", "node_modules/", "*.duckdb.wal", "*.duckdb.tmp", "*.duckdb.journal/"]) expect(added).toContain(l)
    expect(after.endsWith("\n")).toBe(true)

    // every line there: left as it is, --force (which overwrites init's other files) included
    const again = await runCli(["init", "--force"], {}, { cwd: dir })
    expect(again.code).toBe(0)
    expect(again.stdout).toContain("kept .gitignore as it was")
    expect(gitignore(dir)).toBe(after)
  })

  it("a refused init writes no .gitignore", async () => {
    const dir = tempDir()
    expect((await runCli(["init"], {}, { cwd: dir })).code).toBe(0)
    fs.rmSync(path.join(dir, ".gitignore"))
    const r = await runCli(["init"], {}, { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/exist already; nothing written/)
    expect(fs.existsSync(path.join(dir, ".gitignore"))).toBe(false)
  })
})
