/**
 * The build ships the empty warehouse (`dist/bundle/warehouse-templates`, named after DuckDB's
 * version, the block size and the bookkeeping): the CLI's first warehouse of a process is a copy of
 * it, so a run into a new warehouse opens one DuckDB instance, its own (two before: DuckDB built the
 * empty warehouse first). Counted by a `--require` hook around `DuckDBInstance.create` in the CLI
 * process, against a sandbox reached as a remote service.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WAREHOUSE_BLOCK_SIZE } from "../../src/load/Database.js"
import { TEMPLATE_DIR, templateName } from "../../src/load/WarehouseFile.js"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { queryWarehouse } from "../support/queryWarehouse.js"
import { startTestSandbox } from "../support/sandbox.js"
import { makeTempDir } from "../support/tempDirs.js"

const ROOT = path.resolve(import.meta.dirname, "../..")

describe("the shipped empty warehouse", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { plots: 300 } })
  })
  afterAll(() => sandbox?.close())

  it("is in the build under the name of this DuckDB and bookkeeping, and a run into a new warehouse opens one instance", async () => {
    expect(fs.existsSync(path.join(ROOT, TEMPLATE_DIR, templateName(WAREHOUSE_BLOCK_SIZE)))).toBe(true)
    const dir = makeTempDir("template-")
    const hook = path.join(dir, "count-instances.cjs")
    const counted = path.join(dir, "instances")
    fs.writeFileSync(
      hook,
      `const api = require(${JSON.stringify(createRequire(import.meta.url).resolve("@duckdb/node-api"))})
const create = api.DuckDBInstance.create
let n = 0
api.DuckDBInstance.create = function (...args) { n++; return create.apply(this, args) }
process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(counted)}, String(n)))
`
    )
    const config = remoteConfig(dir, sandbox, {
      pipelines: { "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 1, sample: true } } }
    })
    const r = await runCli(["run", "plots-germany", "--config", config], sandboxEnv(), { nodeArgs: ["--require", hook] })
    expect(r.code, r.stderr.slice(-2000)).toBe(0)
    expect(fs.readFileSync(counted, "utf8")).toBe("1")
    const [[format], [runs]] = await queryWarehouse(path.join(dir, "warehouse.duckdb"), [
      `SELECT value FROM _meta WHERE key = 'format'`,
      `SELECT count(*)::INTEGER AS n FROM _runs WHERE status = 'done'`
    ])
    expect(format!.value).toBe("estate-etl-warehouse")
    expect(runs!.n).toBe(1)
  }, 60_000)
})
