/**
 * The receiver's secrets file: the signing secrets a delivery may be signed with, and how a
 * rotation reaches a running receiver.
 *
 * Format: one secret per line, optionally followed by `until=<ISO instant>` (the end of a graceful
 * rotation's 24-hour window: past it the receiver no longer accepts that secret); blank lines and
 * `#` comments are ignored. Example:
 *
 *     whsec_NEW...
 *     whsec_OLD... until=2026-06-02T12:00:00.000Z
 *
 * - `alerts rotate-secret` rewrites the file (`writeSecretsFile`: temp file, fsync, rename, mode
 *   0600): `--immediate` leaves only the new secret; a graceful rotation puts the new secret first
 *   and keeps the earlier ones with `until` = now + 24 h.
 * - The receiver (`fileSecretSource`) stats the file before it checks each delivery's signature and
 *   re-reads it when its inode, size or mtime changed, so a revocation takes effect from the next
 *   delivery on, with no restart and no signal. A file that cannot be read (mid-edit by hand,
 *   permissions) or that disappears leaves the last secrets read in force (logged); a file that
 *   does not exist yet leaves the fallback (the `--secret-env` variable) in force.
 */
import { Clock, Data, Effect, Redacted } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"

export class SecretsError extends Data.TaggedError("SecretsError")<{
  readonly reason: "Read" | "Write"
  readonly path: string
  readonly cause?: unknown
}> {
  override get message() {
    return `Cannot ${this.reason.toLowerCase()} the webhook secrets file ${this.path}${this.cause instanceof Error ? ` (${this.cause.message})` : ""}`
  }
}

/** A secret of the file, with the end of its grace window (epoch ms) if it has one. */
export interface HeldSecret {
  readonly secret: Redacted.Redacted<string>
  readonly until?: number
}

/** The graceful rotation's window (spec: earlier secrets stay valid for 24 hours). */
export const ROTATION_GRACE_MS = 24 * 3_600_000

