/**
 * Replacing a file or folder so that readers see the old one or the new one, never a mix:
 * the new content is written into a temporary sibling, the old one is moved aside, the new one
 * renamed into place, and only then the old one removed. A failure before the rename leaves the
 * old content untouched (and removes the temporary sibling).
 *
 * The two renames are synchronous and back to back (no turn of the event loop between them), so
 * a kill can hardly fall between them; if one does, or between the rename and the removal, the
 * next replacement of the same target heals it first: a missing target gets its newest moved-aside
 * copy back, and leftovers (`.<name>.old-*`, `.<name>.tmp-*` of dead processes) are removed.
 */
import { Effect } from "effect"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { causeMessage, WarehouseError } from "../load/WarehouseError.js"

const io = (what: string, path: string) => (cause: unknown) =>
  new WarehouseError({ reason: "Io", path, cause, detail: `${what} ${path}: ${causeMessage(cause)}` })

const exists = (path: string) =>
  fs.stat(path).then(
    () => true,
    () => false
  )

/** Whether a process is running (a temporary sibling of a live one is still being written). */
const pidAlive = (pid: number) => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Restores a target a killed replacement left without content, and removes what it left beside it. */
const heal = async (target: string) => {
  const dir = nodePath.dirname(target)
  const base = nodePath.basename(target)
  const names = await fs.readdir(dir).catch(() => [] as Array<string>)
  const olds = names.filter((n) => n.startsWith(`.${base}.old-`)).sort()
  const deadTmps = names.filter((n) => n.startsWith(`.${base}.tmp-`) && !pidAlive(Number(n.slice(`.${base}.tmp-`.length).split("-")[0])))
  if (olds.length > 0 && !(await exists(target))) await fs.rename(nodePath.join(dir, olds.pop()!), target)
  for (const n of [...olds, ...deadTmps]) await fs.rm(nodePath.join(dir, n), { recursive: true, force: true })
}

export const replaceAtomically = <A, E, R>(
  target: string,
  write: (temporary: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | WarehouseError, R> => {
  const stamp = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const tmp = nodePath.join(nodePath.dirname(target), `.${nodePath.basename(target)}.tmp-${stamp}`)
  const old = nodePath.join(nodePath.dirname(target), `.${nodePath.basename(target)}.old-${stamp}`)
  const cleanup = Effect.promise(() => fs.rm(tmp, { recursive: true, force: true }))
  return Effect.gen(function* () {
    yield* Effect.tryPromise({
      try: () => fs.mkdir(nodePath.dirname(target), { recursive: true }),
      catch: io("Cannot create", nodePath.dirname(target))
    })
    yield* Effect.tryPromise({ try: () => heal(target), catch: io("Cannot clean up an interrupted export of", target) })
    const a = yield* write(tmp)
    yield* Effect.tryPromise({
      try: async () => {
        const hadOld = await exists(target)
        // back to back, synchronously: no other work runs between the two renames
        if (hadOld) fsSync.renameSync(target, old)
        try {
          fsSync.renameSync(tmp, target)
        } catch (e) {
          if (hadOld) fsSync.renameSync(old, target)
          throw e
        }
        if (hadOld) await fs.rm(old, { recursive: true, force: true })
      },
      catch: io("Cannot move the new export into", target)
    })
    return a
  }).pipe(Effect.onExit((exit) => (exit._tag === "Failure" ? cleanup : Effect.void)))
}
