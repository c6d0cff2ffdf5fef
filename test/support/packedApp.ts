/**
 * A newcomer's repository with this package installed from its packed tarball, made once per
 * build and shared by the adoption tests (`test/cli/adopt.test.ts`, `test/library/newcomer.test.ts`):
 * `npm pack` of the built dist/, `npm init -y`, `npm install <tarball>`, then README's
 * `npm install --save-dev tsx typescript` (at this checkout's versions, from the npm cache when it
 * has them). The install is the slow part of both tests, so it is done once into a folder named
 * after the build (`<tmp>/estate-packed-<hash>`), under a lock other test workers wait on; each test
 * copies it (`cp -a`) and works in its copy, as a user works in their own repository.
 */
import { spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const ROOT = path.resolve(import.meta.dirname, "../..")

export interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** A user's shell: no npm variables of the test run, no service URLs, no node options. */
export const userEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)))
  for (const k of [
    "MAKEFLAGS",
    "MAKELEVEL",
    "MFLAGS",
    "SVC_PLATFORM_URL",
    "SVC_API_URL",
    "NODE_OPTIONS",
    "ESTATE_ETL_CONFIG",
    "ESTATE_ETL_ENV"
  ])
    delete env[k]
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" }
}

/** Runs `command args` in `cwd` with a user's environment; killed after `timeoutMs`. */
export const sh = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs = 180_000): Promise<Outcome> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** Fails with the command's output when it did not exit `code`. */
export const expectCode = (o: Outcome, code: number, what: string) => {
  if (o.code !== code) throw new Error(`${what}: exit ${o.code}, expected ${code}\n--- stdout\n${o.stdout}\n--- stderr\n${o.stderr}`)
}

/** npm's own notices (a user config it does not know, ...) are not the command's output. */
export const withoutNpmNotices = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^npm (warn|notice)/.test(l))
    .join("\n")

export const QUIET = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]

/** The build this checkout has: the bundle's files, the declarations, the manifest and the lockfile. */
const buildKey = (): string => {
  const hash = createHash("sha256")
  const files = [
    ...fs.readdirSync(path.join(ROOT, "dist/bundle/chunks")).map((f) => `dist/bundle/chunks/${f}`),
    "dist/bundle/main.mjs",
    "dist/bundle/index.mjs",
    "dist/src/index.d.ts",
    "package.json",
    "package-lock.json"
  ]
  for (const f of files.sort()) {
    const stat = fs.statSync(path.join(ROOT, f))
    hash.update(`${f}:${stat.size}:${stat.mtimeMs}\n`)
  }
  return hash.digest("hex").slice(0, 12)
}

const version = (name: string): string =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version

export interface PackedApp {
  /** The folder the repository was made in (the tarball beside `app/`). */
  readonly base: string
  /** What `npm pack --json` listed. */
  readonly files: ReadonlyArray<string>
}

const install = async (base: string): Promise<ReadonlyArray<string>> => {
  const app = path.join(base, "app")
  fs.mkdirSync(app, { recursive: true })
  const pack = await sh("npm", ["pack", "--json", "--pack-destination", base], ROOT)
  expectCode(pack, 0, "npm pack")
  const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>
  expectCode(await sh("npm", ["init", "-y"], app), 0, "npm init -y")
  expectCode(await sh("npm", ["install", path.join(base, packed[0]!.filename), ...QUIET], app, 480_000), 0, "npm install <tarball>")
  const dev = ["install", "--save-dev", `tsx@${version("tsx")}`, `typescript@${version("typescript")}`, ...QUIET]
  expectCode(await sh("npm", dev, app, 480_000), 0, "npm install --save-dev tsx typescript")
  return packed[0]!.files.map((f) => f.path)
}

let made: Promise<PackedApp> | undefined

/** The shared install, made by the first test that asks (in any worker) and waited for by the others. */
export const packedApp = (): Promise<PackedApp> => (made ??= make())

const make = async (): Promise<PackedApp> => {
  const base = path.join(os.tmpdir(), `estate-packed-${buildKey()}`)
  const ready = path.join(base, ".ready.json")
  const lock = `${base}.lock`
  for (let waited = 0; ; waited += 500) {
    if (fs.existsSync(ready)) return { base, files: JSON.parse(fs.readFileSync(ready, "utf8")) as Array<string> }
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      // another worker installs; a lock older than 15 minutes was left by a killed run
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 900_000) fs.rmSync(lock, { recursive: true, force: true })
      if (waited > 900_000) throw new Error(`no shared install in ${base} after 15 minutes`)
      await new Promise((r) => setTimeout(r, 500))
    }
  }
  try {
    // installs of earlier builds (an hour old: no run of theirs still copies them) are of no further use
    for (const old of fs.readdirSync(os.tmpdir()).filter((f) => /^estate-packed-[0-9a-f]{12}$/.test(f))) {
      const at = path.join(os.tmpdir(), old)
      if (Date.now() - fs.statSync(at).mtimeMs > 3_600_000) fs.rmSync(at, { recursive: true, force: true })
    }
    const files = await install(base)
    fs.writeFileSync(ready, JSON.stringify(files))
    return { base, files }
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** A copy of the shared repository in a new folder (`<dir>/app`), for one test to work in. */
export const copyOfPackedApp = async (): Promise<{ readonly dir: string; readonly app: string; readonly files: ReadonlyArray<string> }> => {
  const { base, files } = await packedApp()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-app-"))
  const app = path.join(dir, "app")
  const copied = spawnSync("cp", ["-a", path.join(base, "app"), app])
  if (copied.status !== 0) throw new Error(`cp -a: ${copied.stderr}`)
  return { dir, app, files }
}