/** Parses the file's text; lines that are not `<secret> [until=<instant>]` are skipped. */
export const parseSecretsFile = (text: string): ReadonlyArray<HeldSecret> =>
  text.split(/\r?\n/).flatMap((raw) => {
    const line = raw.replace(/#.*$/, "").trim()
    if (line === "") return []
    const [secret, ...rest] = line.split(/\s+/)
    const until = rest.find((t) => t.startsWith("until="))
    const ms = until === undefined ? undefined : Date.parse(until.slice("until=".length))
    return [{ secret: Redacted.make(secret!), ...(ms !== undefined && Number.isFinite(ms) ? { until: ms } : {}) }]
  })

const formatSecrets = (secrets: ReadonlyArray<HeldSecret>) =>
  "# Webhook signing secrets accepted by serve-alerts (written by `alerts rotate-secret`).\n" +
  secrets.map((s) => `${Redacted.value(s.secret)}${s.until !== undefined ? ` until=${new Date(s.until).toISOString()}` : ""}\n`).join("")

/** The file's secrets, or `undefined` when it does not exist. */
export const readSecretsFile = (path: string): Effect.Effect<ReadonlyArray<HeldSecret> | undefined, SecretsError> =>
  Effect.tryPromise({
    try: async () => {
      try {
        return parseSecretsFile(await fs.promises.readFile(path, "utf8"))
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined
        throw e
      }
    },
    catch: (cause) => new SecretsError({ reason: "Read", path, cause })
  })

/** Replaces the file atomically (a reader sees the old or the new content, never a mix); mode 0600. */
export const writeSecretsFile = (path: string, secrets: ReadonlyArray<HeldSecret>): Effect.Effect<void, SecretsError> =>
  Effect.tryPromise({
    try: async () => {
      const abs = nodePath.resolve(path)
      await fs.promises.mkdir(nodePath.dirname(abs), { recursive: true })
      const tmp = `${abs}.${process.pid}.${Date.now()}.tmp`
      const fh = await fs.promises.open(tmp, "w", 0o600)
      try {
        await fh.writeFile(formatSecrets(secrets), "utf8")
        await fh.sync()
      } finally {
        await fh.close()
      }
      await fs.promises.rename(tmp, abs)
    },
    catch: (cause) => new SecretsError({ reason: "Write", path, cause })
  })

/**
 * What the file holds after a rotation to `secret`: only it (`immediate`), or it first and the
 * earlier ones (`previous`) until `nowMs` + 24 h (an earlier end already recorded is kept).
 */
export const rotatedSecrets = (
  secret: string,
  previous: ReadonlyArray<HeldSecret>,
  immediate: boolean,
  nowMs: number
): ReadonlyArray<HeldSecret> => {
  const fresh: HeldSecret = { secret: Redacted.make(secret) }
  if (immediate) return [fresh]
  const end = nowMs + ROTATION_GRACE_MS
  const kept = previous
    .filter((s) => Redacted.value(s.secret) !== secret && (s.until === undefined || s.until > nowMs))
    .map((s) => ({ secret: s.secret, until: Math.min(s.until ?? end, end) }))
  return [fresh, ...kept]
}

/** The secrets a receiver accepts, looked up before each signature check. */
export interface SecretSource {
  /** The secrets in force now (past-`until` ones left out). */
  readonly current: Effect.Effect<ReadonlyArray<Redacted.Redacted<string>>>
  /** Where they come from, for logs: the file, or "static". */
  readonly origin: string
}

/** Fixed secrets (tests, or a receiver started without a secrets file). */
export const staticSecrets = (secrets: ReadonlyArray<Redacted.Redacted<string>>): SecretSource => ({
  current: Effect.succeed(secrets),
  origin: "static"
})

const inForce = (held: ReadonlyArray<HeldSecret>, nowMs: number) =>
  held.filter((s) => s.until === undefined || s.until > nowMs).map((s) => s.secret)

/**
 * Secrets from `path`, re-read whenever the file changes (checked with one `stat` per call of
 * `current`); `fallback` while the file does not exist.
 */
export const fileSecretSource = (
  path: string,
  fallback: ReadonlyArray<Redacted.Redacted<string>> = []
): Effect.Effect<SecretSource, SecretsError> =>
  Effect.gen(function* () {
    let held: ReadonlyArray<HeldSecret> = fallback.map((secret) => ({ secret }))
    let seen = "" // "<ino>:<size>:<mtimeMs>" of the content `held` came from ("" = not read yet)
    const stamp = (st: fs.Stats) => `${st.ino}:${st.size}:${st.mtimeMs}`
    const first = yield* Effect.tryPromise({
      try: () => fs.promises.stat(path).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e))),
      catch: (cause) => new SecretsError({ reason: "Read", path, cause })
    })
    if (first !== undefined) {
      const read = yield* readSecretsFile(path)
      if (read !== undefined) {
        held = read
        seen = stamp(first)
      }
    }
    const refresh = Effect.promise(async () => {
      let st: fs.Stats
      try {
        st = await fs.promises.stat(path)
      } catch {
        return undefined // gone (or not there yet): what was in force stays in force
      }
      if (stamp(st) === seen) return undefined
      try {
        const text = await fs.promises.readFile(path, "utf8")
        held = parseSecretsFile(text)
        seen = stamp(st)
        return undefined
      } catch (e) {
        return e
      }
    }).pipe(
      Effect.flatMap((e) =>
        e === undefined
          ? Effect.void
          : Effect.logWarning(`${new SecretsError({ reason: "Read", path, cause: e }).message}; keeping the secrets in force`)
      )
    )
    const current = Effect.zipRight(
      refresh,
      Effect.map(Clock.currentTimeMillis, (now) => inForce(held, now))
    )
    return { current, origin: path } satisfies SecretSource
  })
