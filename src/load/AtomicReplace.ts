/**
 * Replacing a file or folder so that readers see the old one or the new one, never a mix:
 * the new content is written into a temporary sibling, the old one is moved aside, the new one
 * renamed into place, and only then the old one removed. A failure before the rename leaves the
 * old content untouched (and removes the temporary sibling).
 */
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { causeMessage, WarehouseError } from "./WarehouseError.js"

const io = (what: string, path: string) => (cause: unknown) =>
  new WarehouseError({ reason: "Io", path, cause, detail: `${what} ${path}: ${causeMessage(cause)}` })

const exists = (path: string) => fs.stat(path).then(() => true, () => false)

export const replaceAtomically = <A, E, R>(
  target: string,
  write: (temporary: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | WarehouseError, R> => {
  const stamp = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const tmp = nodePath.join(nodePath.dirname(target), `.${nodePath.basename(target)}.tmp-${stamp}`)
  const old = nodePath.join(nodePath.dirname(target), `.${nodePath.basename(target)}.old-${stamp}`)
  const cleanup = Effect.promise(() => fs.rm(tmp, { recursive: true, force: true }))
  return Effect.gen(function*() {
    yield* Effect.tryPromise({ try: () => fs.mkdir(nodePath.dirname(target), { recursive: true }), catch: io("Cannot create", nodePath.dirname(target)) })
    const a = yield* write(tmp)
    yield* Effect.tryPromise({
      try: async () => {
        const hadOld = await exists(target)
        if (hadOld) await fs.rename(target, old)
        try {
          await fs.rename(tmp, target)
        } catch (e) {
          if (hadOld) await fs.rename(old, target)
          throw e
        }
        if (hadOld) await fs.rm(old, { recursive: true, force: true })
      },
      catch: io("Cannot move the new export into", target)
    })
    return a
  }).pipe(Effect.onExit((exit) => (exit._tag === "Failure" ? cleanup : Effect.void)))
}
