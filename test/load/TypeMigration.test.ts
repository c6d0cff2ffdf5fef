import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as nodePath from "node:path"
import type { Row, TableSpec } from "../../src/normalize/Table.js"
import { makeWarehouse } from "../../src/load/Warehouse.js"
import { page, tempDir } from "./fixtures.js"

/** A table as the previous version wrote it: timestamps without zone, money DOUBLE, JSON text, country names. */
const before: TableSpec = {
  name: "homes",
  columns: [
    { name: "id", type: "BIGINT" },
    { name: "country", type: "VARCHAR" },
    { name: "sale_price", type: "DOUBLE" },
    { name: "features", type: "JSON" },
    { name: "links", type: "JSON" },
    { name: "updated_at", type: "TIMESTAMP" },
    { name: "extracted_at", type: "TIMESTAMP" }
  ],
  primaryKey: ["id"],
  disposition: "history"
}

const after: TableSpec = {
  ...before,
  columns: [
    { name: "id", type: "BIGINT" },
    { name: "country", type: "VARCHAR" },
    { name: "country_raw", type: "VARCHAR" },
    { name: "sale_price", type: "DECIMAL(18,2)" },
    { name: "features", type: "STRUCT(floor VARCHAR, views VARCHAR[])" },
    { name: "links", type: "STRUCT(name VARCHAR, listing_url VARCHAR)[]" },
    { name: "updated_at", type: "TIMESTAMPTZ" },
    { name: "extracted_at", type: "TIMESTAMPTZ" }
  ]
}

const oldRow = (id: number, country: string): Row => ({
  id,
  country,
  sale_price: 250000.5,
  features: JSON.stringify({ floor: "ground", views: ["sea"] }),
  links: JSON.stringify([{ name: "Agency A", listing_url: "https://a.example/1" }]),
  updated_at: "2026-02-01T10:00:00.000Z",
  extracted_at: "2026-11-20T00:00:00.000Z"
})

describe("migrating a warehouse written before native types", () => {
  it.scoped("old column types are altered in place, values kept, countries coded, history hashes recomputed", () =>
    Effect.gen(function* () {
      const path = nodePath.join(tempDir(), "warehouse.duckdb")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const wh = yield* makeWarehouse({ path })
          yield* wh.ensureTables([before])
          yield* wh.startRun({ runId: "r1", pipeline: "plots" })
          yield* wh.commitPage(page("r1", { homes: [oldRow(1, "Spain"), oldRow(2, "de")] }, { key: "k", value: 1 }))
        })
      )
      const wh = yield* makeWarehouse({ path })
      yield* wh.ensureTables([after])
      const types = yield* wh.query(
        `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'homes' AND column_name NOT IN ('_is_current', '_content_hash') ORDER BY column_index`
      )
      expect(Object.fromEntries(types.map((t) => [t.column_name, t.data_type]))).toEqual({
        id: "BIGINT",
        country: "VARCHAR",
        sale_price: "DECIMAL(18,2)",
        features: 'STRUCT(floor VARCHAR, "views" VARCHAR[])',
        links: 'STRUCT("name" VARCHAR, listing_url VARCHAR)[]',
        updated_at: "TIMESTAMP WITH TIME ZONE",
        extracted_at: "TIMESTAMP WITH TIME ZONE",
        _valid_from: "TIMESTAMP WITH TIME ZONE",
        _valid_to: "TIMESTAMP WITH TIME ZONE",
        country_raw: "VARCHAR"
      })
      const rows = yield* wh.query(
        `SELECT id, country, country_raw, sale_price, features, links, epoch_ms(updated_at) AS at FROM homes ORDER BY id`
      )
      expect(rows).toEqual([
        {
          id: 1,
          country: "ES",
          country_raw: "Spain",
          sale_price: 250000.5,
          features: { floor: "ground", views: ["sea"] },
          links: [{ name: "Agency A", listing_url: "https://a.example/1" }],
          at: Date.parse("2026-02-01T10:00:00.000Z")
        },
        {
          id: 2,
          country: "DE",
          country_raw: "de",
          sale_price: 250000.5,
          features: { floor: "ground", views: ["sea"] },
          links: [{ name: "Agency A", listing_url: "https://a.example/1" }],
          at: Date.parse("2026-02-01T10:00:00.000Z")
        }
      ])
      // The same records landed again by the new version are no new versions (hashes were recomputed).
      yield* wh.startRun({ runId: "r2", pipeline: "plots" })
      const again = [
        { ...oldRow(1, "Spain"), country: "ES", country_raw: "Spain" },
        { ...oldRow(2, "de"), country: "DE", country_raw: "de" }
      ]
      yield* wh.commitPage(page("r2", { homes: again }, { key: "k", value: 2 }, { extractedAt: "2026-11-21T00:00:00.000Z" }))
      expect(yield* wh.query(`SELECT count(*) AS n FROM homes`)).toEqual([{ n: 2 }])
    })
  )

  it.scoped("a change of type with no migration is refused, saying what to do, and leaves the table as it was", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb") })
      yield* wh.ensureTables([before])
      const bad: TableSpec = {
        ...before,
        columns: before.columns.map((c) => (c.name === "sale_price" ? { ...c, type: "DATE" as const } : c))
      }
      const err = yield* Effect.flip(wh.ensureTables([bad]))
      expect(err.reason).toBe("SchemaConflict")
      expect(err.message).toMatch(/column sale_price is DOUBLE in the warehouse but DATE in the spec, and there is no automatic migration/)
      expect(err.message).toMatch(/ALTER TABLE homes RENAME TO homes_old/)
      const [t] = yield* wh.query(`SELECT data_type FROM duckdb_columns() WHERE table_name = 'homes' AND column_name = 'sale_price'`)
      expect(t).toEqual({ data_type: "DOUBLE" })
    })
  )

  it.scoped("an unknown column type is refused before anything is created, naming what is allowed", () =>
    Effect.gen(function* () {
      const wh = yield* makeWarehouse({ path: nodePath.join(tempDir(), "warehouse.duckdb") })
      const bad: TableSpec = { ...after, columns: [...after.columns, { name: "x", type: "STRUCT(a FLOATY)" }] }
      const err = yield* Effect.flip(wh.ensureTables([bad]))
      expect(err.message).toMatch(/column x: type "STRUCT\(a FLOATY\)": unknown type FLOATY \(allowed: VARCHAR, .*DECIMAL\(p,s\)/)
    })
  )
})
