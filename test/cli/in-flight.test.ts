/**
 * A paid fan-out stopped by one broken answer: the real CLI in its own process against a sandbox
 * in this one. sourcing-properties, 40 ids, 8 slices, about one answer in 8 cut off after its
 * headers (charged, never retried), some answers slow after the sandbox charged them (a client that
 * hangs up meanwhile has paid for them).
 *
 * - With paid calls side by side (`budget.paidInFlight` 8), the calls in flight beside the broken
 *   one are read and landed, not dropped: the ledger is the sandbox's bill, and the resume buys only
 *   what did not land (before, their answers were charged and thrown away: ledger short of the bill).
 * - With the default (one paid call at a time), the other slices wait for the permit and stop there:
 *   every answer the sandbox charged landed but the broken one.
 */
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { queryWarehouse } from "../support/queryWarehouse.js"
import { startTestSandbox, totalRequests, totalUnits } from "../support/sandbox.js"
import { makeTempDir } from "../support/tempDirs.js"

const FAULTS = { truncateRate: 0.125, slowRate: 0.4, slowMs: 300, slowAfterAnswer: true }

describe("a paid fan-out stopped by a broken answer", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeEach(async () => {
    sandbox = await startTestSandbox({ seed: 4, world: { properties: 2_000 }, faults: { platform: FAULTS } })
    dir = makeTempDir("in-flight-")
  })
  afterEach(() => sandbox?.close())
  const ids = () => Array.from({ length: 40 }, (_, i) => sandbox.context.world.sourcingProperty(i).id)
  const read = async () => {
    const [[ledger], [landed]] = await queryWarehouse(path.join(dir, "warehouse.duckdb"), [
      `SELECT coalesce(sum(units), 0)::INTEGER AS units FROM _ledger`,
      `SELECT count(DISTINCT id)::INTEGER AS n FROM sourcing_property_details`
    ])
    return { ledger: Number(ledger!.units), landed: Number(landed!.n) }
  }
  const run = (config: string) =>
    runCli(["run", "sourcing-properties", "--config", config, "--param", `ids=${JSON.stringify(ids())}`], sandboxEnv())

  it("with paid calls side by side, reads the answers in flight: the ledger is the bill, and the resume buys only what did not land", async () => {
    const config = remoteConfig(dir, sandbox, { service: { platformRate: 0 }, budget: { paidInFlight: 8 } })
    const stopped = await run(config)
    expect(stopped.code, stopped.stderr.slice(-2000)).toBe(3)
    expect(stopped.stdout + stopped.stderr).toMatch(/TruncatedBody/)
    const bill = totalUnits(sandbox)
    const first = await read()
    expect(first.ledger).toBe(bill)
    // every whole answer landed; the rest of the bill is the broken ones
    const broken = bill - first.landed
    expect(broken).toBeGreaterThanOrEqual(1)

    sandbox.control.setFaults("platform", {})
    const resumed = await run(config)
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0)
    expect(totalUnits(sandbox) - bill).toBe(40 - first.landed)
    expect(await read()).toEqual({ ledger: totalUnits(sandbox), landed: 40 })
  }, 60_000)

  it("with one paid call at a time (the default), buys nothing to throw away: every answer but the broken one landed", async () => {
    const config = remoteConfig(dir, sandbox, { service: { platformRate: 0 } })
    const stopped = await run(config)
    expect(stopped.code, stopped.stderr.slice(-2000)).toBe(3)
    const { ledger, landed } = await read()
    // the sandbox answered the landed calls and the broken one, nothing else
    expect([ledger, landed + 1, totalRequests(sandbox)]).toEqual([totalUnits(sandbox), totalUnits(sandbox), totalUnits(sandbox)])
  }, 60_000)
})
