/**
 * `state copy` and `state set` through the CLI (its entry, `runCliMain`, in this process: what a
 * child process adds is the business of exit-codes and signals), against a sandbox reached as a remote
 * service: alerts run into one warehouse, their positions are copied into a new one, whose next
 * run goes on from the copied watermarks (it lands only what came after them, not the feeds'
 * history); a position is set by hand, and set back with the line the command printed. Bad input
 * (a misspelt pipeline, slice or member, a missing or the same file, a position that is neither
 * JSON nor an instant) is exit 2 with "did you mean", and nothing is written; a copy over
 * checkpoints the target has is refused unless `--replace`, which prints what it replaced, and a
 * copy into a warehouse whose last run of the pipeline would resume from its own positions is refused.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { remoteConfig, sandboxEnv } from "../support/cli.js"
import { cli as runCli } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

interface Shown {
  readonly pipelines: ReadonlyArray<{
    readonly pipeline: string
    readonly slices: ReadonlyArray<{ readonly key: string; readonly value: any; readonly watermark?: string }>
    readonly tables: ReadonlyArray<{ readonly name: string; readonly rows: number | null }>
  }>
}

describe("state copy, state set", () => {
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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-state-copy-"))
    config = remoteConfig(dir, sandbox, { pipelines: { alerts: { params: { since: "2026-05-01T00:00:00Z" } } } })
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const cli = (...args: Array<string>) => runCli([...args, "--config", config], sandboxEnv())
  const show = async (warehouse: string) => {
    const r = await cli("state", "show", "alerts", "--json", "--warehouse", warehouse)
    expect(r.code, r.stderr).toBe(0)
    return (JSON.parse(r.stdout) as Shown).pipelines[0]!
  }

  it("copies positions into a new warehouse, whose next run goes on from them; sets one and sets it back", async () => {
    const a = path.join(dir, "warehouse.duckdb")
    const b = path.join(dir, "b.duckdb")
    const first = await cli("run", "alerts")
    expect(first.code, first.stderr).toBe(0)
    const source = await show(a)
    expect(source.slices.map((s) => s.key)).toEqual(["feed=1", "feed=2"])
    const landedInA = source.tables.find((t) => t.name === "alerts")!.rows!
    expect(landedInA).toBeGreaterThan(0)

    // bad input: exit 2, one line, nothing created or written
    const bad = await Promise.all([
      cli("state", "copy", "alrets", "--from", a, "--to", b),
      cli("state", "copy", "alerts", "--from", path.join(dir, "nope.duckdb"), "--to", b),
      cli("state", "copy", "alerts", "--from", a, "--to", a),
      cli("state", "copy", "plots-germany", "--from", a, "--to", b)
    ])
    for (const r of bad) expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(bad[0]!.stderr).toMatch(/unknown pipeline "alrets"; did you mean alerts\?/)
    expect(bad[1]!.stderr).toMatch(/^error: --from: .*nope\.duckdb does not exist/m)
    expect(bad[2]!.stderr).toMatch(/^error: --to: .* is the warehouse --from names/m)
    expect(bad[3]!.stderr).toMatch(/holds no checkpoints of plots-germany; it holds those of alerts/)
    expect(fs.existsSync(b)).toBe(false)

    const copied = await cli("state", "copy", "alerts", "--from", a, "--to", b)
    expect(copied.code, copied.stderr).toBe(0)
    expect(copied.stdout).toContain(`alerts: copied 2 checkpoints from ${a} to ${b} (created)`)
    const target = await show(b)
    expect(target.slices.map((s) => [s.key, s.value])).toEqual(source.slices.map((s) => [s.key, s.value]))
    expect(target.tables.find((t) => t.name === "alerts")!.rows).toBeNull() // positions, not rows

    // again: the target has them now; without --replace nothing is copied
    const again = await cli("state", "copy", "alerts", "--from", a, "--to", b)
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/already holds 2 checkpoints of alerts \(feed=1, feed=2\); nothing copied; --replace replaces them/)

    // the next run into b goes on from the copied watermarks: the feeds' history is not read again
    const next = await cli("run", "alerts", "--warehouse", b)
    expect(next.code, next.stderr).toBe(0)
    const afterRun = await show(b)
    expect(afterRun.tables.find((t) => t.name === "alerts")!.rows ?? 0).toBeLessThan(landedInA / 4)

    // set: bad input first (the position's syntax before the warehouse is even looked for); one
    // at a time, as each opens the warehouse to write
    const badSet = []
    for (const args of [
      ["alerts", "feed=1", "yesterday", "--warehouse", path.join(dir, "none.duckdb")],
      ["alerts", "feed=3", "2026-05-20", "--warehouse", b],
      ["alerts", "feed=1", `{"windows":[],"offset":0,"watermak":"2026-05-20T00:00:00.000Z","declared":1}`, "--warehouse", b],
      ["alrets", "feed=1", "2026-05-20", "--warehouse", b]
    ])
      badSet.push(await cli("state", "set", ...args))
    for (const r of badSet) expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(badSet[0]!.stderr).toMatch(/^error: position: "yesterday" is not a position; give a JSON object/m)
    expect(badSet[1]!.stderr).toMatch(/alerts has no slice "feed=3"; did you mean feed=1\?; its slices: feed=1, feed=2/)
    expect(badSet[2]!.stderr).toMatch(/its position has no member "watermak"; did you mean watermark\?/)
    expect(badSet[3]!.stderr).toMatch(/did you mean alerts\?/)

    const before = afterRun.slices.find((s) => s.key === "feed=1")!
    const set = await cli("state", "set", "alerts", "feed=1", "2026-05-20T00:00:00Z", "--warehouse", b)
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toContain(`alerts feed=1: position set to {`)
    const moved = (await show(b)).slices.find((s) => s.key === "feed=1")!
    expect(moved.watermark).toBe("2026-05-20T00:00:00.000Z")
    expect({ ...moved.value, watermark: before.value.watermark }).toEqual(before.value)
    // the line that sets it back, run as printed (shell-quoted, pointing where this command did)
    const back = /to set it back: estate-etl (state set .*?)\)$/m.exec(set.stdout)![1]!
    expect(back).toContain(` --config ${config} --warehouse ${b}`)
    const words = [...back.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!)
    const restored = await runCli(words, sandboxEnv())
    expect(restored.code, restored.stderr).toBe(0)
    expect((await show(b)).slices.find((s) => s.key === "feed=1")!.value).toEqual(before.value)

    // --replace: the target's positions are printed with how to set them back
    const replaced = await cli("state", "copy", "alerts", "--from", a, "--to", b, "--replace")
    expect(replaced.code, replaced.stderr).toBe(0)
    expect(replaced.stdout).toMatch(
      /^replaced:\n {2}feed=1: .*\(to set it back: estate-etl state set alerts feed=1 '.*' --config \S+ --warehouse /m
    )
    expect((await show(b)).slices.map((s) => s.value)).toEqual(source.slices.map((s) => s.value))
  }, 240_000)

  it("refuses to copy into a warehouse whose last run of the pipeline would resume from its own checkpoints", async () => {
    const from = path.join(dir, "plots-from.duckdb")
    const to = path.join(dir, "plots-to.duckdb")
    expect((await cli("run", "plots-germany", "--warehouse", from)).code).toBe(0)
    // the target's run stopped at the unit cap: paused, it would resume from its own positions
    const paused = await cli("run", "plots-germany", "--warehouse", to, "--max-units", "1", "--until-cap")
    expect(paused.code, paused.stderr).toBe(3)
    const before = await cli("state", "show", "plots-germany", "--json", "--warehouse", to)
    const r = await cli("state", "copy", "plots-germany", "--from", from, "--to", to)
    expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(r.stderr).toMatch(
      /^error: --to: plots-germany's last run in .*plots-to\.duckdb \(\S+\) is paused and would resume from its own checkpoints; .*nothing copied$/m
    )
    expect((await cli("state", "show", "plots-germany", "--json", "--warehouse", to)).stdout).toBe(before.stdout)
  }, 120_000)
})
