import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { TableSpec } from "../../src/normalize/Table.js"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { agencies, links, page, plotRow, plots, tempDir } from "./fixtures.js"

const withColumn = (spec: TableSpec, column: TableSpec["columns"][number]): TableSpec => ({ ...spec, columns: [...spec.columns, column] })

describe("schema evolution", () => {
  it.scoped("a new nullable column is added; old rows read NULL, new rows carry it, also after reopening", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = nodePath.join(dir, "warehouse.duckdb")
      const grown = withColumn(plots, { name: "bedrooms", type: "INTEGER" })
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* makeWarehouse({ path })
          yield* wh.ensureTables([plots])
          yield* wh.startRun({ runId: "r1", pipeline: "plots" })
          yield* wh.commitPage(page("r1", { plots: [plotRow(1)] }, { key: "k", value: 1 }))
        })
      )
      const wh = yield* makeWarehouse({ path })
      yield* wh.ensureTables([grown])
      yield* wh.startRun({ runId: "r2", pipeline: "plots" })
      yield* wh.commitPage(page("r2", { plots: [plotRow(2, { bedrooms: 3 })] }, { key: "k", value: 2 }))
      expect(yield* wh.query(`SELECT id, bedrooms FROM plots ORDER BY id`)).toEqual([
        { id: "plot_1", bedrooms: null },
        { id: "plot_2", bedrooms: 3 }
      ])
      // Declaring the older spec again is fine: the extra column stays and gets NULL.
      yield* wh.ensureTables([plots])
      yield* wh.commitPage(page("r2", { plots: [plotRow(3)] }, { key: "k", value: 3 }))
      expect(yield* wh.query(`SELECT bedrooms FROM plots WHERE id = 'plot_3'`)).toEqual([{ bedrooms: null }])
    })
  )

  it.scoped("a table declared again as it is registered is not written again; a changed declaration is, as DuckDB's query log shows", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb") })
      const writes = Effect.map(
        wh.query(
          `SELECT message FROM duckdb_logs WHERE type = 'QueryLog' AND (message LIKE 'INSERT INTO _tables%' OR message LIKE 'UPDATE _tables%')`
        ),
        (rows) => rows.length
      )
      const columns = wh.query(`SELECT json_array_length(columns)::INTEGER AS n FROM _tables WHERE table_name = 'plots'`)
      yield* wh.withConnection("the query log on", (conn) => conn.run("CALL enable_logging('QueryLog')"))
      yield* wh.ensureTables([plots])
      expect(yield* writes).toBe(1)
      yield* wh.ensureTables([plots])
      yield* wh.ensureTables([plots])
      expect(yield* writes).toBe(1)
      yield* wh.ensureTables([withColumn(plots, { name: "bedrooms", type: "INTEGER" })])
      expect(yield* writes).toBe(2)
      expect(yield* columns).toEqual([{ n: plots.columns.length + 1 }])
      // the first registration an INSERT, the change an UPDATE: no ON CONFLICT (slower on a freshly opened file)
      const statements = yield* wh.query(
        `SELECT message FROM duckdb_logs WHERE type = 'QueryLog' AND message LIKE '%_tables%' AND message NOT LIKE '%duckdb_logs%'`
      )
      expect(statements.filter((r) => /ON CONFLICT/i.test(String(r.message)))).toEqual([])
      expect(yield* wh.query(`SELECT count(*)::INTEGER AS n FROM _tables WHERE table_name = 'plots'`)).toEqual([{ n: 1 }])
    })
  )

  it.scoped("several tables read their columns in one query; a table declared twice in one call is evolved by the second", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb") })
      const reads = Effect.map(
        wh.query(
          `SELECT message FROM duckdb_logs WHERE type = 'QueryLog' AND message LIKE '%FROM duckdb_columns()%' AND message NOT LIKE '%duckdb_logs%'`
        ),
        (rows) => rows.length
      )
      yield* wh.withConnection("the query log on", (conn) => conn.run("CALL enable_logging('QueryLog')"))
      yield* wh.ensureTables([plots, links, agencies])
      expect(yield* reads).toBe(1)
      yield* wh.ensureTables([plots, withColumn(plots, { name: "bedrooms", type: "INTEGER" })])
      expect(yield* reads).toBe(3)
      expect(
        yield* wh.query(`SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE table_name = 'plots' AND column_name = 'bedrooms'`)
      ).toEqual([{ n: 1 }])
    })
  )

  it.scoped("incompatible changes are refused with a SchemaConflict naming the table and column", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb") })
      yield* wh.ensureTables([plots])
      const cases: ReadonlyArray<[TableSpec, RegExp]> = [
        [
          { ...plots, columns: plots.columns.map((c) => (c.name === "area_m2" ? { ...c, type: "VARCHAR" as const } : c)) },
          /column area_m2 is INTEGER in the warehouse but VARCHAR in the spec/
        ],
        [{ ...plots, primaryKey: ["id", "country"] }, /primary key changed from \(id\) to \(id, country\)/],
        [{ ...plots, disposition: "append", primaryKey: [] }, /disposition changed from merge to append/],
        [withColumn(plots, { name: "required", type: "BIGINT", nullable: false }), /new column required is NOT NULL/],
        [{ ...plots, primaryKey: ["nope"] }, /primary key column nope is not a column/],
        [{ ...plots, name: "_private" }, /a table name starts with a letter/],
        [{ ...plots, name: "no_key", primaryKey: [] }, /a merge table needs a primary key/]
      ]
      for (const [spec, message] of cases) {
        const err = yield* Effect.flip(wh.ensureTables([spec]))
        expect(err.reason).toBe("SchemaConflict")
        expect(err.message).toMatch(message)
      }
      // A refused change leaves the table as it was.
      expect((yield* wh.query(`SELECT data_type FROM duckdb_columns() WHERE table_name = 'plots' AND column_name = 'area_m2'`))[0]).toEqual(
        { data_type: "INTEGER" }
      )
    })
  )
})
