/**
 * 4. Spend and 5. plan accuracy. Units charged (the sandbox's own counter) over the units the
 * pages strictly need (one per `pageSize` matching properties per place, from the sandbox's
 * ground truth), for a clean CLI run and for a CLI run SIGKILLed `kills` times and resumed; and
 * the units the plan announced over the units charged.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../src/sandbox/Credentials.js"
import { pagesNeeded, type PlaceSet } from "./Places.js"
import { type SandboxProc, scriptArgs } from "./Procs.js"
import { sumOf } from "./RateLimit.js"
import { fmt, type Line } from "./Report.js"

const MAIN = path.resolve(import.meta.dirname, "../src/cli/main.ts")
const PAGE = 200

const env = {
  SVC_API_KEY: SANDBOX_API_KEY,
  SVC_EMAIL: SANDBOX_USER.email,
  SVC_PASSWORD: SANDBOX_USER.password,
  SVC_PLATFORM_URL: "",
  SVC_API_URL: ""
}

/** Runs the CLI; with `killAfter`, SIGKILLs it once that many pages were committed. Returns its JSON events. */
const cli = (config: string, killAfter?: number) =>
  new Promise<{ code: number | null; events: Array<Record<string, any>> }>((resolve) => {
    const child = spawn(process.execPath, [...scriptArgs(MAIN), "run", "sourcing-search", "--config", config], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    const events: Array<Record<string, any>> = []
    let buffer = ""
    child.stderr!.on("data", (d) => {
      buffer += d
      const lines = buffer.split("\n")
      buffer = lines.pop()!
      for (const l of lines) {
        if (!l.startsWith("{")) continue
        try {
          events.push(JSON.parse(l))
        } catch {
          /* not an event */
        }
      }
      const committed = events.filter((e) => e.type === "page_committed").length
      if (killAfter !== undefined && committed >= killAfter && child.exitCode === null && !child.killed) child.kill("SIGKILL")
    })
    child.on("close", (code) => resolve({ code, events }))
  })

const configFile = (dir: string, sandbox: SandboxProc, set: PlaceSet, concurrency = 4) => {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, "settings.json")
  fs.writeFileSync(
    file,
    JSON.stringify({
      warehouse: path.join(dir, "warehouse.duckdb"),
      output: dir,
      budget: { maxUnits: 1_000_000 },
      // kills are armed by committed pages: land what has arrived at once, so each killed process
      // commits a few pages and dies mid-run (with the default fill wait a run's last group lands
      // at its end, a kill after it hits a finished run, and the next process starts a new run)
      duckdb: { groupWaitMs: 0 },
      service: { target: "remote", platformUrl: sandbox.platformUrl, apiUrl: sandbox.apiUrl },
      pipelines: {
        "sourcing-search": {
          params: { places: set.places.map(({ country }) => ({ country })), operation: "sale", pageSize: PAGE, concurrency }
        }
      }
    })
  )
  return file
}

const charged = async (sandbox: SandboxProc) => sumOf((await sandbox.control<{ unitsSpent: Record<string, number> }>("stats")).unitsSpent)

export const spendAndPlan = async (sandbox: SandboxProc, set: PlaceSet, dir: string, kills: number): Promise<ReadonlyArray<Line>> => {
  const needed = pagesNeeded(set, PAGE)

  const u0 = await charged(sandbox)
  const clean = await cli(configFile(path.join(dir, "clean"), sandbox, set))
  if (clean.code !== 0) throw new Error(`clean run exited with ${clean.code}`)
  const cleanUnits = (await charged(sandbox)) - u0
  const planned = Number(clean.events.find((e) => e.type === "run_started")?.planned?.units ?? NaN)
  const expected = Number(clean.events.find((e) => e.type === "run_finished")?.expected?.units ?? NaN)

  // kill after a few pages each time, so every kill lands mid-run and the resume has work left
  const killedRun = async (concurrency: number) => {
    const config = configFile(path.join(dir, `killed-${concurrency}`), sandbox, set, concurrency)
    const every = Math.max(2, Math.floor(needed / (kills + 2)))
    const u1 = await charged(sandbox)
    let killed = 0
    let finished = false
    for (let k = 0; k < kills && !finished; k++) {
      const r = await cli(config, every)
      if (r.code === 0)
        finished = true // the run ended before its kill: another run would start afresh
      else killed++
    }
    if (!finished) {
      const last = await cli(config)
      if (last.code !== 0) throw new Error(`resumed run exited with ${last.code}`)
    }
    const units = (await charged(sandbox)) - u1
    return { killed, units, extra: killed > 0 ? (units - needed) / killed : 0 }
  }
  const killedLines = (concurrency: number, r: { killed: number; units: number; extra: number }): Array<Line> => [
    {
      group: "spend",
      measure: `${r.killed} SIGKILLs + resumes, ${Math.min(concurrency, set.places.length)} place(s) in flight: units charged / strictly needed`,
      value: `${fmt(r.units)} units (${fmt(r.extra, 2)} extra per kill)`,
      baseline: `${fmt(needed)} pages needed`,
      ratio: r.units / needed,
      target: "<= 1 page extra per kill",
      met: r.units - needed <= r.killed
    }
  ]
  const four = await killedRun(4)
  const one = await killedRun(1)

  return [
    {
      group: "spend",
      measure: `clean run, ${fmt(set.total)} properties: units charged / strictly needed`,
      value: `${fmt(cleanUnits)} units`,
      baseline: `${fmt(needed)} pages needed`,
      ratio: cleanUnits / needed,
      target: "1.00",
      met: cleanUnits === needed
    },
    ...killedLines(4, four),
    ...killedLines(1, one),
    {
      group: "plan",
      measure: "sourcing-search: units planned / charged (default maxPages bound)",
      value: `${fmt(planned)} planned`,
      baseline: `${fmt(cleanUnits)} charged`,
      ratio: planned / cleanUnits,
      target: "within 5%",
      met: Math.abs(planned / cleanUnits - 1) <= 0.05,
      why: "a place's count comes only with its first, paid page, so the plan is the maxPages bound; the figure refined from the first pages (next line) is the one to judge"
    },
    {
      group: "plan",
      measure: "sourcing-search: units expected once each place's first page told its count / charged",
      value: `${fmt(expected)} expected`,
      baseline: `${fmt(cleanUnits)} charged`,
      ratio: expected / cleanUnits,
      target: "within 5%",
      met: Math.abs(expected / cleanUnits - 1) <= 0.05
    }
  ]
}
