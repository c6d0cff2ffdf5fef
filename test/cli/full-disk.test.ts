/**
 * Errors name the real cause: on a full disk the run's error line names the write that failed
 * (the raw archive's file and ENOSPC), and no later step (the Parquet export) hides it. The disk
 * is a real tmpfs of a few kilobytes mounted where the raw archive writes (CI runs as root).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { remoteConfig, runCli, sandboxEnv } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"

const canMount = (() => {
  if (process.getuid?.() !== 0) return false
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "estate-mount-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", probe], { stdio: "ignore" })
    execFileSync("umount", [probe], { stdio: "ignore" })
    return true
  } catch {
    return false
  } finally {
    fs.rmSync(probe, { recursive: true, force: true })
  }
})()

describe.runIf(canMount)("a full disk", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  let raw: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { plots: 600 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-full-"))
    raw = path.join(dir, "raw")
    fs.mkdirSync(raw)
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=12k", "tmpfs", raw])
  })
  afterAll(async () => {
    try {
      execFileSync("umount", [raw])
    } catch {}
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("names the raw-archive write that failed (file and ENOSPC), not the export after it", async () => {
    const config = remoteConfig(dir, sandbox, {
      output: path.join(dir, "out"),
      pipelines: { "plots-germany": { params: { criteria: { commercial_use: "all" }, pageSize: 50, maxPages: 20, sample: true } } }
    })
    const r = await runCli(["run", "plots-germany", "--config", config, "--export", "parquet"], sandboxEnv())
    expect(r.code).not.toBe(0)
    const out = r.stdout + r.stderr
    expect(out).toMatch(/Cannot write raw pages? .*raw\/plots-germany\/.*\.json\.gz: ENOSPC/)
    expect(out).not.toMatch(/[Pp]arquet/)
    expect(fs.existsSync(path.join(dir, "out", "plots"))).toBe(false)
  }, 60_000)
})
