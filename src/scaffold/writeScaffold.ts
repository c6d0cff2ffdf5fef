/**
 * Writes scaffold files under a folder, all or none: a file that exists already is refused
 * (`InvalidInput`, exit 2, nothing written) unless `force` says to overwrite it.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { InvalidInput } from "../shared/InvalidInput.js"
import type { ScaffoldFile } from "./InitFiles.js"

/** Writes `files` under `dir`; returns them as written. `field`: what an error names (the command). */
export const writeScaffold = (
  dir: string,
  files: ReadonlyArray<ScaffoldFile>,
  options: { readonly force: boolean; readonly field: string }
): Effect.Effect<ReadonlyArray<ScaffoldFile>, InvalidInput> =>
  Effect.suspend(() => {
    const existing = files.filter((f) => fs.existsSync(nodePath.join(dir, f.path)))
    if (existing.length > 0 && !options.force) {
      return Effect.fail(
        new InvalidInput({
          field: options.field,
          detail: `${existing.map((f) => f.path).join(", ")} exist${existing.length === 1 ? "s" : ""} already; nothing written (--force overwrites)`
        })
      )
    }
    return Effect.try({
      try: () => {
        for (const f of files) {
          const target = nodePath.join(dir, f.path)
          fs.mkdirSync(nodePath.dirname(target), { recursive: true })
          fs.writeFileSync(target, f.text)
        }
        return files
      },
      catch: (e) => new InvalidInput({ field: options.field, detail: `cannot write in ${dir}: ${(e as Error).message}` })
    })
  })

/** `wrote <path>  <about>` lines, paths aligned. */
export const wroteLines = (files: ReadonlyArray<ScaffoldFile>): string => {
  const width = Math.max(...files.map((f) => f.path.length))
  return files.map((f) => `wrote ${f.path.padEnd(width)}  ${f.about}`).join("\n") + "\n"
}
