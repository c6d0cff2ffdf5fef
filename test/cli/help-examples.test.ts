/**
 * Every example every `--help` shows works (`make walkthrough`; that each help is one screen with
 * examples is test/cli/help-screens.test.ts, in `make test`).
 *
 * - Each example shown is run as written, in help order (the program's, then each command's;
 *   an example shown twice runs once), in a scratch folder whose `config/sandbox.json` (the
 *   default settings file) reaches a test sandbox, with the credentials in the environment: none
 *   may exit 2 (bad input). Examples that serve until stopped (`sandbox`, `serve-alerts`) pass when
 *   they are still serving after a few seconds. The test's only adjustment: `SANDBOX_*_PORT=0`, so
 *   `estate-etl sandbox` does not need the fixed ports 8701/8702 free.
 *
 * The examples run in this process (`runCliMain`, test/support/inProcessCli.ts): some
 * thirty child processes would cost a minute of CPU; what a child process adds (colour off a
 * terminal, the help through `main.js`) is checked by test/cli/manners.test.ts.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commands } from "../../src/cli/Commands.js"
import { allPaths, commandTree, nodeAt } from "../../src/cli/CommandTree.js"
import { examplesOf } from "../../src/cli/Help.js"
import { sandboxEnv } from "../support/cli.js"
import { runExample, SERVING } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

const root = commandTree(commands)!
const paths: Array<ReadonlyArray<string>> = [[], ...allPaths(root)]

describe("every example of every help runs", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  const legacyFeeds = [
    { name: "everything", filter: {} },
    { name: "cuts", filter: { alert_subtypes: ["price_down"] } }
  ]
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 600 }, legacyFeeds })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-examples-"))
    fs.mkdirSync(path.join(dir, "config"))
    fs.writeFileSync(
      path.join(dir, "config", "sandbox.json"),
      JSON.stringify({
        service: { target: "remote", platformUrl: sandbox.platformUrl, apiUrl: sandbox.apiUrl },
        warehouse: "data/warehouse.duckdb",
        output: "data",
        // `demo` runs the nightly and weekly sets against its own in-process sandbox of the same world
        sandbox: { properties: 600, legacyFeeds },
        sets: { nightly: ["references", "plots-germany", "alerts"], weekly: ["alert-feeds"] },
        pipelines: {
          references: { params: { location_countries: ["ES"], source_location_ids: [18] } },
          "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 2, sample: true } },
          alerts: { params: { since: "2026-05-25T00:00:00Z" } },
          "market-time-series": {
            params: {
              location_ids: [18, 22],
              types: ["apartment"],
              business_type: "sale",
              data_points: ["avg_price_psqm"],
              date_interval: "month",
              date_range: { min: "2026-01-01", max: "2026-03-31" }
            }
          }
        }
      })
    )
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("none exits 2 (bad input)", async () => {
    const examples = [...new Set(paths.flatMap((p) => examplesOf(nodeAt(root, p)!)))]
    expect(examples.length).toBeGreaterThan(25)
    const env = {
      ...sandboxEnv(),
      SVC_PLATFORM_URL: "",
      SVC_API_URL: "",
      SANDBOX_PLATFORM_PORT: "0",
      SANDBOX_API_PORT: "0"
    }
    const ran: Array<string> = []
    for (const example of examples) {
      const r = await runExample(example, dir, env)
      const context = `${example}\n${r.output.slice(-2000)}\nran before:\n${ran.join("\n")}`
      expect(r.code, context).not.toBe(2)
      if (SERVING.includes(example.split(/\s+/)[1]!)) expect(r.code, context).toBe("serving")
      ran.push(`${r.code}  ${example}`)
    }
  }, 600_000)
})
