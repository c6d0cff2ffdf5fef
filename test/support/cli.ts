/**
 * Runs the real CLI as a child process (`node dist/bundle/main.js ...`, compiled once per test
 * run by `globalSetup.ts`, as users run it), pointed at a
 * sandbox started by the test through a settings file with `target: "remote"` and credentials
 * in the environment, exactly as a user would point it at the real service.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import type { SandboxHandle } from "../../src/sandbox/Sandbox.js"
/**
 * The test file running now, for ESTATE_SPAWN_LOG. Vitest is imported only then: importing it at
 * the top fails outside vitest, and `tools/chaos.ts` (`make chaos`) imports these helpers.
 */
const expectFile = async (): Promise<string> => path.relative(ROOT, (await import("vitest")).expect.getState().testPath ?? "")

const ROOT = path.resolve(import.meta.dirname, "../..")
const MAIN = path.join(ROOT, "dist/bundle/main.js")

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Writes a settings file for a sandbox reached as a remote service; returns its path. */
export const remoteConfig = (dir: string, sandbox: SandboxHandle, extra: Record<string, unknown> = {}): string =>
  settingsFile(dir, sandbox, extra, `settings-${Math.random().toString(36).slice(2, 8)}.json`)

/** Writes `dir/name`: settings reaching `sandbox` as a remote service; warehouse and output in `dir`. */
export const settingsFile = (
  dir: string,
  sandbox: { readonly platformUrl: string; readonly apiUrl: string },
  extra: Record<string, unknown> = {},
  name = "settings.json"
): string => {
  const file = path.join(dir, name)
  const { service, ...rest } = extra as { service?: Record<string, unknown> }
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        warehouse: path.join(dir, "warehouse.duckdb"),
        output: dir,
        ...rest,
        service: { target: "remote", platformUrl: sandbox.platformUrl, apiUrl: sandbox.apiUrl, ...service }
      },
      null,
      2
    )
  )
  return file
}

/** The sandbox's credentials as the environment a remote run reads them from. */
export const sandboxEnv = (): NodeJS.ProcessEnv => ({
  SVC_API_KEY: SANDBOX_API_KEY,
  SVC_EMAIL: SANDBOX_USER.email,
  SVC_PASSWORD: SANDBOX_USER.password
})

export const spawnCli = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = {},
  options: { readonly cwd?: string; readonly nodeArgs?: ReadonlyArray<string> } = {}
): ChildProcess =>
  spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...env, SVC_PLATFORM_URL: "", SVC_API_URL: "" },
    stdio: ["ignore", "pipe", "pipe"]
  })

/** ESTATE_SPAWN_LOG=<file>: one line per CLI child (test file, seconds, args), to find where suite time goes. */
const SPAWN_LOG = process.env.ESTATE_SPAWN_LOG

export const collect = (child: ChildProcess): Promise<CliResult> =>
  new Promise((resolve) => {
    if (SPAWN_LOG) {
      const started = Date.now()
      const file = expectFile().catch(() => "(no test file)")
      const main = child.spawnargs.indexOf(MAIN)
      const args = child.spawnargs.slice(main + 1, main + 4).join(" ")
      child.on("close", () => {
        const seconds = ((Date.now() - started) / 1000).toFixed(2)
        void file.then((f) => fs.appendFileSync(SPAWN_LOG, `${f}\t${seconds}\t${args}\n`))
      })
    }
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d) => (stdout += d))
    child.stderr!.on("data", (d) => (stderr += d))
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

/** Runs the CLI to its end; `cwd` (default the repository) is where it looks for `.env` and relative paths. */
export const runCli = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = {},
  options: { readonly cwd?: string; readonly nodeArgs?: ReadonlyArray<string> } = {}
): Promise<CliResult> => collect(spawnCli(args, env, options))
