/**
 * DuckDB running out of memory, as it says it. A statement that does (`isOutOfMemory`) fails
 * inside its transaction, which rolls back whole: a group commit or a run's finish is landed again
 * with the landing limit doubled (`LandingSettings.withMemoryToLand`). A `COMMIT` that fails
 * (`isFailedCommit`: `TransactionContext Error: Failed to commit: could not allocate block ...`,
 * met by a 30-day alerts backlog at a 48MB landing limit and a 1,034,151-property finish at
 * 160MB) is never landed again in the same process: DuckDB keeps the keys of the rows it did not
 * write in its in-memory index. A run's finish and a group beyond `COMMIT_ROOM.rows` get their
 * `COMMIT`'s room up front (`roomToCommit`), and a warehouse whose commit failed anyway takes
 * nothing more until reopened.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { inTransaction, openDatabase, rowsOf } from "../../src/load/Database.js"
import {
  COMMIT_ROOM,
  columnWeight,
  commitSizeOf,
  fitsWithoutRoom,
  LANDING_MEMORY_CEILING_MB,
  LANDING_MEMORY_LIMIT,
  makeLandingSettings,
  shownBytes
} from "../../src/load/LandingSettings.js"
import { makeWarehouse, type WarehouseApi } from "../../src/load/Warehouse.js"
import type { Row, TableSpec } from "../../src/normalize/Table.js"
import { isFailedCommit, isFatal, isOutOfMemory, sqlError } from "../../src/load/WarehouseError.js"
import { page, plotRow, plots, tempDir } from "./fixtures.js"
import type { StagedEntry } from "../../src/load/PageCommit.js"
import { stageEntry } from "../../src/pipeline/run/Land.js"
import type { RunContext } from "../../src/pipeline/run/RunContext.js"

/** The error DuckDB (the installed version) gives a statement that does not fit `limit`. */
const statementOutOfMemory = async (limit: string): Promise<unknown> => {
  const db = await DuckDBInstance.create(":memory:", { threads: "1" })
  const conn = await db.connect()
  try {
    await conn.run(`SET memory_limit = '${limit}'`)
    await conn.run(`CREATE TABLE t AS SELECT repeat('x', 100) || i AS a, md5(i::VARCHAR) AS b FROM range(200000) r(i)`)
    return undefined
  } catch (e) {
    return e
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

/**
 * DuckDB held at what it holds already: any statement that needs a block more runs out of memory
 * until the limit is raised.
 */
const squeeze = (wh: WarehouseApi) =>
  wh.withConnection("squeeze", async (conn) => {
    const [held] = await rowsOf(conn, `SELECT sum(memory_usage_bytes)::BIGINT AS b FROM duckdb_memory()`)
    await conn.run(`SET memory_limit = '${Math.max(Number(held!.b), 1 << 20)} bytes'`)
  })

/** A table of 100 text columns (weight 100: more MB than the landing limit at `COMMIT_ROOM.mbPerColumn`). */
const wide: TableSpec = {
  name: "wide",
  columns: [
    { name: "id", type: "VARCHAR", nullable: false },
    ...Array.from({ length: 99 }, (_, i) => ({ name: `c${i}`, type: "VARCHAR" as const }))
  ],
  primaryKey: ["id"],
  disposition: "merge"
}
const wideRow = Object.fromEntries([["id", "w1"], ...Array.from({ length: 99 }, (_, i) => [`c${i}`, `v${i}`])])

/** DuckDB's memory limit as it shows it (`current_setting`). */
const memoryLimit = (wh: WarehouseApi) => Effect.map(wh.query(`SELECT current_setting('memory_limit') AS m`), (r) => String(r[0]!.m))

/** DuckDB's query log (`enable_logging('QueryLog')`), in order, each statement on one line. */
const queryLog = (wh: WarehouseApi) =>
  Effect.map(wh.query(`SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp`), (rows) =>
    rows.map((r) => String(r.message).replace(/\s+/g, " "))
  )

const RAISE = `SET memory_limit = '${LANDING_MEMORY_CEILING_MB}MB'`
const SET_BACK = `SET memory_limit = '${LANDING_MEMORY_LIMIT}'`

/**
 * The landing transactions of a query log (each marked by a statement `landing` matches) and, for
 * each, the statements just before and after its `COMMIT`, named: "raise" (the room), "set back"
 * (the landing limit), "own" (any other limit), "other".
 */
const aroundCommits = (log: ReadonlyArray<string>, landing: RegExp) => {
  const landings = log.flatMap((m, i) => (landing.test(m) ? [i] : []))
  const name = (m: string) =>
    m === RAISE ? "raise" : m === SET_BACK ? "set back" : m === "COMMIT" ? m : m.startsWith("SET memory_limit") ? "own" : "other"
  const around = landings.map((at) => {
    const commit = log.indexOf("COMMIT", at)
    return log.slice(commit - 1, commit + 2).map(name)
  })
  return { landings, around }
}

describe("out of memory, as DuckDB says it", () => {
  it("a group commits without more room only when its rows, its widest table and its bytes fit the landing limit", () => {
    const sourcing = { rows: 16_000, bytes: 4.2 * 2 ** 20, widest: 25 }
    expect(fitsWithoutRoom(sourcing, 80)).toBe(true)
    // the alerts table (weight 118) needs room at 80MB; so do more rows, unknown bytes, long values
    expect(fitsWithoutRoom({ ...sourcing, widest: 118 }, 80)).toBe(false)
    expect(fitsWithoutRoom({ ...sourcing, rows: COMMIT_ROOM.rows + 1 }, 80)).toBe(false)
    expect(fitsWithoutRoom({ ...sourcing, bytes: undefined }, 80)).toBe(false)
    expect(fitsWithoutRoom({ ...sourcing, bytes: 60 * 2 ** 20 }, 80)).toBe(false)
    // a run's finish passes no size
    expect(fitsWithoutRoom(undefined, 1280)).toBe(false)
    // a raised landing limit fits more
    expect(fitsWithoutRoom({ ...sourcing, widest: 118 }, 160)).toBe(true)
    expect([columnWeight("VARCHAR"), columnWeight("DECIMAL(18,2)"), columnWeight("STRUCT(a VARCHAR, b VARCHAR)[]")]).toEqual([1, 3, 4])
    // a group's size: its pages' rows of every table, its widest table (here the 100 text columns)
    expect(commitSizeOf([plots, wide], [{ plots: 3, wide: 1 }, { plots: 2 }], 1024)).toEqual({ rows: 6, bytes: 1024, widest: 100 })
  })

  it("a statement over the limit (DuckDB's own error, raised here) is out of memory, not fatal", async () => {
    const cause = await statementOutOfMemory("1MB")
    expect(cause, "DuckDB ran the statement within 1MB").toBeInstanceOf(Error)
    const e = sqlError("Cannot commit 1 page(s)", cause)
    expect(isOutOfMemory(e), String(cause)).toBe(true)
    expect(isFatal(e)).toBe(false)
  })

  it("a commit that fails is a failed commit, never out of memory (not landed again); a fatal error is neither", () => {
    const commit = (message: string) => sqlError("Cannot commit 1 page(s) of run r", new Error(message))
    const failed = [
      // the wording met landing the backlog at 48MB (DuckDB 1.5)
      "TransactionContext Error: Failed to commit: could not allocate block of size 256.0 KiB (45.6 MiB/45.7 MiB used)",
      "TransactionContext Error: Failed to commit: failed to pin block of size 256.0 KiB",
      // the wording met finishing a 1,034,151-property pull at 160MB
      "TransactionContext Error: Failed to commit: failed to allocate data of size 512.0 KiB (152.2 MiB/152.5 MiB used)",
      "TransactionContext Error: Failed to commit: PRIMARY KEY or UNIQUE constraint violation",
      // were DuckDB to word a commit's failure as a statement's, it is still a failed commit
      "TransactionContext Error: Failed to commit: Out of Memory Error: could not allocate block of size 256.0 KiB"
    ]
    for (const message of failed) {
      expect(isFailedCommit(commit(message)), message).toBe(true)
      expect(isOutOfMemory(commit(message)), message).toBe(false)
    }
    expect(isOutOfMemory(commit('Constraint Error: Duplicate key "id: 1" violates primary key constraint'))).toBe(false)
    expect(isFailedCommit(commit('Constraint Error: Duplicate key "id: 1" violates primary key constraint'))).toBe(false)
    const fatal = commit("FATAL Error: Failed: database has been invalidated because of a previous fatal error")
    expect(isFatal(fatal)).toBe(true)
  })

  effectIt.effect(
    "a COMMIT DuckDB fails: the warehouse takes nothing more in this process, by name; reopened, the rows of that commit are absent and land",
    () =>
      Effect.gen(function* () {
        const file = nodePath.join(tempDir(), "warehouse.duckdb")
        yield* Effect.scoped(
          Effect.gen(function* () {
            const wh = yield* makeWarehouse({ path: file, rawDir: false })
            yield* wh.ensureTables([plots])
            yield* wh.startRun({ runId: "r", pipeline: "plots" })
            yield* wh.commitPages([page("r", { plots: [plotRow(0)] }, { key: "ES", value: 1 })])
            // a transaction whose statements ran with room and whose COMMIT DuckDB fails short of
            // memory (a page's rows and charges; the limit lowered between them, as a busy machine would)
            const failed = yield* Effect.flip(
              wh.withConnection("a squeezed commit", async (conn) => {
                await conn.run(`SET memory_limit = '1GB'`)
                await conn.run("BEGIN")
                await conn.run(
                  `INSERT INTO plots (id, country, extra) SELECT 'plot_' || i, 'ES', to_json(repeat('y', 200)) FROM range(1, 300001) r(i)`
                )
                await conn.run(
                  `INSERT INTO _ledger (request_id, run_id, pipeline, operation, units, "at")
                   SELECT 'req-' || i, 'r', 'plots', 'plots.search', 1, now()::TIMESTAMP FROM range(1, 300001) r(i)`
                )
                await conn.run(`SET memory_limit = '20MB'`)
                await conn.run("COMMIT")
              })
            )
            expect(isFailedCommit(failed), failed.detail).toBe(true)
            expect(failed.detail).toMatch(/takes nothing\s+more in this process \(nothing of that transaction landed\)\. Run again/)
            // what comes after is refused with the same words, before DuckDB sees it
            const next = yield* Effect.flip(wh.commitPages([page("r", { plots: [plotRow(1)] }, { key: "ES", value: 2 })]))
            expect(next.detail).toBe(failed.detail)
            expect((yield* Effect.flip(wh.tableCounts())).detail).toBe(failed.detail)
          })
        )
        // closed without its checkpoint: what did commit waits in the WAL
        expect(fs.statSync(`${file}.wal`, { throwIfNoEntry: false })?.size ?? 0).toBeGreaterThan(0)
        // reopened: the commit that landed is there, the failed one is not, and its rows and
        // charges land (the WAL replayed into indexes read from the file)
        yield* Effect.scoped(
          Effect.gen(function* () {
            const wh = yield* makeWarehouse({ path: file, rawDir: false })
            yield* wh.ensureTables([plots])
            expect(yield* wh.tableCounts()).toEqual({ plots: 1 })
            expect(yield* wh.query(`SELECT count(*)::INTEGER AS n FROM _ledger WHERE request_id LIKE 'req-%'`)).toEqual([{ n: 0 }])
            yield* wh.startRun({ runId: "r", pipeline: "plots" })
            const rows = { plots: Array.from({ length: 2000 }, (_, i) => plotRow(i)) }
            const ledger = [{ requestId: "req-1", operation: "plots.search", units: 1, at: "2026-11-21T10:00:00.000Z" }]
            yield* wh.commitPages([page("r", rows, { key: "ES", value: 2 }, { ledger })])
            yield* wh.finishRun("r", "done")
            expect(yield* wh.tableCounts()).toEqual({ plots: 2000 })
            expect(yield* wh.query(`SELECT request_id, units FROM _ledger WHERE request_id = 'req-1'`)).toEqual([
              { request_id: "req-1", units: 1 }
            ])
          })
        )
      })
  )

  effectIt.scoped(
    `while landing, a COMMIT of more than ${COMMIT_ROOM.rows} rows gets its room up front: squeezed the same way, it lands, and the landing limit is set back`,
    () =>
      Effect.gen(function* () {
        const db = yield* openDatabase(nodePath.join(tempDir(), "warehouse.duckdb"))
        const settings = makeLandingSettings(db, {})
        yield* settings.enter
        const limits = yield* db.use("the squeezed commit, with room", async (conn) => {
          await conn.run(`CREATE TABLE t (id VARCHAR PRIMARY KEY, extra VARCHAR)`)
          const limit = async () => String((await rowsOf(conn, `SELECT current_setting('memory_limit') AS m`))[0]!.m)
          const landing = await limit()
          await conn.run(`SET memory_limit = '1GB'`)
          let setBack: (() => Promise<void>) | undefined
          await inTransaction(conn, async () => {
            await conn.run(`INSERT INTO t SELECT 'k' || i, repeat('y', 200) FROM range(300000) r(i)`)
            await conn.run(`SET memory_limit = '20MB'`)
            setBack = await settings.roomToCommit(conn, { rows: 300_000, bytes: 60_000_000, widest: 2 })
          })
          const committing = await limit()
          await setBack!()
          return { landing, committing, after: await limit(), rows: Number((await rowsOf(conn, `SELECT count(*) AS n FROM t`))[0]!.n) }
        })
        expect(limits).toEqual({ landing: "76.2 MiB", committing: "1.1 GiB", after: "76.2 MiB", rows: 300000 })
      })
  )

  effectIt.scoped(
    "while landing, a group commit that runs DuckDB out of memory is landed again with the limit raised, and the run then finishes",
    () =>
      Effect.gen(function* () {
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
        yield* wh.ensureTables([plots])
        yield* wh.startRun({ runId: "r", pipeline: "plots" })

        const limit = memoryLimit(wh)
        yield* squeeze(wh)
        const tight = yield* limit
        yield* wh.commitPages([page("r", { plots: Array.from({ length: 2000 }, (_, i) => plotRow(i)) }, { key: "ES", value: 1 })])
        expect(yield* wh.tableCounts()).toEqual({ plots: 2000 })
        expect(yield* limit).not.toBe(tight)
        yield* squeeze(wh)
        yield* wh.finishRun("r", "done")
        const [run] = yield* wh.query(`SELECT status FROM _runs WHERE run_id = 'r'`)
        expect(run!.status).toBe("done")
      })
  )

  effectIt.scoped("while landing, a run's finish (its history closing) squeezed to what DuckDB holds still ends done", () =>
    Effect.gen(function* () {
      const history: TableSpec = { ...plots, disposition: "history" }
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
      yield* wh.ensureTables([history])
      yield* wh.startRun({ runId: "r", pipeline: "plots", params: { scope: "a" } })
      for (let p = 0; p < 10; p++)
        yield* wh.commitPages([
          page(
            "r",
            { plots: Array.from({ length: 2000 }, (_, i) => plotRow(p * 2000 + i)) },
            { key: "A", value: p, done: p === 9 },
            {
              slice: { key: "A", received: 2000, landed: 2000, rejected: 0, done: p === 9 }
            }
          )
        ])
      yield* squeeze(wh)
      yield* wh.finishRun("r", "done", undefined, {
        pipeline: "plots",
        scope: "a",
        full: true,
        shard: undefined,
        closeAt: new Date().toISOString(),
        scopeOfRun: (params) => (params as { scope?: string } | null)?.scope,
        tables: [history]
      })
      expect(yield* wh.query(`SELECT status FROM _runs WHERE run_id = 'r'`)).toEqual([{ status: "done" }])
      expect(yield* wh.query(`SELECT count(*)::INTEGER AS n FROM _history_members`)).toEqual([{ n: 20_000 }])
    })
  )

  effectIt.scoped("a run's finish adds 300,000 members under a scope of 700 bytes at the landing limit, without raising it", () =>
    Effect.gen(function* () {
      const history: TableSpec = { ...plots, disposition: "history" }
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
      yield* wh.ensureTables([history])
      yield* wh.startRun({ runId: "r", pipeline: "plots" })
      // a scope as long as a run's parameters with eleven places, carried by every member
      const scope = JSON.stringify({
        places: Array.from({ length: 11 }, (_, i) => ({ country: "ES", region: `Region ${i}`, city: `City ${i}` }))
      })
      expect(scope.length).toBeGreaterThan(500)
      yield* wh.withConnection("the run's keys", async (conn) => {
        await conn.run("CALL enable_logging('QueryLog')")
        await conn.run(
          `INSERT INTO _history_keys SELECT 'r', 'slice-' || (i % 11), 'plots', 'plot-' || md5(i::VARCHAR) FROM range(300000) r(i)`
        )
      })
      yield* wh.finishRun("r", "done", undefined, {
        pipeline: "plots",
        scope,
        full: false,
        shard: undefined,
        closeAt: new Date().toISOString(),
        scopeOfRun: () => scope,
        tables: [history]
      })
      expect(yield* wh.query(`SELECT count(*)::INTEGER AS n, count(DISTINCT scope)::INTEGER AS scopes FROM _history_members`)).toEqual([
        { n: 300_000, scopes: 1 }
      ])
      // the members' set difference fitted the landing limit: the finish was not landed again with
      // it doubled (the limits the toolkit sets in MB: the landing limit and the commit's room)
      const limits = (yield* wh.query(`SELECT message FROM duckdb_logs WHERE type = 'QueryLog' AND message LIKE 'SET memory_limit%'`))
        .map((r) => String(r.message))
        .filter((m) => /MB'$/.test(m))
      expect(
        limits.filter(
          (m) => m !== `SET memory_limit = '${LANDING_MEMORY_CEILING_MB}MB'` && m !== `SET memory_limit = '${LANDING_MEMORY_LIMIT}'`
        )
      ).toEqual([])
    })
  )

  effectIt.scoped(
    `a small group of a narrow table commits at the landing limit; a group of more than ${COMMIT_ROOM.rows} rows, one of a wide table and the run's finish get their COMMIT's room, and every checkpoint its own, as DuckDB's own query log shows (the only run's finish: DuckDB's own limit as its room, and nothing left for its leave to set)`,
    () =>
      Effect.gen(function* () {
        // a 1KB threshold: the toolkit checkpoints after every group
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false, checkpointThreshold: "1KB" })
        yield* wh.ensureTables([plots, wide])
        yield* wh.withConnection("the query log on", (conn) => conn.run("CALL enable_logging('QueryLog')"))
        yield* wh.startRun({ runId: "r", pipeline: "plots" })
        yield* wh.commitPages([page("r", { plots: [plotRow(1), plotRow(2)] }, { key: "ES", value: 1 })])
        // one row past the bound: this group gets the room
        const large = Array.from({ length: COMMIT_ROOM.rows + 1 }, (_, i) => plotRow(10 + i))
        yield* wh.commitPages([page("r", { plots: large }, { key: "ES", value: 2 })])
        yield* wh.commitPages([page("r", { plots: [plotRow(3)] }, { key: "ES", value: 3 })])
        // one row of a table wider than the landing limit's MB (COMMIT_ROOM.mbPerColumn): the room
        yield* wh.commitPages([page("r", { wide: [wideRow] }, { key: "PT", value: 1 })])
        yield* wh.finishRun("r", "done")
        const log = yield* queryLog(wh)
        // the landing transactions: the three groups (their counters) and the finish (the run's status)
        const { landings, around } = aroundCommits(log, /^UPDATE _runs SET (pages|status) /)
        expect(landings).toHaveLength(5)
        expect(around).toEqual([
          ["other", "COMMIT", "other"],
          ["raise", "COMMIT", "set back"],
          ["other", "COMMIT", "other"],
          ["raise", "COMMIT", "set back"],
          // the finish of the only run: DuckDB's own limit (more than the room) before its COMMIT,
          // which its leave would set back anyway
          ["own", "COMMIT", "other"]
        ])
        const afterFinish = log.slice(log.indexOf("COMMIT", landings[4]!)).filter((m) => m.startsWith("SET memory_limit"))
        expect(afterFinish).toEqual([])
        // the small groups' transactions hold no change of the limit at all
        for (const at of [landings[0]!, landings[2]!]) {
          const begin = log.lastIndexOf("BEGIN TRANSACTION", at)
          expect(log.slice(begin, log.indexOf("COMMIT", at)).filter((m) => m.startsWith("SET memory_limit"))).toEqual([])
        }
        const checkpoints = log.flatMap((m, i) => (m === "CHECKPOINT" ? [i] : []))
        expect(checkpoints.length).toBeGreaterThanOrEqual(3)
        for (const at of checkpoints) expect(log.slice(at - 1, at + 2)).toEqual([RAISE, "CHECKPOINT", SET_BACK])
        // every row landed
        expect((yield* wh.query("SELECT count(*)::INTEGER AS n FROM plots"))[0]!.n).toBe(COMMIT_ROOM.rows + 4)
      })
  )

  effectIt.scoped(
    "a fetched page weighs its bytes as they arrived, kept as a body or not (a token-host page), none for a no-content answer: its group commits at the landing limit; a page of records whose bytes are not known gets the room",
    () =>
      Effect.gen(function* () {
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
        yield* wh.ensureTables([plots])
        yield* wh.withConnection("the query log on", (conn) => conn.run("CALL enable_logging('QueryLog')"))
        yield* wh.startRun({ runId: "r", pipeline: "plots" })
        // what `stageEntry` reads of a run: its normaliser (here the plots' rows as they come)
        const run = {
          runId: "r",
          pipeline: { name: "plots" },
          extractedAt: "2026-11-21T10:00:00.000Z",
          normalize: (records: ReadonlyArray<Row>) => ({ rows: new Map([["plots", records]]), records: records.length, rejects: [] })
        } as unknown as RunContext
        const text = `{"results":[{"id":"plot_1","area_m2":"1,250 m²"}]}`
        /** One fetched page through the run's staging and its group's commit; `raw`: the body's text, `body`: the journal's bytes. */
        const commit = (seq: number, raw: string, body?: Uint8Array, empty?: boolean) =>
          Effect.gen(function* () {
            const stage = wh.openStage("r")
            const staged: Array<StagedEntry> = []
            yield* stageEntry(
              run,
              {
                seq,
                page: {
                  slice: "ES",
                  seq: seq - 1,
                  fetched: { records: [plotRow(seq)], raw, units: 0, charges: [], ...(empty ? { empty } : {}) },
                  checkpoint: { key: "ES", value: seq, done: false },
                  attempts: { requests: 1, retries: 0, throttled: 0 },
                  fresh: 1
                },
                ...(body ? { body } : {})
              },
              () => ({ stage, pages: [] }),
              (e) => void staged.push(e)
            )
            yield* wh.commitStaged(stage, staged)
            return staged[0]!.bytes
          })
        // a token-host page: its text, no body kept; a platform page: its journaled bytes; a
        // "no content" answer (a time-series 204, the pipeline's record of the request): none; a
        // replayed page with neither
        expect(yield* commit(1, text)).toBe(Buffer.byteLength(text))
        expect(yield* commit(2, "", Buffer.from(text))).toBe(Buffer.byteLength(text))
        expect(yield* commit(3, "", undefined, true)).toBe(0)
        expect(yield* commit(4, "")).toBeUndefined()
        const log = yield* queryLog(wh)
        const { landings, around } = aroundCommits(log, /^UPDATE _runs SET pages /)
        expect(landings).toHaveLength(4)
        expect(around).toEqual([
          ["other", "COMMIT", "other"],
          ["other", "COMMIT", "other"],
          ["other", "COMMIT", "other"],
          ["raise", "COMMIT", "set back"]
        ])
        expect((yield* wh.query("SELECT count(*)::INTEGER AS n FROM plots"))[0]!.n).toBe(4)
      })
  )

  effectIt.scoped(
    "a run that begins landing between the only run's finish taking DuckDB's own limit and that finish's COMMIT lands at the landing limit",
    () =>
      Effect.gen(function* () {
        const db = yield* openDatabase(nodePath.join(tempDir(), "warehouse.duckdb"))
        const settings = makeLandingSettings(db, {})
        const limit = db.use("the limit", async (conn) => String((await rowsOf(conn, `SELECT current_setting('memory_limit') AS m`))[0]!.m))
        const own = yield* limit
        expect(shownBytes(own)!).toBeGreaterThanOrEqual(LANDING_MEMORY_CEILING_MB * 2 ** 20)
        yield* settings.enter
        const landingLimit = yield* limit
        // DuckDB's own limit, set again from what it showed (its display rounds: 18.8 GiB set reads 18.7)
        const isOwn = (shown: string) => Math.abs(shownBytes(shown)! - shownBytes(own)!) <= 0.01 * shownBytes(own)!
        // the only run's finish: DuckDB's own limit as its room
        const setBack = yield* db.use("the finish's room", (conn) => settings.roomToFinish(conn))
        expect(isOwn(yield* limit)).toBe(true)
        // another run begins landing before that COMMIT ended
        yield* settings.enter
        yield* db.use("after the finish's COMMIT", () => setBack())
        expect(yield* limit).toBe(landingLimit)
        yield* settings.leave
        yield* settings.leave
        expect(isOwn(yield* limit)).toBe(true)
      })
  )

  effectIt.scoped(
    "a run that finishes while another lands sets the landing limit back after its COMMIT; the last one leaves DuckDB's own",
    () =>
      Effect.gen(function* () {
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
        yield* wh.ensureTables([plots])
        const limit = memoryLimit(wh)
        const own = yield* limit
        yield* wh.withConnection("the query log on", (conn) => conn.run("CALL enable_logging('QueryLog')"))
        yield* wh.startRun({ runId: "a", pipeline: "plots" })
        yield* wh.startRun({ runId: "b", pipeline: "plots" })
        const landing = yield* limit
        expect(landing).not.toBe(own)
        yield* wh.commitPages([page("a", { plots: [plotRow(1)] }, { key: "ES", value: 1 })])
        yield* wh.commitPages([page("b", { plots: [plotRow(2)] }, { key: "PT", value: 1 })])
        yield* wh.finishRun("a", "done")
        // "b" still lands: at the landing limit again
        expect(yield* limit).toBe(landing)
        yield* wh.commitPages([page("b", { plots: [plotRow(3)] }, { key: "PT", value: 2 })])
        yield* wh.finishRun("b", "done")
        // DuckDB's own back, as DuckDB showed it (to its rounding: "18.8 GiB" set reads "18.7 GiB")
        expect(Math.abs(shownBytes(yield* limit)! / shownBytes(own)! - 1)).toBeLessThan(0.01)
        const log = yield* queryLog(wh)
        const finishes = log.flatMap((m, i) => (/^UPDATE _runs SET status /.test(m) ? [i] : []))
        expect(finishes).toHaveLength(2)
        const limitsAfter = (at: number, until: number) =>
          log.slice(log.indexOf("COMMIT", at), until).filter((m) => m.startsWith("SET memory_limit"))
        expect(limitsAfter(finishes[0]!, finishes[1]!)).toEqual([`SET memory_limit = '${LANDING_MEMORY_LIMIT}'`])
        // the last one: DuckDB's own limit as its COMMIT's room, nothing after it
        const beforeLast = log.slice(finishes[1]!, log.indexOf("COMMIT", finishes[1]!)).filter((m) => m.startsWith("SET memory_limit"))
        expect(beforeLast).toHaveLength(1)
        expect([`SET memory_limit = '${LANDING_MEMORY_LIMIT}'`, `SET memory_limit = '${LANDING_MEMORY_CEILING_MB}MB'`]).not.toContain(
          beforeLast[0]
        )
        expect(limitsAfter(finishes[1]!, log.length)).toEqual([])
      })
  )

  effectIt.scoped(
    `where DuckDB's limit before the run is less than the room (${LANDING_MEMORY_CEILING_MB}MB), the last finish is raised to the room and its leave sets that limit back`,
    () =>
      Effect.gen(function* () {
        const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb"), rawDir: false })
        yield* wh.ensureTables([plots])
        // a small machine's own limit (80% of 1.25 GB)
        yield* wh.withConnection("a small machine's limit", async (conn) => {
          await conn.run("SET memory_limit = '1000MB'")
          await conn.run("CALL enable_logging('QueryLog')")
        })
        const own = yield* memoryLimit(wh)
        yield* wh.startRun({ runId: "a", pipeline: "plots" })
        yield* wh.commitPages([page("a", { plots: [plotRow(1)] }, { key: "ES", value: 1 })])
        yield* wh.finishRun("a", "done")
        // to DuckDB's rounding ("953.6 MiB" set reads "953.5 MiB")
        expect(Math.abs(shownBytes(yield* memoryLimit(wh))! / shownBytes(own)! - 1)).toBeLessThan(0.01)
        const log = yield* queryLog(wh)
        const finish = log.findIndex((m) => /^UPDATE _runs SET status /.test(m))
        const commit = log.indexOf("COMMIT", finish)
        const limits = (from: number, to: number) => log.slice(from, to).filter((m) => m.startsWith("SET memory_limit"))
        expect(limits(finish, commit)).toEqual([`SET memory_limit = '${LANDING_MEMORY_CEILING_MB}MB'`])
        expect(limits(commit, log.length)).toEqual([`SET memory_limit = '${own}'`])
      })
  )
})
