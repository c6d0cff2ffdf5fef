/**
 * `serve-alerts` as a real process, SIGKILLed right after it acknowledged the 100th of 300
 * concurrent deliveries, then restarted on the same spool: nothing acknowledged is lost, the
 * redeliveries (everything, as a sender that did not see every answer would retry) add nothing,
 * and after the last load (its own, or the next `alerts load` when SIGTERM's grace cut its own)
 * the warehouse holds each delivery exactly once. Both processes are the real CLI
 * (`node dist/bundle/main.js serve-alerts`, built by the test run's globalSetup).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Warehouse } from "../../src/load/Warehouse.js"
import { readSpool } from "../../src/webhooks/Spool.js"
import { loadSpool } from "../../src/webhooks/SpoolLoader.js"
import { deliver, eventBody, newSecret, tempDir } from "./support.js"

const CLI = nodePath.join(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "bundle", "main.js")
const N = 300
const KILL_AFTER = 100
const SENDERS = 20

const children: Array<ChildProcess> = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL")
})

/** Starts `serve-alerts` and resolves with its URL once it listens. */
const serve = (spool: string, secret: string, extra: ReadonlyArray<string> = ["--load-interval", "0"]) =>
  new Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        "serve-alerts",
        "--port",
        "0",
        "--spool",
        spool,
        "--secret-env",
        "TEST_WEBHOOK_SECRETS",
        // A secrets file that does not exist: the secret comes from the environment.
        "--secrets-file",
        nodePath.join(nodePath.dirname(spool), "no-secrets-file"),
        ...extra
      ],
      { env: { ...process.env, TEST_WEBHOOK_SECRETS: secret }, stdio: ["ignore", "pipe", "pipe"] }
    )
    children.push(child)
    const exited = new Promise((r) => child.once("exit", r))
    let out = ""
    let err = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1]!, exited })
    })
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()))
    child.once("exit", (code) => reject(new Error(`serve-alerts exited (${code}) before listening: ${err}`)))
  })

describe("serve-alerts crash", () => {
  it("loses nothing it acknowledged when killed right after the acknowledgement", { timeout: 30_000 }, async () => {
    const dir = tempDir()
    const spool = nodePath.join(dir, "spool.ndjson")
    const secret = newSecret()
    const deliveries = Array.from({ length: N }, (_, i) => ({
      id: `msg_feed_1_${i + 1}`,
      body: eventBody(i + 1, i % 2 ? "sold" : "new"),
      secrets: [secret]
    }))
    const send = (url: string, d: (typeof deliveries)[number]) =>
      deliver(url, { ...d, timestamp: Math.floor(Date.now() / 1000) }).then(
        (r) => r.status,
        () => 0
      )

    const first = await serve(spool, secret)
    const acked = new Set<string>()
    let next = 0
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < N) {
          const d = deliveries[next++]!
          const status = await send(first.url, d)
          if (status === 204) {
            acked.add(d.id)
            if (acked.size === KILL_AFTER) first.child.kill("SIGKILL")
          }
        }
      })
    )
    await first.exited
    expect(first.child.signalCode).toBe("SIGKILL")
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER)
    expect(acked.size).toBeLessThan(N)
    const spooled = new Set((await Effect.runPromise(readSpool(spool))).entries.map((e) => e.id))
    for (const id of acked) expect(spooled.has(id)).toBe(true)

    // Restarted on the same spool, now loading into the warehouse: every delivery is sent again;
    // only the ones not on disk are new. SIGTERM stops it within the CLI's grace of 2 s: a last
    // load that does not fit in it leaves its deliveries in the spool, for the next load.
    const warehouse = nodePath.join(dir, "w.duckdb")
    const second = await serve(spool, secret, ["--warehouse", warehouse, "--load-interval", "60"])
    // as many senders as before: 300 at once would cross the receiver's connection cap (256), and
    // a connection it closes is a send that never gets an answer
    const statuses: Array<number> = new Array(N)
    let at = 0
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (at < N) {
          const i = at++
          statuses[i] = await send(second.url, deliveries[i]!)
        }
      })
    )
    second.child.kill("SIGTERM")
    await second.exited
    expect(statuses.filter((s) => s === 204)).toHaveLength(N - spooled.size)
    expect(statuses.filter((s) => s === 409)).toHaveLength(spooled.size)

    const out = await Effect.runPromise(
      Effect.gen(function* () {
        const loaded = yield* loadSpool({ spoolPath: spool, batchSize: 64 }) // what serve-alerts left, if anything
        const w = yield* Warehouse
        const rows = yield* w.query(
          `SELECT count(*) AS n, count(DISTINCT delivery_id) AS d, (SELECT count(*) FROM alerts) AS alerts FROM webhook_deliveries`
        )
        return { loaded, rows: rows[0] }
      }).pipe(Effect.provide(Warehouse.Default({ path: warehouse, rawDir: false })))
    )
    // whatever was left is new to the warehouse (nothing loaded twice), and every delivery is there once
    expect(out.loaded.loaded).toBe(out.loaded.read)
    expect(out.loaded.duplicates).toBe(0)
    expect(out.rows).toEqual({ n: N, d: N, alerts: N })
  })
})
