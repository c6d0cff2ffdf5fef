/**
 * Secrets: every command runs with known credential values (the API key, the password, a revoked
 * key, a wrong password, and every access and refresh token the token host hands out), through
 * recording proxies in front of both hosts. Zero hits in stdout, stderr, any file the runs wrote
 * (the DuckDB file - raw bytes and every table read back -, the gzip raw archive, Parquet read
 * back, Arrow files, logs), and no credential in any request URL.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REVOKED_API_KEY, SANDBOX_API_KEY, SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { startTestSandbox } from "../support/sandbox.js"
import { cli, sandboxEnv, settingsFile } from "./inProcess.js"
import { startProxy } from "./proxy.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const WRONG_PASSWORD = "wrong-password-5e1f0c7a9b"

const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    // an exported table's folder is a link to a hidden version folder, which is walked itself
    e.isSymbolicLink() ? [] : e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]
  )

/** Every table of a DuckDB file (or a Parquet file) as text, row by row. */
const textOf = async (file: string): Promise<string> => {
  const parquet = file.endsWith(".parquet")
  const db = await DuckDBInstance.create(parquet ? ":memory:" : file, parquet ? {} : { access_mode: "READ_ONLY" })
  const conn = await db.connect()
  try {
    const sources = parquet
      ? [`read_parquet('${file.replaceAll("'", "''")}')`]
      : (await conn.runAndReadAll(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'main'`))
          .getRowObjectsJS()
          .map((r) => `"${r.t}"`)
    let out = ""
    for (const s of sources)
      out += (await conn.runAndReadAll(`SELECT CAST(r AS VARCHAR) AS s FROM ${s} AS r`))
        .getRowObjectsJS()
        .map((r) => r.s)
        .join("\n")
    return out
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

describe("secrets", () => {
  let sandbox: Sandbox
  let platform: Awaited<ReturnType<typeof startProxy>>
  let token: Awaited<ReturnType<typeof startProxy>>
  let dir: string
  const tokens = new Set<string>()
  const outputs: Array<string> = []
  const codes: Record<string, number> = {}

  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    platform = await startProxy(sandbox.platformUrl)
    token = await startProxy(sandbox.apiUrl)
    // keep every token the token host issues: they are secrets too
    token.setRewrite(async (_seen, upstream) => {
      const a = await upstream()
      for (const m of a.body.matchAll(/"(?:access|refresh)(?:_token)?"\s*:\s*"([^"]{12,})"/g)) tokens.add(m[1]!)
      return a
    })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-secrets-"))
    const ids = [1, 2, 3].map((i) => sandbox.context.world.propertyIdOf(i))
    const config = settingsFile(
      dir,
      { platformUrl: platform.url, apiUrl: token.url },
      {
        pipelines: {
          "sourcing-search": { params: { country: "PT", pageSize: 5, maxPages: 2, sample: true } },
          "properties-by-id": { params: { ids } },
          "plots-germany": { params: { pageSize: 5, maxPages: 1, sample: true } }
        },
        sets: { small: ["sourcing-search", "properties-by-id", "plots-germany"] }
      }
    )
    const commands: Record<string, { args: Array<string>; env?: Record<string, string> }> = {
      list: { args: ["list", "--config", config] },
      plan: { args: ["plan", "small", "--config", config, "--json"] },
      run: { args: ["run", "small", "--config", config, "--export", "parquet"] },
      "run --json": { args: ["run", "plots-germany", "--config", config, "--json"] },
      status: { args: ["status", "--config", config, "--json"] },
      query: { args: ["query", "SELECT * FROM _runs", "--config", config, "--json"] },
      "export arrow": { args: ["export", "--config", config, "--format", "arrow"] },
      reload: { args: ["reload", "sourcing-search", "--config", config] },
      "alerts feeds list": { args: ["alerts", "feeds", "list", "--config", config, "--json"] },
      "revoked key": {
        args: ["run", "plots-germany", "--config", config, "--fresh"],
        env: { ...sandboxEnv(), SVC_API_KEY: REVOKED_API_KEY }
      },
      "wrong password": { args: ["run", "properties-by-id", "--config", config], env: { ...sandboxEnv(), SVC_PASSWORD: WRONG_PASSWORD } }
    }
    for (const [name, c] of Object.entries(commands)) {
      const r = await cli(c.args, c.env)
      codes[name] = r.code
      outputs.push(`${name}\n${r.stdout}\n${r.stderr}`)
    }
  })
  afterAll(async () => {
    await platform.close()
    await token.close()
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const secrets = () => [SANDBOX_API_KEY, SANDBOX_USER.password, REVOKED_API_KEY, WRONG_PASSWORD, ...tokens]

  it("the commands ran (the failures are the refused credentials) and the token host issued tokens", () => {
    expect(codes).toEqual({
      list: 0,
      plan: 0,
      run: 0,
      "run --json": 0,
      status: 0,
      query: 0,
      "export arrow": 0,
      reload: 0,
      "alerts feeds list": 0,
      "revoked key": 5,
      "wrong password": 5
    })
    expect(tokens.size).toBeGreaterThanOrEqual(2) // an access and a refresh token at least
  })

  it("no secret in stdout or stderr of any command", () => {
    for (const s of secrets())
      for (const o of outputs) expect(o.includes(s), `${s.slice(0, 6)}... in output of ${o.split("\n")[0]}`).toBe(false)
  })

  it("no secret in any file written: warehouse (bytes and tables), raw archive, Parquet, Arrow, logs", async () => {
    const files = filesUnder(dir).filter((f) => !f.endsWith(".json") || !path.basename(f).startsWith("settings"))
    const kinds = new Set(files.map((f) => (f.endsWith(".json.gz") ? "raw" : path.extname(f))))
    for (const k of [".duckdb", "raw", ".parquet", ".arrow"]) expect(kinds.has(k), `a ${k} file was written`).toBe(true)
    // the scan reads content: the archive holds the pages, the warehouse and Parquet their rows
    let read = ""
    for (const f of files) {
      const bytes = fs.readFileSync(f)
      const texts = [bytes.toString("latin1")]
      if (f.endsWith(".gz")) texts.push(zlib.gunzipSync(bytes).toString("utf8"))
      if (f.endsWith(".duckdb") || f.endsWith(".parquet")) texts.push(await textOf(f))
      for (const s of secrets()) for (const t of texts) expect(t.includes(s), `${s.slice(0, 6)}... in ${f}`).toBe(false)
      read += texts.slice(1).join("\n")
    }
    expect(read).toContain("sourcing-search") // _runs in the warehouse
    expect(read).toContain('"results"') // raw pages
  })

  it("no credential in a request URL; credentials travel in headers", () => {
    const seen = [...platform.seen, ...token.seen]
    expect(seen.length).toBeGreaterThan(5)
    for (const r of seen) {
      for (const s of secrets()) expect(r.url.includes(s), `${s.slice(0, 6)}... in ${r.method} ${r.url}`).toBe(false)
      expect(r.url).not.toMatch(/[?&](api_?key|key|token|access_token|password|secret)=/i)
    }
    expect(
      platform.seen.some((r) => r.headers.authorization === `Bearer ${SANDBOX_API_KEY}` || r.headers["x-api-key"] === SANDBOX_API_KEY)
    ).toBe(true)
  })
})
