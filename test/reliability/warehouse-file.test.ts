/**
 * The warehouse file itself: an export killed (SIGKILL, real child process) at random instants
 * while it writes leaves every table's previous Parquet folder intact (or the complete new one),
 * and a corrupt or foreign file at the warehouse path is refused with a clear one-line message,
 * exit 2, nothing sent, the file unchanged.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { prng, spawnCli } from "../support/chaos.js"
import { startTestSandbox } from "../support/sandbox.js"
import { cli, settingsFile, STACK_LINE, totalRequests } from "./inProcess.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")

/** A folder's files (relative path -> sha256), sorted. */
const folderDigest = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out[path.relative(dir, p)] = sha(p)
    }
  }
  walk(dir)
  return out
}

const parquetRows = async (folder: string): Promise<number> => {
  const db = await DuckDBInstance.create(":memory:")
  const conn = await db.connect()
  try {
    const rows = (
      await conn.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`)
    ).getRowObjectsJS()
    return Number(rows[0]!.n)
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

describe("the warehouse file", () => {
  let sandbox: Sandbox
  let root: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 6000 } })
    root = fs.mkdtempSync(path.join(os.tmpdir(), "estate-whfile-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("an export killed while it writes leaves each table's previous Parquet files intact (or the whole new ones)", async () => {
    const dir = fs.mkdtempSync(path.join(root, "export-"))
    const config = (maxPages: number) =>
      settingsFile(
        dir,
        sandbox,
        { pipelines: { "sourcing-search": { params: { country: "ES", pageSize: 200, maxPages, sample: true } } } },
        `settings-${maxPages}.json`
      )
    expect((await cli(["run", "sourcing-search", "--config", config(1), "--export", "parquet"])).code).toBe(0)
    const parquet = path.join(dir, "parquet")
    const tables = fs.readdirSync(parquet).filter((t) => !t.startsWith("."))
    expect(tables.length).toBeGreaterThanOrEqual(2)
    const old = Object.fromEntries(tables.map((t) => [t, folderDigest(path.join(parquet, t))]))
    const oldRows = Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await parquetRows(path.join(parquet, t))] as const)))
    // more rows in the warehouse, so a new export differs from the old one
    expect((await cli(["run", "sourcing-search", "--config", config(8)])).code).toBe(0)

    const random = prng(5)
    const outcomes: Array<string> = []
    for (let k = 0; k < 3; k++) {
      const child = spawnCli(["export", "--config", config(8)])
      const delay = Math.floor(random() * 30)
      // kill a random few ms after the first temporary folder of the export appears
      const watcher = fs.watch(parquet, (_e, name) => {
        if (name && String(name).includes(".tmp-")) setTimeout(() => child.kill("SIGKILL"), delay)
      })
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_c, s) => resolve(s)))
      watcher.close()
      outcomes.push(signal ?? "finished")
      for (const t of tables) {
        const folder = path.join(parquet, t)
        expect(fs.existsSync(folder), `${t} still has a folder after kill ${k}`).toBe(true)
        const digest = folderDigest(folder)
        if (JSON.stringify(digest) !== JSON.stringify(old[t])) {
          // not the old files: then the complete new export, every row readable
          expect(await parquetRows(folder)).toBeGreaterThan(oldRows[t]!)
        }
      }
    }
    expect(outcomes.filter((o) => o === "SIGKILL").length).toBeGreaterThanOrEqual(1)
    // a later export completes and replaces every folder with the warehouse's rows
    expect((await cli(["export", "--config", config(8)])).code).toBe(0)
    for (const t of tables) expect(await parquetRows(path.join(parquet, t))).toBeGreaterThan(oldRows[t]!)
  }, 60_000)

  const refused = [
    {
      name: "a corrupt file",
      write: (f: string) => fs.writeFileSync(f, crypto.randomBytes(64 * 1024)),
      message: /not a|corrupt|readable/i
    },
    { name: "a text file", write: (f: string) => fs.writeFileSync(f, "id,name\n1,Madrid\n"), message: /not a|corrupt|readable/i },
    {
      name: "a foreign DuckDB database",
      write: async (f: string) => {
        const db = await DuckDBInstance.create(f)
        const conn = await db.connect()
        await conn.run(`CREATE TABLE customers (id INTEGER, name VARCHAR); INSERT INTO customers VALUES (1, 'Ana')`)
        conn.closeSync()
        db.closeSync()
      },
      message: /not a warehouse of this toolkit|foreign|_meta/i
    }
  ]
  for (const c of refused) {
    it(`${c.name} at the warehouse path is refused: exit 2, one clear line, nothing sent, the file unchanged`, async () => {
      const dir = fs.mkdtempSync(path.join(root, "refused-"))
      const file = path.join(dir, "warehouse.duckdb")
      await c.write(file)
      const before = sha(file)
      const config = settingsFile(dir, sandbox, { pipelines: { "plots-germany": { params: { pageSize: 5, maxPages: 1, sample: true } } } })
      for (const args of [["run", "plots-germany"], ["status"], ["export"], ["query", "SELECT 1"]]) {
        const requests = totalRequests(sandbox)
        const r = await cli([...args, "--config", config])
        expect(r.code, `${args[0]}: ${r.messages.join(" | ")}`).toBe(2)
        expect(r.messages).toHaveLength(1)
        expect(r.messages[0]).toMatch(c.message)
        expect(r.messages[0]).not.toMatch(STACK_LINE)
        expect(totalRequests(sandbox)).toBe(requests)
        expect(sha(file)).toBe(before)
      }
      expect(fs.readdirSync(dir).filter((f) => f.startsWith("warehouse.duckdb"))).toEqual(["warehouse.duckdb"])
    })
  }
})
