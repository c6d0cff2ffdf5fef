import { describe, expect, it } from "@effect/vitest"
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect, Fiber } from "effect"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { WarehouseError } from "../../src/load/WarehouseError.js"
import { plots, tempDir } from "./fixtures.js"
import { holder as holdFile } from "../support/holder.js"

/** A child process that opens the DuckDB file and holds it until the scope ends. */
const holder = (path: string) =>
  Effect.acquireRelease(Effect.tryPromise({ try: () => holdFile(path), catch: (e) => e as Error }), (child) =>
    Effect.sync(() => child.kill("SIGKILL"))
  )

const exited = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) resume(Effect.void)
    else child.on("exit", () => resume(Effect.void))
  })

describe("opening the warehouse", () => {
  it.scoped("DuckDB's memory limit and threads come from the options (settings duckdb.memoryLimit, duckdb.threads)", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), memoryLimit: "48MB", threads: 1 })
      const [row] = yield* wh.query(`SELECT current_setting('memory_limit') AS m, current_setting('threads') AS t`)
      expect(String(row!.m)).toMatch(/^4[5-8](\.\d+)? MiB$/) // DuckDB reports it in MiB
      expect(Number(row!.t)).toBe(1)
    })
  )

  it.live("a second process gets a clear Locked error, and a bounded wait succeeds once it lets go", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const path = nodePath.join(tempDir(), "warehouse.duckdb")
        const child = yield* holder(path)
        const err = yield* Effect.flip(Effect.scoped(makeWarehouse({ path })))
        expect(err.reason).toBe("Locked")
        expect(err.message).toMatch(new RegExp(`Warehouse .*warehouse.duckdb is in use by another process \\(PID ${child.pid}\\)`))
        const waited = yield* Effect.flip(Effect.scoped(makeWarehouse({ path, lockTimeout: "300 millis", lockPoll: "100 millis" })))
        expect(waited.message).toMatch(/in use by another process.*\(waited/)
        // Waiting: the holder goes away while we poll.
        const opening = yield* Effect.fork(
          Effect.scoped(
            Effect.flatMap(makeWarehouse({ path, lockTimeout: "20 seconds", lockPoll: "100 millis" }), (wh) => wh.tableCounts())
          )
        )
        yield* Effect.sleep("300 millis")
        child.kill("SIGKILL")
        yield* exited(child)
        expect(yield* Fiber.join(opening)).toEqual({})
      })
    )
  )

  it.live("a wait names the holder once (onLocked), backs off, and ends at once when onLocked refuses to wait", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const path = nodePath.join(tempDir(), "warehouse.duckdb")
        const child = yield* holder(path)
        const told: Array<number | undefined> = []
        const opening = yield* Effect.fork(
          Effect.scoped(
            Effect.flatMap(
              makeWarehouse({ path, lockTimeout: "20 seconds", onLocked: (e) => Effect.sync(() => told.push(e.holderPid)) }),
              (wh) => wh.tableCounts()
            )
          )
        )
        yield* Effect.sleep("1500 millis")
        child.kill("SIGKILL")
        yield* exited(child)
        expect(yield* Fiber.join(opening)).toEqual({})
        expect(told).toEqual([child.pid])

        // a holder the caller will not wait for (a run, for `query`): its own error, without waiting
        const other = yield* holder(path)
        const started = Date.now()
        const refused = yield* Effect.flip(
          Effect.scoped(
            makeWarehouse({
              path,
              lockTimeout: "20 seconds",
              onLocked: (e) => Effect.fail(new WarehouseError({ reason: "Locked", path, detail: `not waiting for PID ${e.holderPid}` }))
            })
          )
        )
        expect(refused.message).toBe(`not waiting for PID ${other.pid}`)
        expect(Date.now() - started).toBeLessThan(2_000)
      })
    )
  )

  it.scoped("a second open in the same process is refused (it would drop the first one's lock)", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      yield* makeWarehouse({ path })
      const err = yield* Effect.flip(Effect.scoped(makeWarehouse({ path })))
      expect(err.reason).toBe("Locked")
      expect(err.message).toMatch(/already open in this process/)
    })
  )

  it.live("closing checkpoints the warehouse off the event loop: timers run while its WAL is written into the file", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      // event-loop turns from the start of the warehouse's close to its end (its scope's finalizers
      // run last-added first: counting starts before the close and is read after it)
      let turns = 0
      let counting = false
      let during = -1
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Effect.addFinalizer(() => Effect.sync(() => ((during = turns), (counting = false))))
          const wh = yield* makeWarehouse({ path, rawDir: false })
          yield* wh.ensureTables([plots])
          yield* wh.withConnection("a WAL to checkpoint", (conn) =>
            conn.run(`INSERT INTO plots (id, country) SELECT 'plot_' || i, 'ES' FROM range(100000) r(i)`)
          )
          expect(fs.statSync(`${path}.wal`).size).toBeGreaterThan(1_000_000)
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              counting = true
              const tick = () => {
                if (!counting) return
                turns++
                setImmediate(tick)
              }
              setImmediate(tick)
            })
          )
        })
      )
      expect(fs.statSync(`${path}.wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0)
      expect(during).toBeGreaterThan(10)
    })
  )

  it.scoped("a garbage file at the path is refused and left untouched", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      const garbage = "this is not a database\n".repeat(500)
      fs.writeFileSync(path, garbage)
      const err = yield* Effect.flip(Effect.scoped(makeWarehouse({ path })))
      expect(err.reason).toBe("Corrupt")
      expect(err.message).toMatch(/exists but is not a DuckDB database/)
      expect(fs.readFileSync(path, "utf8")).toBe(garbage)
      // A short file, too small to hold a header.
      fs.writeFileSync(path, "x")
      expect((yield* Effect.flip(Effect.scoped(makeWarehouse({ path })))).reason).toBe("Corrupt")
    })
  )

  it.scoped("a warehouse file cut short is refused as damaged (Corrupt), saying what to do, and left as it was", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      yield* Effect.scoped(Effect.flatMap(makeWarehouse({ path }), (wh) => wh.ensureTables([plots])))
      const whole = fs.statSync(path).size
      // beyond the header blocks: a file that held data (at most 12 KiB is a creation cut short,
      // made again by a run: "a file DuckDB's creation left cut short ..." below)
      expect(whole).toBeGreaterThan(3 * 12 * 1024)
      for (const size of [Math.floor(whole / 2), 2 * 12 * 1024]) {
        fs.truncateSync(path, size)
        const cut = fs.readFileSync(path)
        for (const readOnly of [false, true]) {
          const err = yield* Effect.flip(Effect.scoped(makeWarehouse({ path, readOnly })))
          expect(err.reason, `${size} bytes`).toBe("Corrupt")
          expect(err.message).toMatch(
            /is damaged \(.*Could not read enough bytes.*\).*Nothing was changed\. Restore it from a backup, or move it away/
          )
        }
        expect(fs.readFileSync(path).equals(cut)).toBe(true)
      }
    })
  )

  it.scoped("a DuckDB file of someone else, or of a newer format, is refused as Foreign", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const other = nodePath.join(dir, "other.duckdb")
      yield* Effect.promise(async () => {
        const db = await DuckDBInstance.create(other)
        const c = await db.connect()
        await c.run("CREATE TABLE customers (id INT)")
        c.closeSync()
        db.closeSync()
      })
      const err = yield* Effect.flip(Effect.scoped(makeWarehouse({ path: other })))
      expect(err.reason).toBe("Foreign")
      expect(err.message).toMatch(/did not create \(no _meta table; found customers\)/)

      const newer = nodePath.join(dir, "newer.duckdb")
      yield* Effect.scoped(makeWarehouse({ path: newer }))
      yield* Effect.promise(async () => {
        const db = await DuckDBInstance.create(newer)
        const c = await db.connect()
        await c.run("UPDATE _meta SET value = '99' WHERE key = 'format_version'")
        c.closeSync()
        db.closeSync()
      })
      const err2 = yield* Effect.flip(Effect.scoped(makeWarehouse({ path: newer })))
      expect(err2.reason).toBe("Foreign")
      expect(err2.message).toMatch(/version 99/)
    })
  )

  it.scoped("an empty path is created, with its folder", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "deep", "er", "warehouse.duckdb")
      const wh = yield* makeWarehouse({ path })
      yield* wh.ensureTables([plots])
      expect(fs.existsSync(path)).toBe(true)
      expect(yield* wh.tableCounts()).toEqual({ plots: 0 })
    })
  )

  it.scoped("a file DuckDB's creation left cut short is created again by a run and named by a read-only open", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const fresh = nodePath.join(dir, "fresh.duckdb")
      yield* Effect.promise(async () => (await DuckDBInstance.create(fresh)).closeSync())
      const header = fs.readFileSync(fresh)
      expect(header.length).toBe(12_288)
      // what a kill leaves between DuckDB's creating the file and writing its three header blocks
      const cuts = {
        empty: Buffer.alloc(0),
        "main header only": header.subarray(0, 4096),
        "two headers": header.subarray(0, 8192),
        "headers not written": Buffer.alloc(12_288),
        "main header and zeros": Buffer.concat([header.subarray(0, 4096), Buffer.alloc(8192)])
      }
      for (const [name, bytes] of Object.entries(cuts)) {
        const path = nodePath.join(dir, `${name.replaceAll(" ", "-")}.duckdb`)
        fs.writeFileSync(path, bytes)
        const refused = yield* Effect.flip(Effect.scoped(makeWarehouse({ path, readOnly: true })))
        expect([name, refused.reason, refused.message]).toEqual([name, "Foreign", expect.stringMatching(/creation was cut short/)])
        expect(fs.readFileSync(path).equals(bytes)).toBe(true)
        yield* Effect.scoped(
          Effect.gen(function* () {
            const wh = yield* makeWarehouse({ path })
            yield* wh.ensureTables([plots])
            expect(yield* wh.query(`SELECT value FROM _meta WHERE key = 'format'`)).toEqual([{ value: "estate-etl-warehouse" }])
          })
        )
        expect(yield* Effect.scoped(Effect.flatMap(makeWarehouse({ path, readOnly: true }), (wh) => wh.tableCounts()))).toEqual({
          plots: 0
        })
      }
      expect(fs.readdirSync(dir).filter((f) => f.includes("creating"))).toEqual([])
    })
  )

  it.scoped("warehouses a process makes one after another are each whole and their own: tables, rows, creation time", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const [first, second] = [nodePath.join(dir, "a.duckdb"), nodePath.join(dir, "b", "b.duckdb")]
      const createdAt = (path: string) =>
        Effect.promise(async () => {
          const db = await DuckDBInstance.create(path, { access_mode: "READ_ONLY" })
          const conn = await db.connect()
          try {
            const rows = (await conn.runAndReadAll(`SELECT key, value FROM _meta ORDER BY key`)).getRowObjectsJS()
            const at = await conn.runAndReadAll(`SELECT epoch_ms(CAST(value AS TIMESTAMPTZ)) AS ms FROM _meta WHERE key = 'created_at'`)
            return { keys: rows.map((r) => r.key), at: Number(at.getRowObjectsJS()[0]!.ms) }
          } finally {
            conn.closeSync()
            db.closeSync()
          }
        })
      yield* Effect.scoped(
        Effect.flatMap(makeWarehouse({ path: first }), (wh) =>
          Effect.zipRight(wh.ensureTables([plots]), wh.query(`INSERT INTO plots (id, country) VALUES ('p1', 'DE')`))
        )
      )
      const a = yield* createdAt(first)
      const before = Date.now()
      // opened while the first is open too: two files, not one
      const counts = yield* Effect.scoped(
        Effect.gen(function* () {
          const wa = yield* makeWarehouse({ path: first })
          const wb = yield* makeWarehouse({ path: second })
          yield* wb.ensureTables([plots])
          yield* wb.query(`INSERT INTO plots (id, country) VALUES ('p2', 'ES'), ('p3', 'ES')`)
          return [yield* wa.tableCounts(), yield* wb.tableCounts()]
        })
      )
      expect(counts).toEqual([{ plots: 1 }, { plots: 2 }])
      const b = yield* createdAt(second)
      expect(b.keys).toEqual(["created_at", "format", "format_version"])
      // its own creation time, not the first one's
      expect(b.at).toBeGreaterThanOrEqual(before)
      expect(a.at).toBeLessThanOrEqual(before)
      expect(fs.existsSync(`${second}.wal`)).toBe(false)
      expect(fs.readdirSync(nodePath.dirname(second)).filter((f) => f.includes("creating"))).toEqual([])
    })
  )

  it.scoped("a new warehouse gets its name whole, and temporary files of dead creators are removed", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = nodePath.join(dir, "warehouse.duckdb")
      // a creation killed before its link: pid 2^22 + 1 is above Linux's pid_max default
      const dead = nodePath.join(dir, `.warehouse.duckdb.creating-${2 ** 22 + 1}-x`)
      fs.writeFileSync(dead, Buffer.alloc(12_288))
      fs.writeFileSync(`${dead}.wal`, "cut")
      const alive = nodePath.join(dir, `.warehouse.duckdb.creating-${process.pid}-other`)
      fs.writeFileSync(alive, "")
      yield* Effect.scoped(makeWarehouse({ path }))
      expect(fs.readdirSync(dir).sort()).toEqual([`.warehouse.duckdb.creating-${process.pid}-other`, "warehouse.duckdb"])
      // whole from the start: a format marker and no WAL to replay
      expect(fs.existsSync(`${path}.wal`)).toBe(false)
      const db = yield* Effect.promise(() => DuckDBInstance.create(path, { access_mode: "READ_ONLY" }))
      const conn = yield* Effect.promise(() => db.connect())
      const meta = yield* Effect.promise(() => conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM _meta`))
      expect(meta.getRowObjectsJS()).toEqual([{ n: 3 }])
      conn.closeSync()
      db.closeSync()
    })
  )

  it.scoped('":memory:" opens a private database with no raw archive', () =>
    Effect.gen(function* () {
      const a = yield* makeWarehouse({ path: ":memory:" })
      const b = yield* makeWarehouse({ path: ":memory:" })
      yield* a.ensureTables([plots])
      expect(a.rawRoot).toBeUndefined()
      expect(yield* a.tableCounts()).toEqual({ plots: 0 })
      expect(yield* b.tableCounts()).toEqual({})
    })
  )
})
