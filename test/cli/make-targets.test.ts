/**
 * Every make target works on a fresh clone against a fresh warehouse: `make -C <repo> <target>
 * CONFIG=<settings>` with the shipped `config/sandbox.json` pointed at a temporary warehouse and
 * output folder (and a small sandbox world, for speed). Targets run one after another, in the
 * order a user would: `plan` before anything ran (it must not fail on tables an earlier pipeline
 * of the set creates, nor create the warehouse), then the sets, then `status`; and every
 * `extract-*` target against a second fresh warehouse, the ones reading keys from an earlier
 * table first (they land nothing and say which table to fill first). The extract targets are one
 * pattern rule: every one expands (`make -n`) to `run <pipeline>`, and a few run for real (the key
 * readers and one pipeline of each host); each pipeline's own run is the business of its own test
 * and of the dialect matrix, which run every one of them.
 *
 * Not run here: demo, test, unit, typecheck, bench, spend (the suite runs its tests), chaos,
 * sandbox, clean, build, setup. The
 * install step (`node_modules/.deps-stamp`) is taken as done (`make -o`).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { catalogue } from "../../pipelines/index.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const EXCLUDED = [
  "demo",
  "test",
  // the fast loop runs the unit tests (this suite's own share); browser installs chromium as root
  "check",
  "check-unit",
  "browser",
  "unit",
  "typecheck",
  "format",
  "format-check",
  "bench",
  "spend",
  "chaos",
  // runs this suite
  "walkthrough",
  "sandbox",
  "clean",
  "build",
  "setup"
]

/** The targets declared `.PHONY` in the Makefile (continuation lines joined). */
const phonyTargets = (): Array<string> => {
  const text = fs.readFileSync(path.join(ROOT, "Makefile"), "utf8").replace(/\\\n/g, " ")
  const line = text.split("\n").find((l) => l.startsWith(".PHONY:"))!
  return line.slice(".PHONY:".length).trim().split(/\s+/)
}

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly seconds: number
}

const make = (target: string, config: string, flags: ReadonlyArray<string> = []): Promise<Outcome> =>
  new Promise((resolve) => {
    const started = Date.now()
    const env: NodeJS.ProcessEnv = { ...process.env, SVC_PLATFORM_URL: "", SVC_API_URL: "" }
    delete env.MAKEFLAGS
    delete env.MAKELEVEL
    delete env.MFLAGS
    const child = spawn("make", ["-s", "-C", ROOT, "-o", "node_modules/.deps-stamp", ...flags, target, `CONFIG=${config}`], {
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, seconds: (Date.now() - started) / 1000 })
    })
  })

/** config/sandbox.json with its warehouse and output in `dir` and a small sandbox world. */
const settingsIn = (dir: string): string => {
  const settings = JSON.parse(fs.readFileSync(path.join(ROOT, "config/sandbox.json"), "utf8"))
  delete settings.$schema
  settings.warehouse = path.join(dir, "warehouse.duckdb")
  settings.output = path.join(dir, "out")
  settings.sandbox = { ...settings.sandbox, properties: 500 }
  // a few pages are enough to show the target works: a sample (without it, a read cut short is exit 6)
  settings.pipelines = { ...settings.pipelines, "alerts-search": { params: { max_pages: 2, sample: true } } }
  const file = path.join(dir, "settings.json")
  fs.writeFileSync(file, JSON.stringify(settings, null, 2))
  return file
}

/** Extract targets reading their keys from a table another pipeline writes: run first on a fresh warehouse. */
const KEY_READERS = ["extract-sourcing-properties", "extract-properties-by-id", "extract-properties-match"]
/** Extract targets run for real besides the key readers: one on each host. */
const RUN_FOR_REAL = ["extract-plots-germany", "extract-references"]

describe("every make target works on a fresh clone", () => {
  let dir: string
  const timings: Array<string> = []
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-make-"))
  })
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true })
    process.stdout.write(`make targets: ${timings.join(", ")}\n`)
  })

  const expectOk = async (target: string, config: string) => {
    const r = await make(target, config)
    timings.push(`${target} ${r.seconds.toFixed(1)}s`)
    expect(r.code, `make ${target}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`).toBe(0)
    return r
  }

  it("runs each target (but the excluded ones), the sets and status on one warehouse, the extracts on another", async () => {
    // one `extract-%` pattern rule: a target per pipeline of the catalogue
    expect(fs.readFileSync(path.join(ROOT, "Makefile"), "utf8")).toMatch(/^extract-%: /m)
    const extracts = catalogue.map((p) => `extract-${p.name}`)
    const others = phonyTargets().filter((t) => !EXCLUDED.includes(t))
    expect(others.sort()).toEqual(["nightly", "plan", "status", "weekly"])
    for (const k of KEY_READERS) expect(extracts).toContain(k)

    // the sets: plan on a fresh clone (no warehouse yet), nightly, weekly, status
    const a = fs.mkdtempSync(path.join(dir, "sets-"))
    const configA = settingsIn(a)
    // the night's plan, then the week's full pull
    const plan = await expectOk("plan", configA)
    expect(plan.stdout).toMatch(
      /properties-changed .*keys pending .*0 keys yet: alerts\.property_id is written by alerts, earlier in this plan/
    )
    expect(plan.stdout).toMatch(/properties-match .*keys pending .*0 keys yet: no table alerts in the warehouse/)
    expect(plan.stdout.match(/^total: \d+ units/gm)).toHaveLength(2)
    expect(fs.existsSync(path.join(a, "warehouse.duckdb")), "plan created no warehouse").toBe(false)
    await expectOk("nightly", configA)
    expect(fs.existsSync(path.join(a, "out", "parquet", "alerts"))).toBe(true)
    await expectOk("weekly", configA)
    const status = await expectOk("status", configA)
    expect(status.stdout).toMatch(/units spent today: \d+/)

    // every extract target expands to a run of its pipeline with the given settings
    const b = fs.mkdtempSync(path.join(dir, "extracts-"))
    const configB = settingsIn(b)
    for (const target of extracts) {
      const dry = await make(target, configB, ["-n"])
      expect(dry.code, `make -n ${target}: ${dry.stderr}`).toBe(0)
      expect(dry.stdout.trim().split("\n").at(-1)).toBe(
        `node dist/bundle/main.js run --config ${configB} ${target.slice("extract-".length)}`
      )
    }
    // some for real against a fresh warehouse; key readers first, before their tables exist
    for (const k of RUN_FOR_REAL) expect(extracts).toContain(k)
    for (const target of [...KEY_READERS, ...RUN_FOR_REAL]) {
      const r = await expectOk(target, configB)
      if (KEY_READERS.includes(target)) expect(r.stdout).toMatch(/: 0 keys: no table \w+ in the warehouse yet .*; run .* first/)
    }
  }, 240_000)
})
