/**
 * Child processes of the bench: the sandbox server and single pipeline runs (see
 * `sandboxServer.ts`, `runOnce.ts`). Children run as plain JS when the bench itself is compiled
 * (`make bench` builds `dist-bench/`), else through `node --import tsx`.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import type { SandboxOptions } from "../src/sandbox/SandboxConfig.js"
import type { RunOnceInput, RunOnceOutput } from "./runOnce.js"

const HERE = import.meta.dirname
/** Compiled (`make bench` runs `dist-bench/`): children run as plain JS; else through tsx. */
const COMPILED = import.meta.url.endsWith(".js")
/** Node arguments that run a TypeScript file of this project (its compiled twin when compiled). */
export const scriptArgs = (file: string): Array<string> => (COMPILED ? [file.replace(/\.ts$/, ".js")] : ["--import", "tsx", file])
const argsFor = (script: string): Array<string> => scriptArgs(path.join(HERE, script))

export interface SandboxProc {
  readonly platformUrl: string
  readonly apiUrl: string
  /** GET or POST a `/__sandbox/` control route of the platform host. */
  readonly control: <A = any>(route: string, body?: unknown) => Promise<A>
  readonly close: () => Promise<void>
}

/** Starts the sandbox in its own process and waits for its URLs. */
export const startSandboxProc = async (options: SandboxOptions): Promise<SandboxProc> => {
  const child = spawn(process.execPath, [...argsFor("sandboxServer.ts"), JSON.stringify(options)], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const first = await new Promise<string>((resolve, reject) => {
    let buf = ""
    child.stdout!.on("data", (d) => {
      buf += d
      if (buf.includes("\n")) resolve(buf.split("\n")[0]!)
    })
    child.on("exit", (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  const { platformUrl, apiUrl } = JSON.parse(first) as { platformUrl: string; apiUrl: string }
  const control = async (route: string, body?: unknown) => {
    const res = await fetch(
      `${platformUrl}/__sandbox/${route}`,
      body === undefined
        ? {}
        : {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body)
          }
    )
    const text = await res.text()
    if (!res.ok) throw new Error(`sandbox control ${route}: ${res.status} ${text}`)
    return text === "" ? undefined : JSON.parse(text)
  }
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once("exit", () => resolve())
      child.stdin!.end()
    })
  return { platformUrl, apiUrl, control, close }
}

/** Runs one pipeline in a fresh process; `nodeArgs` e.g. `["--cpu-prof", "--cpu-prof-dir=..."]`. */
export const runOnce = (
  input: RunOnceInput,
  nodeArgs: ReadonlyArray<string> = [],
  env: Record<string, string> = {}
): Promise<RunOnceOutput> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...argsFor("runOnce.ts"), JSON.stringify(input)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env }
    })
    let out = ""
    let err = ""
    child.stdout!.on("data", (d) => (out += d))
    child.stderr!.on("data", (d) => (err += d))
    child.on("close", (code) => {
      const line = out.trim().split("\n").pop() ?? ""
      try {
        resolve(JSON.parse(line) as RunOnceOutput)
      } catch {
        reject(new Error(`run of ${input.pipeline} exited with ${code}: ${err.slice(-2000)}`))
      }
    })
  })

/** Runs a bench script in a fresh process and parses the JSON line it prints last. */
export const runScript = <A>(script: string, args: ReadonlyArray<string>): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...argsFor(script), ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout!.on("data", (d) => (out += d))
    child.stderr!.on("data", (d) => (err += d))
    child.on("close", (code) => {
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as A)
      } catch {
        reject(new Error(`${script} exited with ${code}: ${err.slice(-2000)}`))
      }
    })
  })
