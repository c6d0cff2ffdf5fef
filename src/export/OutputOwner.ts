/**
 * Output folders are owned: the first warehouse that exports into a folder records itself in
 * `<output>/.estate-etl-output.json` (its absolute path), and another warehouse exporting into
 * the same folder is refused (exit 2) with one line naming both. Two warehouses sharing an output
 * folder would otherwise replace each other's Parquet and Arrow files table by table, leaving a
 * mix of both. `make clean` (or deleting the file) hands the folder over.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { InvalidInput } from "../shared/InvalidInput.js"

export const OWNER_FILE = ".estate-etl-output.json"

/** An absolute path with its folder's symlinks resolved (the file itself may not exist yet). */
const canonical = (path: string) => {
  const absolute = nodePath.resolve(path)
  try {
    return nodePath.join(fs.realpathSync(nodePath.dirname(absolute)), nodePath.basename(absolute))
  } catch {
    return absolute
  }
}

const claim = (output: string, warehouse: string, retried: boolean): Effect.Effect<void, InvalidInput> =>
  Effect.suspend(() => {
    if (warehouse === ":memory:") return Effect.void
    const folder = canonical(output)
    const mine = canonical(warehouse)
    const marker = nodePath.join(folder, OWNER_FILE)
    let owner: string | undefined
    try {
      const text = fs.readFileSync(marker, "utf8")
      try {
        owner = String((JSON.parse(text) as { warehouse?: unknown }).warehouse ?? "")
      } catch {
        owner = ""
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
        return Effect.fail(
          new InvalidInput({ field: "output", detail: `cannot read ${marker} (${(e as NodeJS.ErrnoException).code ?? String(e)})` })
        )
      }
    }
    if (owner === mine) return Effect.void
    if (owner !== undefined) {
      return Effect.fail(
        new InvalidInput({
          field: "output",
          detail:
            owner === ""
              ? `${marker} does not name the warehouse that owns ${folder}; delete it to let ${mine} export there`
              : `${folder} holds the exports of warehouse ${owner}, not of ${mine}; give this warehouse its own output folder (settings "output"), or delete ${marker} to hand the folder over`
        })
      )
    }
    const tmp = `${marker}.${process.pid}.tmp`
    const content = JSON.stringify({ warehouse: mine, claimedAt: new Date().toISOString() }, null, 2) + "\n"
    try {
      fs.mkdirSync(folder, { recursive: true })
      fs.writeFileSync(tmp, content)
      try {
        // a hard link appears whole and only if no other process claimed the folder meanwhile
        fs.linkSync(tmp, marker)
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EXDEV") throw e
        fs.writeFileSync(marker, content, { flag: "wx" }) // a file system without hard links
      }
      return Effect.void
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST" && !retried) return claim(output, warehouse, true)
      return Effect.fail(
        new InvalidInput({
          field: "output",
          detail: `cannot write ${marker} (${(e as NodeJS.ErrnoException).code ?? String(e)}); give a writable folder`
        })
      )
    } finally {
      fs.rmSync(tmp, { force: true })
    }
  })

/**
 * Checks that `output` belongs to `warehouse` (or to nobody yet, in which case it is claimed
 * for it); fails `InvalidInput` when another warehouse owns it. Creates the folder if needed.
 */
export const claimOutput = (output: string, warehouse: string): Effect.Effect<void, InvalidInput> => claim(output, warehouse, false)
