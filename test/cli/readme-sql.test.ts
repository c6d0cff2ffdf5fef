/**
 * README's SQL runs as written after `make demo`: the demo's command (`estate-etl demo --config
 * config/sandbox.json`, the embedded sandbox, a first night of both sets) in a scratch folder holding this
 * repository's settings, then every fenced `sql` block of README.md through `estate-etl query`
 * against the warehouse it left; each must exit 0 and return rows. Then `run nightly` (the
 * change-driven night) and every block again: an example that finds rows only right after the
 * demo fails too. A failure names the block by its line in README.md.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"

const ROOT = path.resolve(import.meta.dirname, "../..")

interface Block {
  readonly line: number
  readonly sql: string
}

/** The fenced `sql` blocks of a Markdown file, with the line each starts on. */
const sqlBlocks = (markdown: string): ReadonlyArray<Block> => {
  const out: Array<Block> = []
  let open: { line: number; lang: string; body: Array<string> } | undefined
  markdown.split("\n").forEach((raw, i) => {
    const fence = /^```(\S*)\s*$/.exec(raw)
    if (fence && open === undefined) open = { line: i + 1, lang: fence[1]!, body: [] }
    else if (fence && open !== undefined) {
      if (open.lang === "sql") out.push({ line: open.line, sql: open.body.join("\n") })
      open = undefined
    } else open?.body.push(raw)
  })
  return out
}

describe("README's SQL after make demo", () => {
  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-readme-sql-"))
    fs.mkdirSync(path.join(dir, "config/adhoc"), { recursive: true })
    fs.copyFileSync(path.join(ROOT, "config/sandbox.json"), path.join(dir, "config/sandbox.json"))
    fs.copyFileSync(path.join(ROOT, "config/schema.json"), path.join(dir, "config/schema.json"))
    fs.copyFileSync(path.join(ROOT, "config/adhoc/resolve-inputs.csv"), path.join(dir, "config/adhoc/resolve-inputs.csv"))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  const cli = (...args: Array<string>) => runCli([...args, "--config", "config/sandbox.json"], {}, { cwd: dir })

  /** Runs every block; the blocks that failed or found nothing, each named by its README line. */
  const failing = async (blocks: ReadonlyArray<Block>, after: string) => {
    const failed: Array<string> = []
    for (const b of blocks) {
      const r = await cli("query", b.sql, "--json")
      // one JSON object a row
      const rows =
        r.code === 0
          ? r.stdout
              .split("\n")
              .filter((l) => l.trim() !== "")
              .map((l) => JSON.parse(l) as unknown)
          : []
      if (r.code !== 0 || rows.length === 0)
        failed.push(`README.md:${b.line} (after ${after}): ${r.code !== 0 ? `exit ${r.code}: ${r.stderr.trim()}` : "no rows"}\n${b.sql}`)
    }
    return failed
  }

  it("every sql block of README.md runs and finds rows after the demo, and after a nightly run", async () => {
    const blocks = sqlBlocks(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"))
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    const demo = await cli("demo")
    expect(demo.code, demo.stderr).toBe(0)
    expect(await failing(blocks, "make demo")).toEqual([])
    const refresh = await cli("run", "nightly")
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0)
    expect(await failing(blocks, "run nightly")).toEqual([])
  }, 300_000)
})
