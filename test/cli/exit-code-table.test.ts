/**
 * One table of exit codes: README ("Running", the "Exit codes" bullet), `--help` of the real CLI
 * and `ExitCode` in src/pipeline/RunError.ts list the same codes; and SQL DuckDB refuses in
 * `query` is bad input (2) with DuckDB's own message on one line, and so are writes or reads outside the
 * warehouse, extension installs, an empty query and a damaged warehouse file.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { ExitCode } from "../../src/pipeline/RunError.js"
import { runCli } from "../support/cli.js"
import { cli } from "../support/inProcessCli.js"

/** The CLI's entry in this process: DuckDB's refusals need no child each (a damaged file and a pipe's buffer do). */
const inProcess = (args: ReadonlyArray<string>) => cli(args, {})

const ROOT = path.resolve(import.meta.dirname, "../..")

/** The rows `| code | meaning |` of the table under README's "Exit codes" bullet. */
const readmeExitCodes = (): Map<number, string> => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
  const start = readme.indexOf("- **Exit codes.**")
  expect(start, 'README has an "Exit codes" bullet').toBeGreaterThan(0)
  const rows = new Map<number, string>()
  let inTable = false
  for (const line of readme.slice(start).split("\n").slice(1)) {
    const m = /^\s*\|\s*(\d+)\s*\|\s*(.+?)\s*\|\s*$/.exec(line)
    if (m) {
      rows.set(Number(m[1]), m[2]!)
      inTable = true
    } else if (/^\s*\|/.test(line))
      continue // header and rule
    else if (inTable || /^- /.test(line)) break
  }
  return rows
}

const codesOf = (values: Iterable<number>) => [...new Set(values)].sort((a, b) => a - b)
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "")

describe("one table of exit codes", () => {
  it("README's table lists exactly the codes of ExitCode", () => {
    const readme = readmeExitCodes()
    expect(codesOf(readme.keys())).toEqual(codesOf(Object.values(ExitCode)))
    expect(readme.get(130)).toMatch(/SIGINT/)
    expect(readme.get(143)).toMatch(/SIGTERM/)
  })

  it("--help prints the same codes", async () => {
    const r = await runCli(["--help"])
    expect(r.code).toBe(0)
    const text = plain(r.stdout).replace(/\s+/g, " ")
    const m = /Exit codes: (.*?)\.(?: |$)/.exec(text)
    expect(m, '--help has an "Exit codes:" sentence').not.toBeNull()
    const listed = m![1]!.split(";").map((entry) => Number(/^\s*(\d+) /.exec(entry)?.[1]))
    expect(listed.every(Number.isInteger)).toBe(true)
    expect(codesOf(listed)).toEqual(codesOf(Object.values(ExitCode)))
    expect(codesOf(listed)).toEqual(codesOf(readmeExitCodes().keys()))
  })
})

describe("query: SQL DuckDB refuses is bad input", () => {
  let dir: string
  let warehouse: string
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-query-"))
    warehouse = path.join(dir, "warehouse.duckdb")
    await Effect.runPromise(Effect.scoped(makeWarehouse({ path: warehouse })))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  const cases: ReadonlyArray<readonly [string, RegExp]> = [
    ["SELEC 1", /^error: query: Parser Error: syntax error at or near "SELEC"$/],
    ["SELECT * FROM _runz", /^error: query: Catalog Error: Table with name _runz does not exist! Did you mean "_runs"\?$/],
    ["SELECT 'x'::INTEGER", /^error: query: Conversion Error: Could not convert string 'x' to INT32$/],
    ["DELETE FROM _runs", /^error: query: .*read-only/]
  ]
  for (const [sql, message] of cases) {
    it(`${sql} -> exit 2, DuckDB's message on one line`, async () => {
      const r = await inProcess(["query", "--warehouse", warehouse, sql])
      expect(r.code).toBe(2)
      const lines = r.stderr.split("\n").filter((l) => l.trim() !== "")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(message)
    })
  }

  it("nothing outside the warehouse: COPY TO, ATTACH, INSTALL and other files are refused (exit 2, one line, nothing written)", async () => {
    fs.writeFileSync(path.join(dir, "data.csv"), "a,b\n1,2\n")
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      [`COPY (SELECT 1 AS a) TO '${path.join(dir, "out.csv")}'`, path.join(dir, "out.csv")],
      [`COPY _runs TO '${path.join(dir, "runs.parquet")}' (FORMAT parquet)`, path.join(dir, "runs.parquet")],
      [`ATTACH '${path.join(dir, "other.duckdb")}' AS other`, path.join(dir, "other.duckdb")],
      ["INSTALL spatial", undefined],
      ["LOAD spatial", undefined],
      [`SELECT * FROM read_csv('${path.join(dir, "data.csv")}')`, undefined],
      ["SET enable_external_access = true", undefined]
    ]
    for (const [sql, file] of cases) {
      const r = await inProcess(["query", "--warehouse", warehouse, sql])
      expect(r.code, `${sql}: ${r.stderr}`).toBe(2)
      const lines = r.stderr.split("\n").filter((l) => l.trim() !== "")
      expect(lines, sql).toHaveLength(1)
      expect(lines[0], sql).toMatch(/^error: query: (reads only: .*Permission Error|Invalid Input Error: Cannot (change|enable))/)
      if (file) expect(fs.existsSync(file), file).toBe(false)
    }
  }, 120_000)

  it("an empty query (spaces, comments, semicolons) is bad input, exit 2", async () => {
    for (const sql of ["", "  ;  ", "-- nothing\n", "/* nothing */ ;"]) {
      const r = await inProcess(["query", "--warehouse", warehouse, sql])
      expect(r.code, JSON.stringify(sql)).toBe(2)
      expect(r.stderr.trim()).toBe("error: query: no SQL statement given (only spaces, comments or semicolons)")
    }
  }, 60_000)

  it("a damaged warehouse (cut short) is exit 2 with what to do, for query and status alike", async () => {
    const cut = path.join(dir, "cut.duckdb")
    fs.copyFileSync(warehouse, cut)
    fs.truncateSync(cut, Math.floor(fs.statSync(cut).size / 2))
    for (const args of [
      ["query", "--warehouse", cut, "SELECT 1"],
      ["status", "--warehouse", cut]
    ]) {
      const r = await runCli(args)
      expect(r.code, r.stderr).toBe(2)
      const lines = r.stderr.split("\n").filter((l) => l.trim() !== "")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^error: .*cut\.duckdb is damaged \(.*\).*Restore it from a backup, or move it away and run again/)
    }
  }, 60_000)

  it("good SQL still answers (exit 0), whole even beyond a pipe's buffer", async () => {
    const r = await runCli(["query", "--warehouse", warehouse, "--json", "SELECT count(*) AS n FROM _runs"])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ n: 0 })
    // about 300 KB through the pipe to this process: every row arrives
    const big = await runCli(["query", "--warehouse", warehouse, "--json", "SELECT range AS n, repeat('x', 10) AS pad FROM range(15000)"])
    expect(big.code, big.stderr).toBe(0)
    const rows = big.stdout.trim().split("\n")
    expect(rows).toHaveLength(15000)
    expect(JSON.parse(rows[14999]!)).toEqual({ n: 14999, pad: "xxxxxxxxxx" })
  }, 120_000)
})
