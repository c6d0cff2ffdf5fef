/**
 * `state show`, `state reset` and `drop` through the CLI (its entry, `runCliMain`, in this process;
 * the refusals while a run holds the warehouse in child processes, as another process sees it), against a sandbox reached as a
 * remote service, one warehouse through the whole story:
 * - show: checkpoints per slice (positions, alert feeds' watermarks), the last run, rows per table;
 * - reset: an unknown slice is refused with "did you mean" and the known ones; one slice forgets
 *   only its checkpoint; a full reset makes the next run start afresh (a paused run is not
 *   resumed, so other parameters are accepted); landed rows stay;
 * - drop: without --yes it says what it would drop (a preview, exit 0); a table another pipeline
 *   landed rows into is kept; with --yes the tables and checkpoints go, the run history stays; it
 *   names how the rows come back only by a command that works (`reload` is run to prove it);
 * - while a run holds the warehouse (the same DuckDB file lock a run takes) each is refused, exit 2.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { cli as inProcess } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

const pipelines = {
  "plots-germany": { params: { criteria: { regions: ["Bayern"] }, pageSize: 20, maxPages: 3, sample: true } },
  alerts: { params: { since: "2026-05-25T00:00:00Z" } },
  "alerts-search": { params: { page_size: 50, max_pages: 2, sample: true } }
}

const json = (text: string) => JSON.parse(text) as { pipelines: Array<any> }
const of = (state: { pipelines: Array<any> }, name: string) => state.pipelines.find((p) => p.pipeline === name)

describe("state show, state reset, drop", () => {
  let sandbox: Sandbox
  let dir: string
  let config: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({
      world: { properties: 600 },
      legacyFeeds: [
        { name: "everything", filter: {} },
        { name: "cuts", filter: { alert_subtypes: ["price_down"] } }
      ]
    })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-state-"))
    config = remoteConfig(dir, sandbox, { pipelines })
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const cli = (...args: Array<string>) => inProcess([...args, "--config", config], sandboxEnv())
  const child = (...args: Array<string>) => runCli([...args, "--config", config], sandboxEnv())

  it("shows, resets and drops; refuses while a run holds the warehouse", async () => {
    // plots-germany stops paused at the cap (1 of 3 pages); alerts and alerts-search finish
    const first = await cli("run", "alerts", "alerts-search", "plots-germany", "--max-units", "1", "--until-cap")
    expect(first.code, first.stderr).toBe(3)

    // readers at once (DuckDB lets several processes open a file read-only)
    const [shown, text, noSuch] = await Promise.all([
      cli("state", "show", "--json"),
      cli("state", "show", "alerts"),
      cli("state", "show", "plots-germny")
    ])
    expect(shown.code, shown.stderr).toBe(0)
    const before = json(shown.stdout)
    const plots = of(before, "plots-germany")
    expect(plots.lastRun.status).toBe("paused")
    expect(plots.slices).toEqual([
      expect.objectContaining({ key: "*", done: false, value: expect.objectContaining({ inner: expect.objectContaining({ offset: 20 }) }) })
    ])
    expect(plots.tables).toEqual([
      { name: "plots", rows: 20, sharedWith: [] },
      { name: "plot_agency_links", rows: expect.any(Number), sharedWith: [] }
    ])
    const alerts = of(before, "alerts")
    expect(alerts.slices.map((s: any) => s.key)).toEqual(["feed=1", "feed=2"])
    for (const s of alerts.slices) expect(s.watermark).toMatch(/^2026-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/)
    const alertRows = alerts.tables.find((t: any) => t.name === "alerts")
    expect(alertRows).toMatchObject({ sharedWith: ["alerts-search"] })
    expect(alertRows.rows).toBeGreaterThan(0)
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^alerts: last run \S+ done/m)
    expect(text.stdout).toMatch(/^\s+feed=1\s+yes\s+\S+\s+watermark 2026-/m)
    expect(text.stdout).toMatch(/alerts \(\d+ rows, also landed by alerts-search\)/)

    const typo = await cli("state", "reset", "alerts", "--slice", "fed=1")
    expect(typo.code).toBe(2)
    expect(typo.stderr.trim()).toBe(`error: --slice: alerts has no slice "fed=1"; did you mean feed=1?; its slices: feed=1, feed=2`)
    expect(noSuch.code).toBe(2)
    expect(noSuch.stderr).toMatch(/^error: pipeline: unknown pipeline "plots-germny"; did you mean plots-germany\?; allowed: /)

    const one = await cli("state", "reset", "alerts", "--slice", "feed=1")
    expect(one.code, one.stderr).toBe(0)
    expect(one.stdout).toMatch(/^alerts: forgot 1 checkpoint \(feed=1\)/)

    // the paused run has pageSize 20: without a reset, other parameters are refused
    const refused = await cli("run", "plots-germany", "-p", "pageSize=10", "--max-units", "3")
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/unfinished run/)
    const reset = await cli("state", "reset", "plots-germany")
    expect(reset.code, reset.stderr).toBe(0)
    expect(reset.stdout).toContain(`plots-germany: forgot 1 checkpoint; run ${plots.lastRun.runId} will not be resumed (marked failed)`)
    const afresh = await cli("run", "plots-germany", "-p", "pageSize=10", "--max-units", "3")
    expect(afresh.code, afresh.stderr).toBe(0)

    // a preview is no error (exit 0), and names only what brings the rows back: alerts keeps no raw archive
    const dry = await cli("drop", "alerts")
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: "" })
    expect(dry.stdout).toMatch(
      /^drop alerts would:\n {2}drop alert_feed_links \(\d+ rows\)\n {2}keep alerts: other pipelines landed rows into it too \(alerts-search\)\n/
    )
    expect(dry.stdout).toContain("  afterwards: `estate-etl run alerts` lands them again (the token host is not metered)\n")
    expect(dry.stdout).not.toContain("reload")
    expect(dry.stdout).toMatch(/\nnothing dropped \(a preview\); estate-etl drop alerts --yes drops what is listed above\n$/)

    // a run holds the warehouse the way this does (the DuckDB file lock, for its lifetime)
    const warehouse = path.join(dir, "warehouse.duckdb")
    const busy = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(makeWarehouse({ path: warehouse }), () =>
          Effect.promise(() =>
            Promise.all([child("state", "show"), child("state", "reset", "alerts"), child("drop", "plots-germany", "--yes")])
          )
        )
      )
    )
    for (const [r, command] of busy.map((r, i) => [r, ["state show", "state reset", "drop"][i]] as const)) {
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr.trim()).toMatch(
        new RegExp(
          `^error: ${command}: Warehouse .*warehouse\\.duckdb is in use by another process \\(PID \\d+\\), probably a run; nothing was read or changed`
        )
      )
    }

    const dropped = await cli("drop", "plots-germany", "--yes")
    expect(dropped.code, dropped.stderr).toBe(0)
    expect(dropped.stdout).toMatch(/^plots-germany: dropped plots, plot_agency_links; forgot 1 checkpoint\n/)
    const named =
      /to land the rows again: `estate-etl reload plots-germany` re-lands the (\d+) archived pages? of run (\S+) \(0 units\)/.exec(
        dropped.stdout
      )
    expect(named, dropped.stdout).not.toBeNull()

    const after = json((await cli("state", "show", "--json")).stdout)
    expect(of(after, "plots-germany")).toMatchObject({
      lastRun: { status: "done" },
      slices: [],
      tables: [
        { name: "plots", rows: null },
        { name: "plot_agency_links", rows: null }
      ]
    })
    // nothing the refused commands would have changed did change; landed alerts stay
    expect(of(after, "alerts").slices.map((s: any) => s.key)).toEqual(["feed=2"])
    expect(of(after, "alerts").tables).toEqual(alerts.tables)

    // the command the drop named works: the archived pages land again, buying nothing
    const reloaded = await cli("reload", "plots-germany")
    expect(reloaded.code, reloaded.stderr).toBe(0)
    expect(reloaded.stdout).toContain(`units spent: 0`)
    const back = of(json((await cli("state", "show", "--json")).stdout), "plots-germany")
    expect(back.tables[0]).toMatchObject({ name: "plots", rows: Number(named![1]) * 10 })
  }, 300_000)
})
