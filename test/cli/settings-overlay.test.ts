/**
 * Settings overlays per environment, through the CLI (its entry, in this process) run in a data
 * repository's folder:
 * `--env production` (anywhere on the line) or `ESTATE_ETL_ENV` lays `config/production.json`
 * over `estate-etl.json` (objects merge member by member, arrays replace), the flag wins over the
 * variable, `config show` names the overlay as the source of what it sets, and commands run with
 * the merged settings. A name without an overlay is exit 2 naming the flag or variable, with "did
 * you mean" and the overlays there are (templates, the schema and the settings file itself are
 * none); a credential in an overlay is refused naming the overlay.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cli as runCli } from "../support/inProcessCli.js"

interface ShownValue {
  readonly value: unknown
  readonly source: string
  readonly file?: string
  readonly env?: string
  readonly via?: string
}
interface Shown {
  readonly overlay: { readonly path: string; readonly name: string; readonly source: string; readonly name2?: string } | null
  readonly settings: Record<string, ShownValue>
}

describe("settings overlays per environment", () => {
  let dir: string
  const write = (file: string, json: unknown) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), JSON.stringify(json, null, 2))
  }
  const cli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) =>
    runCli(args, { ESTATE_ETL_ENV: "", ...env }, { cwd: dir })
  const shown = async (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
    const r = await cli(["config", "show", "--json", ...args], env)
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout) as Shown
  }

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-overlay-"))
    fs.mkdirSync(path.join(dir, ".git")) // the settings root: nothing above is looked at
    write("estate-etl.json", {
      service: { target: "sandbox", timeoutMs: 20000 },
      budget: { maxUnits: 7, retryRatio: 0.2 },
      sets: { nightly: ["references", "plots-germany"] }
    })
    write("config/production.json", { budget: { maxUnits: 99 }, sets: { nightly: ["references"] } })
    write("config/staging.json", { budget: { maxUnits: 11 } })
    write("config/remote.example.json", { service: { target: "remote" } })
    write("config/leaky.json", { service: { apiKey: "sk_live_0123456789abcdef0123" } })
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("lays the overlay over the settings file and names it as the source of what it sets", async () => {
    const prod = await shown(["--env", "production"])
    expect(prod.overlay).toEqual({ path: "config/production.json", name: "production", via: "flag --env" })
    expect(prod.settings["budget.maxUnits"]).toMatchObject({
      value: 99,
      source: "overlay",
      file: "config/production.json",
      env: "production"
    })
    // a member the overlay leaves out keeps the file's value; arrays replace, not concatenate
    expect(prod.settings["budget.retryRatio"]).toMatchObject({ value: 0.2, source: "file", file: "estate-etl.json" })
    expect(prod.settings["service.timeoutMs"]).toMatchObject({ value: 20000, source: "file" })
    expect(prod.settings["sets.nightly"]).toMatchObject({ value: ["references"], source: "overlay" })
    expect(prod.settings["budget.paidInFlight"]).toMatchObject({ source: "default" })

    // the variable, and the flag over it; the flag before the subcommand too
    const staging = await shown([], { ESTATE_ETL_ENV: "staging" })
    expect(staging.settings["budget.maxUnits"]).toMatchObject({ value: 11, source: "overlay", via: "ESTATE_ETL_ENV" })
    const both = await cli(["--env=production", "config", "show", "--json"], { ESTATE_ETL_ENV: "staging" })
    expect(both.code, both.stderr).toBe(0)
    expect((JSON.parse(both.stdout) as Shown).settings["budget.maxUnits"]).toMatchObject({ value: 99, via: "--env" })
    // without either: the file alone
    expect((await shown([])).settings["budget.maxUnits"]).toMatchObject({ value: 7, source: "file" })
    expect((await shown([])).overlay).toBeNull()

    const text = await cli(["config", "show", "--env", "production"])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^overlay: config\/production\.json \(--env production\), laid over the settings file$/m)
    expect(text.stdout).toMatch(/^budget\.maxUnits\s+overlay config\/production\.json \(--env production\)\s+99$/m)
    const viaEnv = await cli(["config", "show"], { ESTATE_ETL_ENV: "staging" })
    expect(viaEnv.stdout).toMatch(/^budget\.maxUnits\s+overlay config\/staging\.json \(ESTATE_ETL_ENV=staging\)\s+11$/m)

    // a command runs with the merged settings: production's nightly is references alone
    const plan = await cli(["plan", "nightly", "--env", "production"])
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.stdout).toMatch(/^references\b/m)
    expect(plan.stdout).not.toMatch(/plots-germany/)
  }, 120_000)

  it("refuses a name without an overlay (did you mean, the overlays there are) and a credential in one, exit 2", async () => {
    const [typo, fromEnv, bare, leaky] = await Promise.all([
      cli(["config", "show", "--env", "prodution"]),
      cli(["plan", "nightly"], { ESTATE_ETL_ENV: "qa" }),
      cli(["config", "show", "--env"]),
      cli(["config", "show", "--env", "leaky"])
    ])
    for (const r of [typo, fromEnv, bare, leaky]) expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(typo.stderr).toMatch(
      /^error: --env: no overlay "prodution": .*config\/prodution\.json does not exist; did you mean production\?; overlays in .*config: leaky, production, staging$/m
    )
    expect(fromEnv.stderr).toMatch(/^error: ESTATE_ETL_ENV: no overlay "qa": .*; overlays in .*config: leaky, production, staging$/m)
    expect(bare.stderr).toMatch(/^error: --env: needs an environment's name/m)
    expect(leaky.stderr).toMatch(/config\/leaky\.json/)
    expect(leaky.stderr).not.toContain("sk_live_0123456789abcdef0123")
    for (const r of [typo, fromEnv, bare, leaky]) expect(r.stderr.trim().split("\n")).toHaveLength(1)
  }, 60_000)
})
