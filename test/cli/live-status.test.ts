/**
 * Watching a run from outside, as an operator would, through the real CLI (child processes) on a
 * run that holds the warehouse (DuckDB's lock: nothing else can open it):
 * - the run-state file beside the warehouse follows the run (rewritten as groups land, `finished`
 *   at the end) and holds no secret; the metrics file says `running` while it runs;
 * - `status` says "running since ..., PID ..." from it (no DuckDB), `--json` too, and
 *   `status --watch` follows it to the end, then prints the status;
 * - `query` says in one line that a run holds the warehouse (exit 2, no wait), `--wait` waits for
 *   it and answers, `--parquet` reads the last export;
 * - a run killed mid-way leaves a stale file that `status` names as such.
 */
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { collect, remoteConfig, runCli, sandboxEnv, spawnCli } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"
import { parseProm } from "../monitor/support.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

/** Resolves once the child's stderr (or stdout) holds `marker` (e.g. its JSON progress lines). */
const seen = (child: ChildProcess, marker: string, stream: "stderr" | "stdout" = "stderr") =>
  new Promise<void>((resolve, reject) => {
    let text = ""
    const timer = setTimeout(() => reject(new Error(`no ${marker} within 60 s: ${text.slice(-500)}`)), 60_000)
    child[stream]!.on("data", (d) => {
      text += String(d)
      if (text.includes(marker)) {
        clearTimeout(timer)
        resolve()
      }
    })
  })

/** `result`, or after `ms` the child killed and a failure naming it (what it wrote so far is in its result). */
const within = <A>(result: Promise<A>, child: ChildProcess, name: string, ms: number): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<A>((_, reject) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL")
      void result.then((r) => reject(new Error(`${name} did not end within ${ms} ms: ${JSON.stringify(r).slice(-3000)}`)))
    }, ms)
  })
  return Promise.race([result, late]).finally(() => clearTimeout(timer))
}

const noSecrets = (text: string) => {
  expect(text).not.toContain(SANDBOX_API_KEY)
  expect(text).not.toContain(SANDBOX_USER.password)
  expect(text).not.toContain(SANDBOX_USER.email)
}

