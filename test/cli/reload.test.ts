/**
 * The documented recovery for exit 7 through the CLI (its entry, in this process), against a
 * sandbox that keeps its sourcing records under `items` (dialect `results-key`): a run stops with
 * UnexpectedShape (exit 7, the paid page archived); `reload` before the settings say where the
 * records are is exit 7 again, one line naming the setting, the warehouse byte for byte as it was
 * (it used to land the whole body as one reject and exit 0); after `service.shapes` is set,
 * `reload` lands the records.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { remoteConfig, sandboxEnv } from "../support/cli.js"
import { cli } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

/** The CLI's entry in this process (test/support/inProcessCli.ts), without credentials unless given. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}, options: { readonly cwd?: string } = {}) =>
  cli(args, env, options)

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")
const pipelines = { "sourcing-search": { params: { places: [{ country: "PT" }], operation: "sale", pageSize: 20, maxPages: 2 } } }

describe("reload after an unexpected shape", () => {
  let sandbox: Sandbox
  let dir: string
  let unset: string
  let fixed: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 1500 }, dialect: "results-key" })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-reload-"))
    unset = remoteConfig(dir, sandbox, { pipelines })
    fixed = remoteConfig(dir, sandbox, {
      pipelines,
      service: { shapes: { sourcing_search: { results: "items" }, sourcing_next: { results: "items" } } }
    })
    const stopped = await runCli(["run", "sourcing-search", "--config", unset], sandboxEnv())
    expect(stopped.code, stopped.stderr).toBe(7)
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const warehouse = () => path.join(dir, "warehouse.duckdb")

  it("before service.shapes is set: exit 7, one line naming the setting, nothing landed", async () => {
    const before = sha(warehouse())
    const r = await runCli(["reload", "sourcing-search", "--config", unset], sandboxEnv())
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 7, stdout: "" })
    expect(r.stderr).toMatch(
      /^error: sourcing_search: UnexpectedShape: expected a list at "results", found nothing \(members: [^)]*items[^)]*\); .*; archived page unexpected-shape of run \S+, nothing reloaded: set service\.shapes\.sourcing_search to where this service puts it, then reload sourcing-search again \(0 units\); `estate-etl probe` checks the shape of every operation at once\n$/
    )
    expect(sha(warehouse())).toBe(before)
  })

  it("after service.shapes is set: reload lands the page that stopped the run, 0 units, exit 0", async () => {
    const r = await runCli(["reload", "sourcing-search", "--config", fixed], sandboxEnv())
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^sourcing-search\s+reload-\S+\s+\S+\s+1\s+20\s+\d+\s+0\s*$/m)
    expect(r.stdout).toContain("units spent: 0")
  })
})
