/**
 * Child process of the crash test: commits one small page, then announces and commits a large
 * one; the parent kills it with SIGKILL while the second commit is under way.
 */
import { Effect } from "effect"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { page, plotRow, plots } from "./fixtures.js"

const path = process.argv[2]!
const program = Effect.gen(function* () {
  const wh = yield* makeWarehouse({ path, rawDir: false })
  yield* wh.ensureTables([plots])
  yield* wh.startRun({ runId: "r1", pipeline: "plots" })
  yield* wh.commitPage(page("r1", { plots: [plotRow(0)] }, { key: "k", value: 1 }))
  const big = Array.from({ length: 200_000 }, (_, i) => plotRow(i + 1))
  console.log("committing")
  yield* wh.commitPage(page("r1", { plots: big }, { key: "k", value: 2 }))
  console.log("committed")
  yield* Effect.never
})
Effect.runPromise(Effect.scoped(program)).catch((e) => {
  console.error(e)
  process.exit(1)
})
