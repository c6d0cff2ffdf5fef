/**
 * Format 4 keeps the bill: a warehouse of format 3 (no `_ledger.units_remaining`, no
 * `_runs.units_full`) still opens read-only and gives a bill without a balance, and a writable
 * open migrates it in place (the columns added, earlier rows NULL, the version 4); the bill then
 * reads the balance a charge reported.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { FORMAT_VERSION } from "../../src/load/Bookkeeping.js"
import { makeWarehouse, TableReads } from "../../src/load/Warehouse.js"
import { readBill } from "../../src/report/Bill.js"

const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "estate-bill-format-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const sql = async (file: string, statements: ReadonlyArray<string>) => {
  const db = await DuckDBInstance.create(file)
  const conn = await db.connect()
  try {
    const out: Array<Array<Record<string, unknown>>> = []
    for (const s of statements) out.push((await conn.runAndReadAll(s)).getRowObjectsJS() as Array<Record<string, unknown>>)
    return out
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}

const billOf = (file: string, readOnly: boolean) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(makeWarehouse({ path: file, readOnly }), (w) =>
        Effect.provideService(readBill({ now: new Date(), dailyCap: 100 }), TableReads, w)
      )
    )
  )

describe("the bill's columns (format 4)", () => {
  it("a format 3 warehouse reads without a balance, then migrates in place", async () => {
    const file = nodePath.join(dir, "v3.duckdb")
    await Effect.runPromise(Effect.scoped(makeWarehouse({ path: file })))
    const at = new Date(Date.now() - 3_600_000).toISOString()
    await sql(file, [
      `ALTER TABLE _ledger DROP COLUMN units_remaining`,
      `ALTER TABLE _runs DROP COLUMN units_full`,
      `UPDATE _meta SET value = '3' WHERE key = 'format_version'`,
      `INSERT INTO _ledger VALUES ('r1', 'run-1', 'plots-germany', 'plot_search', 4, CAST('${at}' AS TIMESTAMP))`
    ])

    const old = await billOf(file, true)
    expect(old.balance).toBeUndefined()
    expect(old.month.units).toBe(4)

    const migrated = await billOf(file, false)
    expect(migrated.balance).toBeUndefined()
    const [meta, cols, rows] = await sql(file, [
      `SELECT value FROM _meta WHERE key = 'format_version'`,
      `SELECT table_name, column_name FROM duckdb_columns() WHERE column_name IN ('units_remaining', 'units_full') ORDER BY 1`,
      `SELECT units_remaining FROM _ledger`
    ])
    expect(meta![0]!.value).toBe(String(FORMAT_VERSION))
    expect(cols).toEqual([
      { table_name: "_ledger", column_name: "units_remaining" },
      { table_name: "_runs", column_name: "units_full" }
    ])
    expect(rows).toEqual([{ units_remaining: null }])

    // a charge that reported the balance: the bill's balance is the newest one
    await sql(file, [
      `INSERT INTO _ledger (request_id, run_id, pipeline, operation, units, "at", units_remaining)
       VALUES ('r2', 'run-2', 'plots-germany', 'plot_search', 3, CAST('${new Date().toISOString()}' AS TIMESTAMP), 993)`
    ])
    const bill = await billOf(file, true)
    expect(bill.balance).toMatchObject({ units: 993, runId: "run-2" })
    expect(bill.month.units).toBe(7)
    // the ledger is younger than a day: the rate is the day's 7 units; 993 / 7 days left
    expect(bill.forecast.perDay).toBe(7)
    expect(bill.forecast.daysLeft).toBeCloseTo(993 / 7, 6)
    expect(bill.forecast.daysLeftAtDailyCap).toBeCloseTo(9.93, 6)
  })
})
