/**
 * Where a run is pointed, said in its first line (stderr: text on a terminal, a JSON line of type
 * `target` otherwise, as the run's progress): the embedded sandbox or the service's URLs, the
 * settings file it read (or that it found none) and the warehouse. A run against the real service
 * then checks that the credentials its pipelines need are set before anything is written or paid.
 */
import { Effect, Option } from "effect"
import * as nodePath from "node:path"
import type { Settings } from "../config/Settings.js"
import { displayUrl } from "../monitor/RunStateFile.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { AuthenticationFailed } from "../service/ServiceError.js"
import { missingCredentials, remoteUrls } from "../wiring/Environment.js"

export interface Pointed {
  readonly kind: "sandbox" | "remote"
  readonly platformUrl?: string | undefined
  readonly apiUrl?: string | undefined
  /** `the embedded sandbox` or `the service at ...` (no user, password or query in a URL). */
  readonly text: string
}

/** The embedded sandbox (also a sandbox a caller started and hands over). */
export const SANDBOX: Pointed = {
  kind: "sandbox",
  text: "the embedded sandbox (a simulator in this process; units and EUR simulated, nothing is paid)"
}

/** Where `settings` point a run (the environment's URLs win, as the run reads them). */
export const pointedAt = (settings: Settings): Pointed => {
  if (settings.service.target === "sandbox") return SANDBOX
  const { platformUrl, apiUrl } = remoteUrls(settings)
  const p = Option.map(platformUrl, displayUrl)
  const a = Option.map(apiUrl, displayUrl)
  return {
    kind: "remote",
    platformUrl: Option.getOrUndefined(p),
    apiUrl: Option.getOrUndefined(a),
    text: `the service at ${Option.getOrElse(p, () => "(no platform URL)")} (platform) and ${Option.getOrElse(a, () => "(no token-host URL)")} (token host)`
  }
}

/** The state file's short form: `sandbox (embedded)` or the two URLs. */
export const targetShort = (p: Pointed) => (p.kind === "sandbox" ? "sandbox (embedded)" : `${p.platformUrl ?? "?"} and ${p.apiUrl ?? "?"}`)

/**
 * Prints the run's first line. `settingsFile` is the file read (`undefined`: none was found, so
 * every value is a default or from the environment).
 */
export const printTarget = (options: {
  readonly command: string
  readonly pointed: Pointed
  readonly settingsFile: string | undefined
  readonly warehouse: string
  readonly json: boolean
}) =>
  Effect.sync(() => {
    const { pointed, settingsFile, warehouse } = options
    const settings =
      settingsFile === undefined
        ? `settings: none found (no estate-etl.json or config/sandbox.json in ${process.cwd()} or a folder above it), so every default`
        : `settings ${settingsFile}`
    const line = `${options.command}: ${pointed.text}; ${settings}; warehouse ${nodePath.resolve(warehouse)}`
    process.stderr.write(
      options.json
        ? JSON.stringify({
            at: new Date().toISOString(),
            type: "target",
            target: pointed.kind,
            ...(pointed.kind === "remote" ? { platformUrl: pointed.platformUrl, apiUrl: pointed.apiUrl } : {}),
            settings: settingsFile ?? null,
            warehouse: nodePath.resolve(warehouse),
            message: line
          }) + "\n"
        : `${line}\n`
    )
  })

/**
 * Before anything is written or paid: a remote run has both URLs and, for each host its
 * pipelines read, the credentials that host needs (named, never shown). Missing credentials are
 * an authentication ending (exit 5), as the first request would have found, only earlier.
 */
export const checkRemote = (settings: Settings, pipelines: ReadonlyArray<Pipeline>) =>
  Effect.gen(function* () {
    if (settings.service.target !== "remote") return
    const { platformUrl, apiUrl } = remoteUrls(settings)
    if (Option.isNone(platformUrl) || Option.isNone(apiUrl)) {
      return yield* new InvalidInput({
        field: "service.platformUrl / service.apiUrl",
        detail: "a remote target needs both base URLs (settings, or SVC_PLATFORM_URL and SVC_API_URL)"
      })
    }
    for (const host of ["platform", "token"] as const) {
      const users = pipelines.filter((p) => p.host === host)
      const missing = users.length > 0 ? missingCredentials(settings, host) : []
      if (missing.length === 0) continue
      const url = displayUrl(host === "platform" ? platformUrl.value : apiUrl.value)
      return yield* new AuthenticationFailed({
        reason: "MissingCredentials",
        host,
        operation: users[0]!.cost.operation,
        detail: `${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not set (environment or .env), and ${users.map((p) => p.name).join(", ")} ${users.length === 1 ? "reads" : "read"} ${url}; nothing was sent or written`
      })
    }
  })