describe("a run watched from outside", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 4000 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-live-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /**
   * Every platform answer 400 ms late: 80 pages would take 32 s, long enough for what watches the
   * run; `hurry` lifts the delay once they have seen it, and the run ends in a moment.
   */
  const slow = () => sandbox.control.setFaults("platform", { slowRate: 1, slowMs: 400 })
  const hurry = () => sandbox.control.setFaults("platform", { slowRate: 0 })
  const setup = () => {
    slow()
    const d = fs.mkdtempSync(path.join(dir, "run-"))
    const config = remoteConfig(d, sandbox, {
      pipelines: {
        "sourcing-search": { params: { places: [{ country: "ES" }], operation: "sale", pageSize: 5, maxPages: 80, sample: true } },
        references: { params: { location_countries: ["ES"], source_location_ids: [18] } }
      }
    })
    return { d, config, warehouse: path.join(d, "warehouse.duckdb"), stateFile: path.join(d, "warehouse.duckdb.run.json") }
  }

  it("status, status --watch, query, query --wait and --parquet while a run holds the warehouse; the state and metrics files follow it", async () => {
    const { d, config, stateFile } = setup()
    const metrics = path.join(d, "metrics", "estate_etl.prom")
    // an earlier run exported Parquet (what --parquet reads while the next run holds the warehouse)
    const first = await runCli(["run", "references", "--config", config, "--export", "parquet"], sandboxEnv())
    expect(first.code, first.stderr).toBe(0)
    expect(JSON.parse(fs.readFileSync(stateFile, "utf8"))).toMatchObject({ state: "finished", exitCode: 0, command: "run references" })

    const child = spawnCli(["run", "sourcing-search", "--config", config, "--metrics-file", metrics], sandboxEnv())
    const done = collect(child)
    await seen(child, '"group_landed"')

    const state = JSON.parse(fs.readFileSync(stateFile, "utf8"))
    expect(state).toMatchObject({
      format: 1,
      state: "running",
      pid: child.pid,
      command: "run sourcing-search",
      target: `${sandbox.platformUrl} and ${sandbox.apiUrl}`,
      pipelines: [{ name: "sourcing-search", state: "running" }],
      current: { pipeline: "sourcing-search", slices: { total: 1 } }
    })
    expect(state.current.pages).toBeGreaterThan(0)
    noSecrets(fs.readFileSync(stateFile, "utf8"))
    // the metrics file during the run: status running, the pages so far
    const during = parseProm(fs.readFileSync(metrics, "utf8")).samples.filter((s) => s.labels.pipeline === "sourcing-search")
    expect(during.find((s) => s.name === "estate_etl_run_status" && s.labels.status === "running")?.value).toBe(1)
    expect(during.find((s) => s.name === "estate_etl_run_pages")?.value).toBeGreaterThan(0)

    const status = await runCli(["status", "--config", config])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(
      new RegExp(
        `^running since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ, PID ${child.pid}: run sourcing-search against http://127\\.0\\.0\\.1:\\d+ and http://127\\.0\\.0\\.1:\\d+\\n`
      )
    )
    expect(status.stdout).toMatch(
      /^ {2}now: sourcing-search: 0 of 1 slices done, 1 pending; \d+ pages of ~\d+, [\d,]+ rows, \d+ units \(plan \d+\), [\d.]+ req\/s/m
    )
    const asJson = JSON.parse((await runCli(["status", "--config", config, "--json"])).stdout)
    expect(asJson).toMatchObject({ running: true, run: { pid: child.pid, state: "running" } })

    // these wait for the run to end while the checks below run
    const waiting = spawnCli(["query", "--config", config, "--wait", "--json", "SELECT count(*) AS n FROM sourcing_properties"])
    const watching = spawnCli(["status", "--config", config, "--watch"])
    const [waitingDone, watchingDone] = [collect(waiting), collect(watching)]
    const sawRun = Promise.all([seen(waiting, "waiting for the warehouse"), seen(watching, "sourcing-search:", "stdout")])
    const held = await runCli(["query", "--config", config, "SELECT count(*) AS n FROM sourcing_properties"])
    expect(held.code).toBe(2)
    expect(held.stderr.trim().split("\n")).toHaveLength(1)
    expect(held.stderr).toMatch(
      new RegExp(
        `^error: query: a run \\(run sourcing-search, PID ${child.pid}, since .*\\) holds the warehouse .*--wait waits until it ends, --parquet reads the Parquet exported \\d{4}`
      )
    )
    const parquet = await runCli(["query", "--config", config, "--parquet", "--json", "SELECT count(*) AS n FROM reference_locations"])
    expect(parquet.code, parquet.stderr).toBe(0)
    expect(JSON.parse(parquet.stdout).n).toBeGreaterThan(0)
    // reading the export never writes it: a COPY onto one of its own files is refused before it runs
    const exported = fs.realpathSync(path.join(d, "parquet", "reference_locations"))
    const victim = path.join(
      exported,
      fs
        .readdirSync(exported, { recursive: true })
        .map(String)
        .find((f) => f.endsWith(".parquet"))!
    )
    const before = fs.readFileSync(victim)
    const copy = await runCli(["query", "--config", config, "--parquet", `COPY (SELECT 1 AS a) TO '${victim}' (FORMAT parquet)`])
    expect(copy.code).toBe(2)
    expect(copy.stderr.trim()).toMatch(/^error: query: reads only: a COPY statement is refused/)
    expect(fs.readFileSync(victim).equals(before)).toBe(true)

    // the waiting query and the watch have seen the run: it may end now
    await sawRun
    hurry()
    const [run, waited, watched] = await Promise.all([
      within(done, child, "the run", 90_000),
      within(waitingDone, waiting, "query --wait", 90_000),
      within(watchingDone, watching, "status --watch", 90_000)
    ])
    expect(run.code, run.stderr.slice(-2000)).toBe(0)
    expect(waited.code, waited.stderr).toBe(0)
    expect(waited.stderr).toMatch(
      new RegExp(
        `^waiting for the warehouse .*: a run \\(run sourcing-search, PID ${child.pid}, .*\\) holds it; up to its end \\(--wait\\)$`,
        "m"
      )
    )
    const summary = run.stdout.split("\n").find((l) => l.startsWith("sourcing-search"))!
    const landed = Number(summary.split(/\s+/)[3]!.replace(/,/g, ""))
    expect(JSON.parse(waited.stdout).n).toBeGreaterThan(0)
    expect(landed).toBeGreaterThanOrEqual(JSON.parse(waited.stdout).n)
    expect(watched.code, watched.stderr).toBe(0)
    const lines = watched.stdout.split("\n")
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ sourcing-search: \d+ of 1 slices done/)
    expect(watched.stdout).toMatch(new RegExp(`^run sourcing-search \\(PID ${child.pid}\\) ended .* with exit code 0$`, "m"))
    expect(watched.stdout).toMatch(/^units spent today: /m)

    const after = JSON.parse(fs.readFileSync(stateFile, "utf8"))
    expect(after).toMatchObject({ state: "finished", exitCode: 0, pipelines: [{ name: "sourcing-search", state: "done" }] })
    expect(after.current).toBeUndefined()
    const ended = parseProm(fs.readFileSync(metrics, "utf8")).samples.filter((s) => s.labels.pipeline === "sourcing-search")
    expect(ended.find((s) => s.name === "estate_etl_run_status" && s.labels.status === "running")?.value).toBe(0)
    expect(ended.find((s) => s.name === "estate_etl_run_status" && s.labels.status === "done")?.value).toBe(1)
  }, 180_000)

  it("a run killed mid-way leaves a stale state file: status names it, and reads the warehouse", async () => {
    const { config, stateFile } = setup()
    const child = spawnCli(["run", "sourcing-search", "--config", config], sandboxEnv())
    const done = collect(child)
    await seen(child, '"group_landed"')
    child.kill("SIGKILL")
    await done
    expect(JSON.parse(fs.readFileSync(stateFile, "utf8"))).toMatchObject({ state: "running", pid: child.pid })
    const status = await runCli(["status", "--config", config])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(
      new RegExp(
        `^note: run sourcing-search \\(PID ${child.pid}, started .*\\) stopped without finishing: its process is gone since about .* \\(killed or crashed\\) while sourcing-search ran; \`run\` resumes its unfinished pipelines$`,
        "m"
      )
    )
    expect(JSON.parse((await runCli(["status", "--config", config, "--json"])).stdout).lastRunCommand).toMatchObject({
      pid: child.pid,
      stale: true
    })
  }, 120_000)
})
