/**
 * A command in a child process, measured from outside: wall time from spawn to exit, and the
 * child's own CPU (user + system) and peak RSS as the kernel counts them for the whole process
 * (GNU `time`, `/usr/bin/time`), so process start, module loading and exit are all counted, for
 * the toolkit and its baselines alike.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface ChildFigures {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** From spawn to exit, as the parent saw it. */
  readonly wallMs: number
  /** User + system CPU of the child, from `wait4`'s rusage. */
  readonly cpuMs: number
  readonly peakRssMb: number
}

const TIME = "/usr/bin/time"

/** Whether GNU time is installed (Debian: package `time`); the bench needs it. */
export const haveTime = () => fs.existsSync(TIME)

let counter = 0

/** Runs `command args` under GNU time and returns its output and figures. */
export const measured = (
  command: string,
  args: ReadonlyArray<string>,
  options: { env?: Record<string, string>; cwd?: string } = {}
): Promise<ChildFigures> =>
  new Promise((resolve, reject) => {
    const file = path.join(os.tmpdir(), `estate-bench-time-${process.pid}-${counter++}.txt`)
    const t0 = performance.now()
    const child = spawn(TIME, ["-f", "%U %S %M", "-o", file, command, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {})
    })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d) => (stdout += d))
    child.stderr!.on("data", (d) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => {
      const wallMs = performance.now() - t0
      try {
        // GNU time writes "Command exited with non-zero status N" before the figures
        const last = fs.readFileSync(file, "utf8").trim().split("\n").pop() ?? ""
        const [user, sys, rssKb] = last.split(" ").map(Number)
        resolve({ code, stdout, stderr, wallMs, cpuMs: (user! + sys!) * 1000, peakRssMb: rssKb! / 1024 })
      } catch (e) {
        reject(new Error(`${command} ${args.join(" ").slice(0, 200)}: no figures (${String(e)}); stderr: ${stderr.slice(-1000)}`))
      } finally {
        fs.rmSync(file, { force: true })
      }
    })
  })

/** min, median and max of some figures. */
export interface Spread {
  readonly min: number
  readonly median: number
  readonly max: number
}

export const spread = (xs: ReadonlyArray<number>): Spread => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return { min: s[0]!, median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, max: s[s.length - 1]! }
}

/**
 * A ratio's median (min-max) with two decimals; the median with as many more as it takes to tell
 * it from `bound`, the target it is judged against, when two would round it onto the bound (a
 * median of 0.3998 against ">= 0.40" reads 0.3998, not a "NOT met" 0.40).
 */
export const showRatio = (s: Spread, bound?: number): string => {
  let digits = 2
  while (bound !== undefined && s.median !== bound && Number(s.median.toFixed(digits)) === bound && digits < 6) digits++
  return `${s.median.toFixed(digits)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`
}
