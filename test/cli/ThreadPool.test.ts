/**
 * The installed CLI (`dist/bundle/main.js`, from `src/cli/bin.cjs`) starts libuv's threadpool with
 * one thread, and a UV_THREADPOOL_SIZE the user sets wins. Read from the kernel's thread count of
 * the real process (`/proc/<pid>/status`) while `estate-etl sandbox` serves: the pool has started
 * by then (Node's ES module loader reads files through it).
 */
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { collect, spawnCli } from "../support/cli.js"

const threadsOf = (pid: number) => Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1])

/** The thread count of a serving `estate-etl sandbox` under `env`. */
const servingThreads = async (env: NodeJS.ProcessEnv) => {
  const child = spawnCli(["sandbox"], { SANDBOX_PLATFORM_PORT: "0", SANDBOX_API_PORT: "0", ...env })
  const done = collect(child)
  let out = ""
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d
      if (out.includes("token host")) resolve()
    })
    child.on("exit", (code) => reject(new Error(`sandbox exited ${code} before serving: ${out}`)))
  })
  const threads = threadsOf(child.pid!)
  child.kill("SIGTERM")
  await done
  return threads
}

describe.runIf(fs.existsSync("/proc/self/status"))("the CLI's threadpool", () => {
  it("has one thread unless UV_THREADPOOL_SIZE says otherwise", async () => {
    const [own, four, six] = await Promise.all([
      servingThreads({ UV_THREADPOOL_SIZE: "" }),
      servingThreads({ UV_THREADPOOL_SIZE: "4" }),
      servingThreads({ UV_THREADPOOL_SIZE: "6" })
    ])
    // the pool is the only difference: 4 threads are 3 more than the CLI's 1, and 6 are 5 more
    expect(four - own).toBe(3)
    expect(six - own).toBe(5)
  }, 60_000)
})
