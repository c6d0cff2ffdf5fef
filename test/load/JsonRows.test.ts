/**
 * Bookkeeping rows carried as one JSON literal (`JsonRows.ts`): what goes in comes back out of a
 * real DuckDB, whatever the text holds, and what `sqlValue` refuses is still refused.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { describe, expect, it } from "vitest"
import { TS } from "../../src/load/Bookkeeping.js"
import { CALL_COLUMNS, LEDGER_COLUMNS, mergeInto, SLICE_COLUMNS } from "../../src/load/BookkeepingRows.js"
import { rowsOf } from "../../src/load/Database.js"
import { type Cell, columnList, type RowColumn, selectRows } from "../../src/load/JsonRows.js"
import { WarehouseError } from "../../src/load/WarehouseError.js"

const withDb = async <A>(f: (conn: Awaited<ReturnType<DuckDBInstance["connect"]>>) => Promise<A>): Promise<A> => {
  const db = await DuckDBInstance.create(":memory:")
  const conn = await db.connect()
  try {
    await conn.run("SET TimeZone = 'UTC'")
    return await f(conn)
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

const LEDGER_SQL = `CREATE TABLE _ledger (request_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL,
  operation VARCHAR NOT NULL, units DOUBLE NOT NULL, "at" TIMESTAMP NOT NULL, units_remaining DOUBLE, PRIMARY KEY (run_id, request_id))`
const SLICES_SQL = `CREATE TABLE _slices (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, slice VARCHAR NOT NULL, declared BIGINT,
  received BIGINT NOT NULL, landed BIGINT NOT NULL, rejected BIGINT NOT NULL, pages BIGINT NOT NULL, ended_by VARCHAR,
  end_detail VARCHAR, done BOOLEAN NOT NULL, updated_at TIMESTAMP NOT NULL, distinct_keys BIGINT, PRIMARY KEY (run_id, slice))`

const columns: Array<RowColumn> = [
  { name: "s", type: "VARCHAR" },
  { name: "n", type: "BIGINT" },
  { name: "x", type: "DOUBLE" },
  { name: "b", type: "BOOLEAN" },
  { name: "at", type: "VARCHAR", as: TS },
  { name: "key", type: "VARCHAR", as: (f) => `from_hex(${f})` }
]

describe("bookkeeping rows as one JSON literal", () => {
  it("every string comes back as it went in: quotes, backslashes, line breaks, JSON of its own, emoji; null and missing are NULL", async () => {
    const strings = [
      `it's "quoted"`,
      "back\\slash \\u0041 and \\n literally",
      "line\nbreak\ttab\r",
      '{"a":[1,2],"b":null}',
      "émoji 🏠 ünï",
      "",
      "'; DROP TABLE t; --"
    ]
    const rows: Array<Array<Cell>> = strings.map((s, i) => [s, 2 ** 40 + i, 0.1 + i, i % 2 === 0, "2026-11-27T17:01:17.123Z", "00ff10"])
    rows.push([null, undefined, null, null, undefined, null])
    const back = await withDb(async (conn) => {
      await conn.run(`CREATE TABLE t (s VARCHAR, n BIGINT, x DOUBLE, b BOOLEAN, "at" TIMESTAMP, "key" BLOB)`)
      await conn.run(`INSERT INTO t ${columnList(columns)} ${selectRows(columns, rows)}`)
      return rowsOf(conn, `SELECT s, n, x, b, CAST("at" AS VARCHAR) AS at, hex("key") AS key FROM t ORDER BY n NULLS LAST`)
    })
    expect(back.map((r) => r.s)).toEqual([...strings, null])
    expect(back.map((r) => r.n)).toEqual([...strings.map((_, i) => BigInt(2 ** 40 + i)), null])
    expect(back.map((r) => r.x)).toEqual([...strings.map((_, i) => 0.1 + i), null])
    expect(back.map((r) => r.b)).toEqual([...strings.map((_, i) => i % 2 === 0), null])
    expect(back[0]).toMatchObject({ at: "2026-11-27 17:01:17.123", key: "00FF10" })
    expect(back.at(-1)).toMatchObject({ at: null, key: null })
  })

  it("a lone surrogate is stored as U+FFFD, as a VALUES literal would store it", async () => {
    const back = await withDb(async (conn) => {
      await conn.run(`CREATE TABLE t (s VARCHAR)`)
      await conn.run(`INSERT INTO t (s) ${selectRows([{ name: "s", type: "VARCHAR" }], [["a\uD800b"], ["c\uDC00"], ["ok \uD83C\uDFE0"]])}`)
      return rowsOf(conn, `SELECT s FROM t ORDER BY s`)
    })
    expect(back.map((r) => r.s)).toEqual(["a\uFFFDb", "c\uFFFD", "ok \uD83C\uDFE0"])
  })

  it("apostrophes travel as JSON escapes: the statement's only quotes are its two literals' own, and every apostrophe comes back", async () => {
    const raw = `{"street":"Rue de l'Église","note":"it's the owner's"}`
    const rows = Array.from({ length: 500 }, (_, i) => [`${raw} #${i}`])
    const sql = selectRows([{ name: "s", type: "VARCHAR" }], rows)
    expect(sql.split("'")).toHaveLength(5)
    const back = await withDb(async (conn) => {
      await conn.run(`CREATE TABLE t (s VARCHAR)`)
      await conn.run(`INSERT INTO t (s) ${sql}`)
      return rowsOf(
        conn,
        `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE s LIKE '${raw.replaceAll("'", "''")} #%')::INTEGER AS whole FROM t`
      )
    })
    expect(back).toEqual([{ n: 500, whole: 500 }])
  })

  it("a value its column cannot hold is refused by name, as DuckDB refused it in a VALUES list, not read as NULL; halves round away from zero", async () => {
    const count: Array<RowColumn> = [{ name: "declared", type: "BIGINT" }]
    expect(() => selectRows(count, [["12"]])).toThrow(/declared takes a whole number, got string 12/)
    expect(() => selectRows(count, [[1e20]])).toThrow(/declared takes a whole number within 2\^53/)
    expect(() => selectRows([{ name: "units", type: "DOUBLE" }], [[true]])).toThrow(/units takes a number, got boolean/)
    expect(() => selectRows([{ name: "done", type: "BOOLEAN" }], [["yes"]])).toThrow(/done takes a boolean/)
    const back = await withDb(async (conn) => {
      await conn.run(`CREATE TABLE t (declared BIGINT)`)
      await conn.run(`INSERT INTO t (declared) ${selectRows(count, [[2.5], [3.4], [-2.5]])}`)
      return rowsOf(conn, `SELECT declared FROM t ORDER BY declared`)
    })
    expect(back.map((r) => r.declared)).toEqual([-3n, 3n, 3n])
  })

  it("refuses a number that is not finite and a row of the wrong width, before DuckDB sees them", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => selectRows(LEDGER_COLUMNS, [["req", "r", "p", "op", bad, "2026-11-27T00:00:00Z", null]])).toThrow(WarehouseError)
    }
    expect(() => selectRows(LEDGER_COLUMNS, [["req", "r"]])).toThrow(/2 values for 7 columns/)
  })

  it("a bookkeeping table's merge lands its rows once (a call landed again keeps its first row)", async () => {
    const call = (ms: number): Array<Cell> => ["r", "p", 1, "ES", 1, "op", "req-1", 1, 0, 1, "2026-11-27T00:00:00.000Z", ms]
    const back = await withDb(async (conn) => {
      await conn.run(`CREATE TABLE _calls (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, seq BIGINT NOT NULL,
        slice VARCHAR NOT NULL, slice_seq BIGINT NOT NULL, operation VARCHAR, request_id VARCHAR, requests BIGINT NOT NULL,
        retries BIGINT NOT NULL, units DOUBLE NOT NULL, started_at TIMESTAMP, ms DOUBLE, PRIMARY KEY (run_id, seq))`)
      await conn.run(mergeInto("_calls", CALL_COLUMNS, [call(12.5)], ["run_id", "seq"]))
      await conn.run(mergeInto("_calls", CALL_COLUMNS, [call(99)], ["run_id", "seq"]))
      return rowsOf(conn, `SELECT seq, ms, CAST(started_at AS VARCHAR) AS started_at FROM _calls`)
    })
    expect(back).toEqual([{ seq: 1n, ms: 12.5, started_at: "2026-11-27 00:00:00" }])
  })

  it("a merge by key inserts what is new, gives back only that, updates what the key finds, leaves it alone without an update, and refuses a key twice", async () => {
    const charge = (id: string, units: number): Array<Cell> => [id, "r", "p", "op", units, "2026-11-27T00:00:00Z", null]
    const slice = (received: number, declared: number | null, endedBy: string | null): Array<Cell> => [
      "r",
      "p",
      "ES",
      declared,
      received,
      received,
      0,
      1,
      endedBy,
      null,
      false,
      "2026-11-27T00:00:00Z",
      received
    ]
    const back = await withDb(async (conn) => {
      await conn.run(LEDGER_SQL)
      await conn.run(SLICES_SQL)
      const first = await rowsOf(
        conn,
        mergeInto("_ledger", LEDGER_COLUMNS, [charge("a", 1), charge("b", 2)], ["run_id", "request_id"], { returning: "units" })
      )
      // "a" again (another charge of it is the same charge): left as it was, not given back
      const again = await rowsOf(
        conn,
        mergeInto("_ledger", LEDGER_COLUMNS, [charge("a", 9), charge("c", 3)], ["run_id", "request_id"], { returning: "units" })
      )
      const twice = await conn.run(mergeInto("_ledger", LEDGER_COLUMNS, [charge("d", 1), charge("d", 1)], ["run_id", "request_id"])).then(
        () => "landed",
        (e: unknown) => String(e)
      )
      const sum = {
        received: "_slices.received + _s.received",
        declared: "coalesce(_s.declared, _slices.declared)",
        ended_by: "coalesce(_s.ended_by, _slices.ended_by)"
      }
      await conn.run(mergeInto("_slices", SLICE_COLUMNS, [slice(10, 25, null)], ["run_id", "slice"], { update: sum }))
      await conn.run(mergeInto("_slices", SLICE_COLUMNS, [slice(15, null, "short_page")], ["run_id", "slice"], { update: sum }))
      return {
        first: first.map((r) => r.units).sort(),
        again: again.map((r) => r.units),
        twice,
        ledger: await rowsOf(conn, `SELECT request_id, units FROM _ledger ORDER BY request_id`),
        slices: await rowsOf(conn, `SELECT received, declared, ended_by, pages FROM _slices`)
      }
    })
    expect(back.first).toEqual([1, 2])
    expect(back.again).toEqual([3])
    expect(back.twice).toMatch(/duplicate key/)
    expect(back.ledger).toEqual([
      { request_id: "a", units: 1 },
      { request_id: "b", units: 2 },
      { request_id: "c", units: 3 }
    ])
    // the columns `update` names changed, the others (pages) kept the first row's
    expect(back.slices).toEqual([{ received: 25n, declared: 25n, ended_by: "short_page", pages: 1n }])
  })
})
