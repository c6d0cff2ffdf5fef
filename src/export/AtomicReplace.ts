/**
 * Replacing a file or folder so that readers see the old one or the new one, never a mix and
 * never nothing, whenever the process is killed:
 *
 * - A file is written into a temporary sibling and renamed over the target: one `rename(2)`,
 *   atomic on POSIX file systems.
 * - A folder cannot be renamed over a non-empty folder, so a folder target is a symbolic link
 *   (`<name> -> .<name>.v-<stamp>`, relative) to a hidden version folder beside it. The new
 *   version is written into a temporary sibling, renamed to its version name, and a new link is
 *   renamed over the old one: again one atomic `rename(2)`. The old version is removed after.
 *   Readers that open `<name>/...` (DuckDB's `read_parquet('<name>/**')`, pyarrow, pandas)
 *   follow the link.
 *
 * A target that is still a real folder (written by an earlier version of this module) is moved
 * aside and replaced by the link: the one step with a window, taken once per folder. A kill in it
 * leaves the old folder as `.<name>.old-*`, and the next replacement of the same target heals it
 * first (a missing target gets its newest moved-aside copy back). Leftovers of dead processes
 * (`.<name>.tmp-*`, `.<name>.link-*`, versions no link points to) are removed then too.
 */
import { Effect } from "effect"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { causeMessage, WarehouseError } from "../load/WarehouseError.js"
import { pidAlive } from "../shared/ProcessAlive.js"

const io = (what: string, path: string) => (cause: unknown) =>
  new WarehouseError({ reason: "Io", path, cause, detail: `${what} ${path}: ${causeMessage(cause)}` })

const lstat = (path: string) => fs.lstat(path).catch(() => undefined)

/** Siblings are named `.<name>.<kind>-<pid>-<time>-<random>`. */
const siblingPid = (name: string, prefix: string) => Number(name.slice(prefix.length).split("-")[0])

/** Restores a target a killed replacement left without content, and removes what it left beside it. */
const heal = async (target: string) => {
  const dir = nodePath.dirname(target)
  const base = nodePath.basename(target)
  const names = await fs.readdir(dir).catch(() => [] as Array<string>)
  const olds = names.filter((n) => n.startsWith(`.${base}.old-`)).sort()
  if (olds.length > 0 && !(await lstat(target))) await fs.rename(nodePath.join(dir, olds.pop()!), target)
  const current = await fs.readlink(target).catch(() => undefined)
  const dead = (kind: string) => names.filter((n) => n.startsWith(`.${base}.${kind}-`) && !pidAlive(siblingPid(n, `.${base}.${kind}-`)))
  const unlinkedVersions = dead("v").filter((n) => n !== current)
  for (const n of [...olds, ...dead("tmp"), ...dead("link"), ...unlinkedVersions]) {
    await fs.rm(nodePath.join(dir, n), { recursive: true, force: true })
  }
}

/** Moves a complete temporary file or folder into place (see the module comment). */
const swapIn = async (tmp: string, target: string, stamp: string) => {
  const dir = nodePath.dirname(target)
  const base = nodePath.basename(target)
  if (!(await fs.stat(tmp)).isDirectory()) return fs.rename(tmp, target)
  const version = `.${base}.v-${stamp}`
  await fs.rename(tmp, nodePath.join(dir, version))
  const link = nodePath.join(dir, `.${base}.link-${stamp}`)
  await fs.symlink(version, link, "dir")
  const before = await lstat(target)
  const previous = before?.isSymbolicLink() ? await fs.readlink(target) : undefined
  if (before && !before.isSymbolicLink()) {
    // a real folder of the earlier layout: moved aside, the link renamed in, back to back
    const old = nodePath.join(dir, `.${base}.old-${stamp}`)
    fsSync.renameSync(target, old)
    fsSync.renameSync(link, target)
    await fs.rm(old, { recursive: true, force: true })
  } else {
    await fs.rename(link, target)
  }
  if (previous !== undefined && previous !== version && !nodePath.isAbsolute(previous) && previous.startsWith(`.${base}.v-`)) {
    await fs.rm(nodePath.join(dir, previous), { recursive: true, force: true })
  }
}

export const replaceAtomically = <A, E, R>(
  target: string,
  write: (temporary: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | WarehouseError, R> => {
  const stamp = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const tmp = nodePath.join(nodePath.dirname(target), `.${nodePath.basename(target)}.tmp-${stamp}`)
  const cleanup = Effect.promise(() => fs.rm(tmp, { recursive: true, force: true }))
  return Effect.gen(function* () {
    yield* Effect.tryPromise({
      try: () => fs.mkdir(nodePath.dirname(target), { recursive: true }),
      catch: io("Cannot create", nodePath.dirname(target))
    })
    yield* Effect.tryPromise({ try: () => heal(target), catch: io("Cannot clean up an interrupted export of", target) })
    const a = yield* write(tmp)
    yield* Effect.tryPromise({ try: () => swapIn(tmp, target, stamp), catch: io("Cannot move the new export into", target) })
    return a
  }).pipe(Effect.onExit((exit) => (exit._tag === "Failure" ? cleanup : Effect.void)))
}
