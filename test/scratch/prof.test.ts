import * as path from "node:path"
import { it } from "vitest"
import { makeHarness } from "../support/pipelines.js"
import { TRUTH_WORLD } from "../support/groundTruth.js"

it("profiles runs", async () => {
  const h = await makeHarness({ sandbox: { world: TRUTH_WORLD }, settings: { service: { platformRate: 0, apiRate: 0 }, duckdb: { threads: 1 } } })
  const pipes = (process.env.PIPES ?? "references").split(",")
  await h.run(pipes[0]!, { warehouse: path.join(h.dir, `warm.duckdb`) }).catch(() => undefined)
  const c0 = process.cpuUsage(); const t0 = performance.now()
  for (let i = 0; i < 5; i++) for (const p of pipes) await h.run(p, { warehouse: path.join(h.dir, `${p}-${i}.duckdb`) })
  const c = process.cpuUsage(c0)
  console.log(`5 rounds of ${pipes}: ${(performance.now() - t0).toFixed(0)} ms wall ${((c.user + c.system) / 1000).toFixed(0)} ms cpu`)
  await h.close()
}, 300_000)
