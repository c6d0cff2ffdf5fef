/**
 * The room a checkpoint gets while landing (`LandingSettings.checkpointRoomMb`): 3MB a column of
 * the warehouse's widest table, nested types by their parts, between the landing limit and the
 * ceiling. A checkpoint short of memory is fatal in DuckDB, so the room must be enough; it is not
 * more, because DuckDB's cache grows to the limit during the checkpoint (RSS).
 */
import { it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { inTransaction, openDatabase, rowsOf } from "../../src/load/Database.js"
import {
  CHECKPOINT_MB_PER_COLUMN,
  checkpointRoomMb,
  columnWeight,
  LANDING_MEMORY_CEILING_MB,
  LANDING_MEMORY_LIMIT,
  LANDING_MEMORY_LIMIT_MB,
  makeLandingSettings
} from "../../src/load/LandingSettings.js"
import { tempDir } from "./fixtures.js"

const columns = (table: string, types: ReadonlyArray<string>) => types.map((type) => ({ table, type }))

/** A table of `n` columns, two in three of them text, as DuckDB types them. */
const wideTypes = (n: number) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? "DOUBLE" : "VARCHAR"))

describe("a checkpoint's room", () => {
  it("counts a column by its parts and sizes the room from the widest table, between the landing limit and the ceiling", () => {
    expect(columnWeight("VARCHAR")).toBe(1)
    expect(columnWeight("VARCHAR[]")).toBe(2)
    expect(columnWeight(`STRUCT("name" VARCHAR, url VARCHAR)[]`)).toBe(4)
    expect(columnWeight("MAP(VARCHAR, JSON)")).toBe(3)
    expect(columnWeight("DECIMAL(18,3)")).toBe(3)
    // the widest table counts, not the sum of the tables
    const narrow = [...columns("a", wideTypes(40)), ...columns("b", wideTypes(40)), ...columns("c", wideTypes(40))]
    expect(checkpointRoomMb(narrow)).toBe(40 * CHECKPOINT_MB_PER_COLUMN)
    expect(checkpointRoomMb([...narrow, ...columns("d", ["VARCHAR", `STRUCT(a VARCHAR, b BIGINT)[]`])])).toBe(40 * CHECKPOINT_MB_PER_COLUMN)
    expect(checkpointRoomMb(columns("a", [...wideTypes(40), `STRUCT(a VARCHAR, b BIGINT)[]`]))).toBe(44 * CHECKPOINT_MB_PER_COLUMN)
    expect(checkpointRoomMb(columns("a", wideTypes(5)))).toBe(LANDING_MEMORY_LIMIT_MB)
    expect(checkpointRoomMb([])).toBe(LANDING_MEMORY_LIMIT_MB)
    expect(checkpointRoomMb(columns("a", wideTypes(1000)))).toBe(LANDING_MEMORY_CEILING_MB)
  })

  effectIt.scoped(
    "a wide table's checkpoints while landing, one of which DuckDB cannot write at the landing limit, get their room and land every row",
    () =>
      Effect.gen(function* () {
        const file = nodePath.join(tempDir(), "warehouse.duckdb")
        const width = 150
        const group = 6_400
        const rows = 6 * group
        const { room, log } = yield* Effect.scoped(
          Effect.gen(function* () {
            const db = yield* openDatabase(file)
            const settings = makeLandingSettings(db, {})
            yield* settings.enter
            const types = wideTypes(width)
            // text that compresses badly, as in the measurement (`CHECKPOINT_MB_PER_COLUMN`)
            const values = types.map((t, i) =>
              t === "DOUBLE" ? `random() * 1e6` : `md5((i * ${i + 7})::VARCHAR) || ' text ' || (i % 977)`
            )
            yield* db.use("a wide table", async (conn) => {
              await conn.run("CALL enable_logging('QueryLog')")
              await conn.run(`CREATE TABLE wide (${types.map((t, i) => `c${i} ${t}`).join(", ")})`)
            })
            // groups as a run lands them, each followed by the toolkit's checkpoint once the WAL
            // passed 64MB: the second one needs more than the landing limit (fatal without its room)
            for (let from = 0; from < rows; from += group) {
              yield* db.use("a group", async (conn) => {
                let setBack: (() => Promise<void>) | undefined
                await inTransaction(conn, async () => {
                  await conn.run(`INSERT INTO wide SELECT ${values.join(", ")} FROM range(${from}, ${from + group}) r(i)`)
                  setBack = await settings.roomToCommit(conn)
                })
                await setBack!()
              })
              yield* settings.checkpointIfDue
            }
            const log = yield* db.use("the query log", async (conn) =>
              (await rowsOf(conn, `SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp`)).map((r) =>
                String(r.message).replace(/\s+/g, " ")
              )
            )
            yield* settings.leave
            return { room: checkpointRoomMb(columns("wide", wideTypes(width))), log }
          })
        )
        expect(room).toBe(width * CHECKPOINT_MB_PER_COLUMN)
        const checkpoints = log.flatMap((m, i) => (m === "CHECKPOINT" ? [i] : []))
        expect(checkpoints.length).toBeGreaterThanOrEqual(2)
        for (const at of checkpoints)
          expect(log.slice(at - 1, at + 2)).toEqual([
            `SET memory_limit = '${room}MB'`,
            "CHECKPOINT",
            `SET memory_limit = '${LANDING_MEMORY_LIMIT}'`
          ])
        // opened again (the WAL checkpointed), every row is there
        const count = yield* Effect.scoped(
          Effect.flatMap(openDatabase(file), (db) =>
            db.use("count", async (conn) => Number((await rowsOf(conn, `SELECT count(*) AS n FROM wide`))[0]!.n))
          )
        )
        expect(count).toBe(rows)
      }),
    120_000
  )
})
