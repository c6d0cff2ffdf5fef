/**
 * The spool: a torn last line (a crash mid-write) is cut off on open and ignored on read;
 * concurrent appends are all durable and intact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { openSpool, readSpool } from "../../src/webhooks/Spool.js"
import { spoolLines, tempDir } from "./support.js"

const entry = (id: string) => ({ id, timestamp: 1_780_000_000, receivedAt: 1_780_000_000_123, body: `{"n":"${id}"}` })
const line = (id: string) => JSON.stringify(entry(id)) + "\n"

describe("Spool", () => {
  it.scoped("cuts a torn last line on open and appends after the last whole line", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "spool.ndjson")
      fs.writeFileSync(path, line("a") + line("b") + line("c").slice(0, 20))
      const before = yield* readSpool(path)
      expect(before.entries.map((e) => e.id)).toEqual(["a", "b"])
      expect(before.end).toBe(Buffer.byteLength(line("a") + line("b")))
      const spool = yield* openSpool(path)
      expect(spool.existingIds).toEqual(["a", "b"])
      yield* spool.append(entry("d"))
      expect(spoolLines(path).map((l) => l.id)).toEqual(["a", "b", "d"])
      const after = yield* readSpool(path, before.end)
      expect(after.entries.map((e) => e.id)).toEqual(["d"])
      expect(after.corrupt).toBe(0)
    })
  )

  it.scoped("group-commits concurrent appends, each line whole", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "sub", "spool.ndjson")
      const spool = yield* openSpool(path)
      const ids = Array.from({ length: 300 }, (_, i) => `m${i}`)
      yield* Effect.forEach(ids, (id) => spool.append(entry(id)), { concurrency: "unbounded", discard: true })
      const read = yield* readSpool(path)
      expect(read.entries.map((e) => e.id).sort()).toEqual([...ids].sort())
      expect(read.corrupt).toBe(0)
      expect(read.end).toBe(fs.statSync(path).size)
    })
  )

  it.effect("reads a missing spool as empty and a shrunk one from the start", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      expect((yield* readSpool(nodePath.join(dir, "none.ndjson"))).entries).toEqual([])
      const path = nodePath.join(dir, "s.ndjson")
      fs.writeFileSync(path, line("x"))
      expect((yield* readSpool(path, 10_000)).entries.map((e) => e.id)).toEqual(["x"])
    })
  )
})
