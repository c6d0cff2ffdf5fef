/**
 * The installed CLI (`dist/bundle/main.js`, from `src/cli/bin.cjs`) starts libuv's threadpool with
 * one thread, and a UV_THREADPOOL_SIZE the user sets wins. Read from the kernel's thread count of
 * the real process (`/proc/<pid>/status`) once `estate-etl run` has started (its `run_started`
 * event) and waits on its first request, which the sandbox holds: the warehouse is open by then,
 * and DuckDB's statements run in the pool, so it has started on every Node version (Node 20's ES
 * module loader starts it too; Node 22's does not, so a serving `estate-etl sandbox` has none).
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { collect, sandboxEnv, settingsFile, spawnCli } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"
import { makeTempDir } from "../support/tempDirs.js"

const threadsOf = (pid: number) => Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1])

describe.runIf(fs.existsSync("/proc/self/status"))("the CLI's threadpool", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { plots: 50 } })
    // every platform answer held for a minute (the runs are killed long before)
    sandbox.control.setFaults("platform", { slowRate: 1, slowMs: 60_000 })
  })
  afterAll(() => sandbox.close())
  it("has one thread unless UV_THREADPOOL_SIZE says otherwise", async () => {
    const runs = ["", "4", "6"].map((size) => {
      const dir = makeTempDir("estate-pool-")
      const child = spawnCli(["run", "plots-germany", "--config", settingsFile(dir, sandbox, { service: { timeoutMs: 120_000 } })], {
        ...sandboxEnv(),
        UV_THREADPOOL_SIZE: size
      })
      // its `run_started` event: the warehouse is open and the run recorded (DuckDB's statements ran)
      const started = new Promise<void>((resolve, reject) => {
        let err = ""
        child.stderr!.on("data", (d) => {
          err += d
          if (err.includes('"type":"run_started"')) resolve()
        })
        child.on("exit", (code) => reject(new Error(`the run exited ${code} before it started: ${err}`)))
      })
      return { child, started, done: collect(child) }
    })
    try {
      await Promise.all(runs.map((r) => r.started))
      const [own, four, six] = runs.map((r) => threadsOf(r.child.pid!))
      // the pool is the only difference: 4 threads are 3 more than the CLI's 1, and 6 are 5 more
      expect(four! - own!).toBe(3)
      expect(six! - own!).toBe(5)
    } finally {
      for (const r of runs) r.child.kill("SIGKILL")
      await Promise.all(runs.map((r) => r.done))
    }
  }, 60_000)
})
