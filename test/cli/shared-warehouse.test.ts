/**
 * One warehouse, several processes, no random failures, through the real CLI (child processes):
 * - 12 runs (50 under `make chaos`), one after the other, against a warehouse that `serve-alerts` loads its spool into
 *   every second while signed deliveries keep arriving: every run ends 0 (a run waits for the
 *   receiver's short load; the receiver skips or cuts short its loads while a run holds or waits
 *   for the warehouse), and every acknowledged delivery lands exactly once;
 * - a run that finds the warehouse held waits for it (`--lock-wait`), saying once who holds it,
 *   and gives up with exit 2 when the bound passes.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Warehouse } from "../../src/load/Warehouse.js"
import { collect, remoteConfig, runCli, sandboxEnv, spawnCli } from "../support/cli.js"
import { startTestSandbox, totalRequests } from "../support/sandbox.js"
import { deliver, eventBody, newSecret } from "../webhooks/support.js"
import { holder } from "../support/holder.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

/** `make chaos` (CHAOS=full) runs the 50; `make test` runs the lock waits only (vitest.config.ts). */
const RUNS = 50

const rows = (warehouse: string, sql: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Warehouse, (w) => w.query(sql)).pipe(Effect.provide(Warehouse.Default({ path: warehouse, readOnly: true })))
    )
  )

