/**
 * The GitHub Actions recipe of docs/SCHEDULING.md keeps its state between nights: its steps, read
 * from the YAML block itself, run as a runner would for two weekday nights against a sandbox over
 * HTTP. Night 1 runs in an empty workspace; the cache's `path` is carried (tar) to the emptied
 * workspace as `actions/cache/save` and `restore` carry it; night 2 runs there a day later. The second night
 * must start from the first's state (its runs in the history, the incremental positions used:
 * plots read newest first stop at what night 1 landed) and so cost fewer units; the two nights
 * save under different keys.
 *
 * `npm ci` and `actions/*` other than the cache are the runner's business; `npx estate-etl` is the
 * compiled CLI (dist/bundle/main.js). The block's `${{ ... }}` expressions are evaluated for a
 * weekday schedule (`github.event.schedule` = the Monday-to-Saturday cron).
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sandboxEnv } from "../support/cli.js"
import { startTestSandbox, totalUnits } from "../support/sandbox.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const MAIN = path.join(ROOT, "dist/bundle/main.js")
const DAY = 86_400_000
const WEEKDAY = "30 2 * * 1-6"

/**
 * A command line in bash, asynchronously: the sandbox answers from this process, so nothing may
 * block its event loop while the CLI talks to it.
 */
const sh = (command: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

interface Step {
  readonly uses?: string
  readonly run?: string
  readonly if?: string
  readonly with: Record<string, string>
}

/** The YAML block under a heading of a Markdown file. */
const yamlBlock = (file: string, heading: string): string => {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8")
  const from = text.indexOf(`## ${heading}`)
  const open = text.indexOf("```yaml\n", from)
  return text.slice(open + "```yaml\n".length, text.indexOf("\n```", open))
}

/** The steps of a workflow's (only) job: `- ` items with `if`, `uses`, `run` and `with` keys (one line each). */
const stepsOf = (yaml: string): Array<Step> => {
  const lines = yaml.split("\n")
  const at = lines.findIndex((l) => /^\s+steps:\s*$/.test(l))
  const steps: Array<{ uses?: string; run?: string; if?: string; with: Record<string, string> }> = []
  for (const line of lines.slice(at + 1)) {
    const item = /^\s+- (\w[\w-]*):\s*(.*)$/.exec(line)
    const key = item ?? /^\s+(\w[\w-]*):\s*(.*)$/.exec(line)
    if (key === null || line.trim().startsWith("#")) continue
    if (item) steps.push({ with: {} })
    const step = steps.at(-1)!
    const [, name, value] = key
    const clean = value!.replace(/\s+#.*$/, "").trim()
    if (name === "uses" || name === "run" || name === "if") step[name] = clean
    else if (name !== "with" && name !== "env") step.with[name!] = clean
  }
  return steps
}

/** `${{ ... }}` of the steps this test meets. */
const evaluate = (expr: string, night: number): string =>
  expr.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, e: string) => {
    if (e === "github.run_id") return String(1000 + night)
    if (e === "github.run_attempt") return "1"
    throw new Error(`unknown expression ${e}`)
  })

/** A step's `if:` for a weekday schedule (the conditions the recipe uses). */
const runsOn = (condition: string | undefined): boolean => {
  if (condition === undefined || condition === "always()") return true
  const m = /^github\.event\.schedule (==|!=) '([^']+)'$/.exec(condition)
  if (!m) throw new Error(`unknown condition ${condition}`)
  return m[1] === "==" ? m[2] === WEEKDAY : m[2] !== WEEKDAY
}

