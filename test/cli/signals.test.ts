/**
 * Signals through the real CLI process (`node dist/bundle/main.js`, no wrapper between
 * the signal and the CLI): SIGINT exits 130 and SIGTERM 143 within 2 seconds, the run is marked
 * `interrupted` (and resumes next time), the summary is printed and a final `run_finished` event
 * is written. A second signal exits at once.
 */
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Warehouse } from "../../src/load/Warehouse.js"
import { collect, remoteConfig, runCli, sandboxEnv, spawnCli } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

/** Resolves once the child has committed its first page (a JSON progress line on stderr). */
const firstPage = (child: ChildProcess) =>
  new Promise<void>((resolve, reject) => {
    let seen = ""
    const timer = setTimeout(() => reject(new Error(`no page committed within 60 s: ${seen.slice(-500)}`)), 60_000)
    child.stderr!.on("data", (d) => {
      seen += String(d)
      if (seen.includes('"page_committed"')) {
        clearTimeout(timer)
        resolve()
      }
    })
  })

const runStatus = async (warehouse: string) =>
  Effect.runPromise(
    Effect.flatMap(Warehouse, (w) => w.query(`SELECT status FROM _runs ORDER BY started_at DESC LIMIT 1`)).pipe(
      Effect.provide(Warehouse.Default({ path: warehouse })),
      Effect.scoped
    )
  ).then((rows) => String(rows[0]?.status))

const loadStretch = () => Math.max(1, os.loadavg()[0]! / os.cpus().length)

describe("signals", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    // 4 platform calls a second: a run of 60 pages lasts long enough to be stopped
    sandbox = await startTestSandbox({ world: { properties: 4000 }, rateLimit: { platform: { quota: 4, windowSeconds: 1 } } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-signals-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const config = () => {
    const d = fs.mkdtempSync(path.join(dir, "run-"))
    const file = remoteConfig(d, sandbox, {
      pipelines: {
        "sourcing-search": { params: { places: [{ country: "ES" }], operation: "sale", pageSize: 10, maxPages: 60, sample: true } }
      }
    })
    return { file, warehouse: path.join(d, "warehouse.duckdb") }
  }

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143]
  ] as const) {
    it(`${signal} exits ${code} within 2 s, marks the run interrupted, prints the summary, and the next run resumes`, async () => {
      const { file, warehouse } = config()
      const child = spawnCli(["run", "sourcing-search", "--config", file], sandboxEnv())
      const done = collect(child)
      await firstPage(child)
      const sent = Date.now()
      child.kill(signal)
      const r = await done
      const took = Date.now() - sent
      expect(r.code).toBe(code)
      // 2 s on an idle machine; on a loaded one the OS runs the process less often, so the bound
      // stretches with the load average per core (a run of `make test` at load 15 on 2 cores)
      expect(took).toBeLessThan(2_000 * loadStretch())
      expect(r.stdout).toMatch(/sourcing-search\s+interrupted/)
      const finished = r.stderr
        .split("\n")
        .filter((l) => l.includes('"run_finished"'))
        .map((l) => JSON.parse(l) as { status: string })
      expect(finished.at(-1)?.status).toBe("interrupted")
      expect(await runStatus(warehouse)).toBe("interrupted")

      // the next run resumes the interrupted one where it stopped
      const again = spawnCli(["run", "sourcing-search", "--config", file], sandboxEnv())
      const resumed = collect(again)
      await firstPage(again)
      again.kill("SIGTERM")
      const r2 = await resumed
      expect(r2.code).toBe(143)
      expect(r2.stdout).toMatch(/interrupted \(resumed\)/)
    }, 120_000)
  }

  it("a second signal exits at once", async () => {
    const { file } = config()
    const child = spawnCli(["run", "sourcing-search", "--config", file], sandboxEnv())
    const done = collect(child)
    await firstPage(child)
    child.kill("SIGINT")
    child.kill("SIGINT")
    const r = await done
    expect(r.code).toBe(130)
  }, 120_000)

  it("a finished run is not affected: exit 0", async () => {
    const { file } = config()
    const r = await runCli(["run", "sourcing-search", "--config", file, "-p", "maxPages=1"], sandboxEnv())
    expect(r.code).toBe(0)
  }, 120_000)
})
