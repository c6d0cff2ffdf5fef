import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as nodePath from "node:path"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { tempDir } from "./fixtures.js"

/** Runs the child and SIGKILLs it `delayMs` after it announces the big commit. */
const crashDuringCommit = (path: string, delayMs: number) =>
  Effect.async<string>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", nodePath.join(import.meta.dirname, "crashChild.ts"), path], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      if (out.includes("committing")) setTimeout(() => child.kill("SIGKILL"), delayMs)
    })
    child.on("exit", () => resume(Effect.succeed(out)))
  })

describe("crash safety", () => {
  it.live(
    "a process killed during a page commit leaves all of the page or none of it",
    () =>
      Effect.gen(function* () {
        for (const delayMs of [0, 150]) {
          const path = nodePath.join(tempDir(), "warehouse.duckdb")
          yield* crashDuringCommit(path, delayMs)
          const state = yield* Effect.scoped(
            Effect.gen(function* () {
              const wh = yield* makeWarehouse({ path })
              const counts = yield* wh.tableCounts()
              const cps = yield* wh.checkpoints("plots")
              const run = yield* wh.runs(1)
              return { rows: counts.plots, checkpoint: cps[0]?.value, pages: run[0]?.pages }
            })
          )
          // Either the first page only, or both pages: rows, checkpoint and counters agree.
          expect([
            { rows: 1, checkpoint: 1, pages: 1 },
            { rows: 200_001, checkpoint: 2, pages: 2 }
          ]).toContainEqual(state)
        }
      }),
    60_000
  )
})