describe("one warehouse, several processes", () => {
  let sandbox: Sandbox
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 600 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-shared-"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const setup = () => {
    const d = fs.mkdtempSync(path.join(dir, "w-"))
    const config = remoteConfig(d, sandbox, {
      pipelines: { references: { params: { location_countries: ["ES"], source_location_ids: [18] } } }
    })
    return { d, config, warehouse: path.join(d, "warehouse.duckdb") }
  }

  it.runIf(process.env.CHAOS === "full")(
    `${RUNS} runs against a receiver loading every second: no run fails, every delivery lands once`,
    async () => {
      const { d, config, warehouse } = setup()
      const spool = path.join(d, "alerts-spool.ndjson")
      const secret = newSecret()
      const receiver = spawnCli(
        [
          "serve-alerts",
          "--port",
          "0",
          "--config",
          config,
          "--spool",
          spool,
          "--secrets-file",
          path.join(d, "no-secrets-file"),
          "--load-interval",
          "1"
        ],
        { ALERTS_WEBHOOK_SECRETS: secret }
      )
      let out = ""
      receiver.stdout!.on("data", (x) => (out += String(x)))
      const received = collect(receiver)
      const url = await new Promise<string>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`serve-alerts did not listen: ${out}`)), 30_000)
        receiver.stdout!.on("data", () => {
          const m = /listening on (http:\/\/\S+)/.exec(out)
          if (m) {
            clearTimeout(t)
            resolve(m[1]!)
          }
        })
      })

      // deliveries keep arriving, about 20 a second, while the runs go on
      const acked: Array<string> = []
      let sending = true
      const sender = (async () => {
        for (let i = 1; sending; i++) {
          const id = `msg_shared_${i}`
          const r = await deliver(url, {
            id,
            body: eventBody(i, "new"),
            timestamp: Math.floor(Date.now() / 1000),
            secrets: [secret]
          }).catch(() => ({ status: 0 }))
          if (r.status === 204) acked.push(id)
          await new Promise((x) => setTimeout(x, 50))
        }
      })()

      const started = Date.now()
      const endings: Array<{ code: number | null; ms: number; waited: boolean; message: string }> = []
      for (let i = 0; i < RUNS; i++) {
        const t0 = Date.now()
        const r = await runCli(["run", "references", "--config", config], sandboxEnv())
        endings.push({
          code: r.code,
          ms: Date.now() - t0,
          waited: r.stderr.includes('"type":"waiting"'),
          message: r.stderr
            .split("\n")
            .filter((l) => l !== "" && !l.startsWith("{"))
            .join(" | ")
        })
      }
      const seconds = (Date.now() - started) / 1000
      sending = false
      await sender

      // the receiver lands what is left within a few passes
      const loaded = () => [...out.matchAll(/^loaded (\d+) deliveries/gm)].reduce((n, m) => n + Number(m[1]), 0)
      for (let t = 0; t < 60 && loaded() < acked.length; t++) await new Promise((x) => setTimeout(x, 500))
      receiver.kill("SIGTERM")
      await received

      const failed = endings.filter((e) => e.code !== 0)
      console.log(
        `${RUNS} runs in ${seconds.toFixed(0)} s against a receiver loading every second: ${failed.length} failed, ` +
          `${endings.filter((e) => e.waited).length} waited for the warehouse, slowest ${Math.max(...endings.map((e) => e.ms))} ms; ` +
          `${acked.length} deliveries acknowledged, ${loaded()} loaded by the receiver; ` +
          `${(out.match(/^spool loads wait: /gm) ?? []).length} times it yielded to a run`
      )
      expect(failed, JSON.stringify(failed)).toEqual([])
      expect(acked.length).toBeGreaterThan(RUNS)
      // the receiver loaded during the runs, not only at the end
      expect((out.match(/^loaded \d+ deliveries/gm) ?? []).length).toBeGreaterThan(5)
      expect(loaded()).toBe(acked.length)
      const [events] = await rows(warehouse, "SELECT count(*) AS n, count(DISTINCT delivery_id) AS ids FROM alert_events")
      const [deliveries] = await rows(warehouse, "SELECT count(*) AS n FROM webhook_deliveries")
      expect(events).toEqual({ n: acked.length, ids: acked.length })
      expect(deliveries).toEqual({ n: acked.length })
      const [runs] = await rows(warehouse, "SELECT count(*) AS n FROM _runs WHERE pipeline = 'references' AND status = 'done'")
      expect(runs).toEqual({ n: RUNS })
    },
    600_000
  )

  it("a run waits for a warehouse another process holds, names it once, and gives up at --lock-wait with exit 2", async () => {
    const { config, warehouse } = setup()
    expect((await runCli(["run", "references", "--config", config], sandboxEnv())).code).toBe(0)

    // a holder that lets go once the run says it waits: the run then takes the warehouse and lands
    const brief = await holder(warehouse)
    const waiting = spawnCli(["run", "references", "--config", config, "--lock-wait", "20s"], sandboxEnv())
    const done = collect(waiting)
    await new Promise<void>((resolve) => {
      let text = ""
      waiting.stderr!.on("data", (d) => {
        text += String(d)
        if (text.includes('"type":"waiting"')) resolve()
      })
      waiting.on("close", () => resolve())
    })
    brief.kill("SIGKILL")
    const waited = await done
    expect(waited.code, waited.stderr).toBe(0)
    const lines = waited.stderr.split("\n").filter((l) => l.includes('"type":"waiting"'))
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({
      holderPid: brief.pid,
      seconds: 20,
      message: expect.stringMatching(
        new RegExp(`^waiting for the warehouse .*warehouse\\.duckdb: PID ${brief.pid} \\(.*\\) holds it; up to 20s \\(--lock-wait\\)$`)
      )
    })
    // its marker is gone once it has the warehouse
    expect(fs.readdirSync(path.dirname(warehouse)).filter((f) => f.includes(".run-wait."))).toEqual([])

    // a holder that does not let go: exit 2 once the bound has passed, one line, nothing sent
    const stuck = await holder(warehouse)
    try {
      const requests = totalRequests(sandbox)
      const t0 = Date.now()
      const refused = await runCli(["run", "references", "--config", config, "--lock-wait", "2s"], sandboxEnv())
      const ms = Date.now() - t0
      expect(refused.code).toBe(2)
      const messages = refused.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("{"))
      expect(messages).toEqual([
        expect.stringMatching(
          new RegExp(`^error: Warehouse .*warehouse\\.duckdb is in use by another process \\(PID ${stuck.pid}\\).*\\(waited 2s\\)$`)
        )
      ])
      expect(ms).toBeGreaterThan(2_000)
      expect(ms).toBeLessThan(15_000)
      expect(totalRequests(sandbox)).toBe(requests)
    } finally {
      stuck.kill("SIGKILL")
    }
  }, 180_000)
})
