import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { replaceAtomically } from "../../src/export/AtomicReplace.js"

const dirs: Array<string> = []
const temp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "estate-replace-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const writeFolder = (content: string) => (tmp: string) =>
  Effect.sync(() => {
    fs.mkdirSync(tmp, { recursive: true })
    fs.writeFileSync(path.join(tmp, "part-0.parquet"), content)
  })

describe("atomic replace", () => {
  it("replaces a folder, leaving nothing beside it", async () => {
    const dir = temp()
    const target = path.join(dir, "plots")
    await Effect.runPromise(replaceAtomically(target, writeFolder("v1")))
    await Effect.runPromise(replaceAtomically(target, writeFolder("v2")))
    expect(fs.readFileSync(path.join(target, "part-0.parquet"), "utf8")).toBe("v2")
    // the folder is a link to the one version beside it; the first version is gone
    const version = fs.readlinkSync(target)
    expect(version).toMatch(/^\.plots\.v-/)
    expect(fs.readdirSync(dir).sort()).toEqual([version, "plots"])
  })

  it("a folder of the earlier layout (a real folder) becomes a link to its new version", async () => {
    const dir = temp()
    const target = path.join(dir, "plots")
    fs.mkdirSync(target)
    fs.writeFileSync(path.join(target, "part-0.parquet"), "v1")
    await Effect.runPromise(replaceAtomically(target, writeFolder("v2")))
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(path.join(target, "part-0.parquet"), "utf8")).toBe("v2")
    expect(fs.readdirSync(dir).sort()).toEqual([fs.readlinkSync(target), "plots"])
  })

  it("replaces a file with one rename, leaving nothing beside it", async () => {
    const dir = temp()
    const target = path.join(dir, "plots.arrow")
    for (const v of ["v1", "v2"]) await Effect.runPromise(replaceAtomically(target, (tmp) => Effect.sync(() => fs.writeFileSync(tmp, v))))
    expect(fs.lstatSync(target).isFile()).toBe(true)
    expect(fs.readFileSync(target, "utf8")).toBe("v2")
    expect(fs.readdirSync(dir)).toEqual(["plots.arrow"])
  })

  it("a failed write leaves the old version in place and nothing beside it", async () => {
    const dir = temp()
    const target = path.join(dir, "plots")
    await Effect.runPromise(replaceAtomically(target, writeFolder("v1")))
    const failed = replaceAtomically(target, (tmp) => Effect.zipRight(writeFolder("v2")(tmp), Effect.fail("disk full")))
    expect(await Effect.runPromise(Effect.flip(failed))).toBe("disk full")
    expect(fs.readFileSync(path.join(target, "part-0.parquet"), "utf8")).toBe("v1")
    expect(fs.readdirSync(dir).sort()).toEqual([fs.readlinkSync(target), "plots"])
  })

  it("heals what a killed replacement left: the moved-aside folder comes back if the target is gone, leftovers of dead processes go", async () => {
    const dir = temp()
    const target = path.join(dir, "plots")
    // a kill between the two renames: the old content moved aside, the new one not in place
    fs.mkdirSync(path.join(dir, ".plots.old-999999999-a-b"))
    fs.writeFileSync(path.join(dir, ".plots.old-999999999-a-b", "part-0.parquet"), "v1")
    fs.mkdirSync(path.join(dir, ".plots.tmp-999999999-a-c")) // a dead process's half-written folder
    fs.mkdirSync(path.join(dir, `.plots.tmp-${process.pid}-a-d`)) // a live process's: left alone
    fs.mkdirSync(path.join(dir, ".plots.v-999999999-a-e")) // a dead process's version, never linked
    fs.symlinkSync(".plots.v-999999999-a-e", path.join(dir, ".plots.link-999999999-a-e")) // and its link
    let seenBeforeWrite: string | undefined
    await Effect.runPromise(
      replaceAtomically(target, (tmp) =>
        Effect.zipRight(
          Effect.sync(() => (seenBeforeWrite = fs.readFileSync(path.join(target, "part-0.parquet"), "utf8"))),
          writeFolder("v2")(tmp)
        )
      )
    )
    expect(seenBeforeWrite).toBe("v1") // restored before the new export was written
    expect(fs.readFileSync(path.join(target, "part-0.parquet"), "utf8")).toBe("v2")
    expect(fs.readdirSync(dir).sort()).toEqual([`.plots.tmp-${process.pid}-a-d`, fs.readlinkSync(target), "plots"].sort())
  })
})
