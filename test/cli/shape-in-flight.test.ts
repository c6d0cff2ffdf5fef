/**
 * Never pay twice for an answer of an unexpected shape. Under the `results-key` dialect every
 * seller-leads answer keeps its list under `items`, so each stops its run (exit 7) once paid. A
 * rerun stops at once on the answer it reuses from the archive, while its other points' calls are
 * out (the sandbox charges, then answers slowly): those answers are paid too, and each must be
 * archived with its request, so no later rerun buys it again. Once `service.shapes` says `items`,
 * a rerun lands every point from the archive at 0 units.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { cli } from "../support/inProcessCli.js"
import { queryWarehouse } from "../support/queryWarehouse.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"
import { settingsFile } from "../support/cli.js"

const POINTS = [
  { latitude: 40.42, longitude: -3.7 },
  { latitude: 52.52, longitude: 13.405 },
  { latitude: 48.86, longitude: 2.35 }
]

describe("answers of an unexpected shape bought beside a reused one", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeEach(async () => {
    sandbox = await startTestSandbox({
      world: { properties: 2_000 },
      dialect: "results-key",
      faults: { platform: { slowRate: 1, slowMs: 300, slowAfterAnswer: true } }
    })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-shape-flight-"))
  })
  afterEach(async () => {
    await sandbox?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("archives every paid answer that stopped a slice: reruns buy each once, the fixed shape lands them at 0 units", async () => {
    const config = settingsFile(dir, sandbox, { budget: { paidInFlight: 3 } })
    const run = (points: ReadonlyArray<(typeof POINTS)[number]>, extra: ReadonlyArray<string> = []) =>
      cli(["run", "seller-leads", "--config", config, "-p", `points=${JSON.stringify(points)}`, "-p", "concurrency=3", ...extra])
    const archived = async () =>
      Number(
        (
          await queryWarehouse(path.join(dir, "warehouse.duckdb"), [
            `SELECT count(DISTINCT request_key)::INTEGER AS n FROM _raw_pages WHERE operation = 'seller_leads'`
          ])
        )[0]![0]!.n
      )

    // the first point alone: its answer stops the run and is archived
    const first = await run(POINTS.slice(0, 1))
    expect(first.code, first.stderr).toBe(7)
    expect(totalUnits(sandbox)).toBe(1)
    // all three: the reused answer stops the run at once, the two others were sent beside it
    for (let i = 0; i < 3; i++) {
      const again = await run(POINTS, ["--restart"])
      expect(again.code, again.stderr).toBe(7)
      // every answer the sandbox charged is in the archive: none is bought twice
      expect(totalUnits(sandbox)).toBe(await archived())
    }
    expect(totalUnits(sandbox)).toBeLessThanOrEqual(POINTS.length)

    // the shape fixed: every point's leads from the archive, nothing bought
    const bill = totalUnits(sandbox)
    fs.writeFileSync(
      config,
      JSON.stringify({
        ...JSON.parse(fs.readFileSync(config, "utf8")),
        service: { ...JSON.parse(fs.readFileSync(config, "utf8")).service, shapes: { seller_leads: { results: "items" } } }
      })
    )
    sandbox.control.setFaults("platform", {})
    const fixed = await run(POINTS, ["--restart"])
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(totalUnits(sandbox) - bill).toBe(POINTS.length - bill)
  }, 60_000)
})