describe("the GitHub Actions recipe keeps its state between nights", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000, plots: 1500 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-ci-state-"))
  })
  afterAll(async () => {
    await sandbox?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("runs the block's steps twice across a cache round-trip: the second night resumes from the first's state", async () => {
    const steps = stepsOf(yamlBlock("docs/SCHEDULING.md", "CI schedule (GitHub Actions)"))
    expect(steps.map((s) => s.uses ?? "run")).toContain("actions/cache/restore@v4")
    const production = JSON.parse(fs.readFileSync(path.join(ROOT, "config/production.example.json"), "utf8"))
    // the sandbox's clock moves a day, this machine's does not: a night a day later buys fresh
    // answers (budget.reuseWithin, 12h), so none is read back from the raw archive here
    production.budget = { ...production.budget, reuseWithin: "0" }
    delete production.$schema
    const env = { ...process.env, ...sandboxEnv(), SVC_PLATFORM_URL: sandbox.platformUrl, SVC_API_URL: sandbox.apiUrl }
    const caches = new Map<string, string>()
    const saved: Array<string> = []

    const night = async (n: number, runner: string) => {
      const before = totalUnits(sandbox)
      for (const step of steps) {
        if (!runsOn(step.if)) continue
        const uses = step.uses?.replace(/@.*$/, "")
        if (uses === "actions/checkout") {
          fs.mkdirSync(path.join(runner, "config"), { recursive: true })
          fs.writeFileSync(path.join(runner, "config/production.json"), JSON.stringify(production))
        } else if (uses === "actions/cache/restore") {
          const prefix = evaluate(step.with["restore-keys"]!, n)
          const hit = caches.get(evaluate(step.with.key!, n)) ?? [...caches.entries()].filter(([k]) => k.startsWith(prefix)).at(-1)?.[1]
          if (hit) execFileSync("tar", ["-xzf", hit, "-C", runner])
        } else if (uses === "actions/cache/save") {
          const key = evaluate(step.with.key!, n)
          expect(caches.has(key), `cache key ${key} written twice`).toBe(false)
          const archive = path.join(dir, `${key}.tgz`)
          execFileSync("tar", ["-czf", archive, "-C", runner, step.with.path!])
          caches.set(key, archive)
          saved.push(key)
        } else if (step.run !== undefined && step.run !== "npm ci") {
          const command = step.run.replace(/(^|&& )npx estate-etl /g, `$1${process.execPath} ${MAIN} `)
          const r = await sh(command, runner, env)
          expect(r.code, `night ${n}: ${step.run}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`).toBe(0)
        }
      }
      return totalUnits(sandbox) - before
    }
    // `query --json` prints one JSON object a row
    const query = (runner: string, sql: string) =>
      execFileSync(process.execPath, [MAIN, "query", sql, "--json", "--config", "config/production.json"], {
        cwd: runner,
        env,
        encoding: "utf8"
      })
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>)

    // a fresh runner checks out into the same workspace path every run (GitHub's
    // /home/runner/work/<repo>/<repo>), empty: the output folder's owner file names the warehouse
    // by that path, so the folder is emptied and reused rather than made elsewhere
    const runner = path.join(dir, "workspace")
    fs.mkdirSync(runner)
    const first = await night(1, runner)
    fs.rmSync(runner, { recursive: true, force: true })
    fs.mkdirSync(runner)
    sandbox.control.advanceClock(DAY)
    const second = await night(2, runner)

    const runs = query(
      runner,
      "SELECT pipeline, status, pages::INTEGER AS pages FROM _runs WHERE pipeline = 'plots-germany' ORDER BY started_at"
    )
    console.log(
      `GitHub Actions recipe, two nights across the cache: ${first} units, then ${second}; plots-germany pages ${runs.map((r) => r.pages).join(", ")}`
    )
    expect(saved).toHaveLength(2)
    expect(saved[0]).not.toBe(saved[1])
    // night 2's warehouse holds night 1's runs: the state came through the cache
    expect(runs.map((r) => r.status)).toEqual(["done", "done"])
    // and it read incrementally: plots newest first stopped at what night 1 landed
    expect(Number(runs[1]!.pages)).toBeLessThan(Number(runs[0]!.pages))
    expect(second).toBeLessThan(first)
    expect(fs.existsSync(path.join(runner, "data/report.html"))).toBe(true)
  }, 120_000)
})
