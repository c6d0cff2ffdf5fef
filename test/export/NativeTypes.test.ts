/**
 * Native types as an independent reader sees them: the Parquet footer read by DuckDB's
 * `parquet_schema` (it parses the file's own metadata), the Arrow IPC file read by apache-arrow.
 * Values and country codes are checked against the sandbox's world.
 */
import { DataType, tableFromIPC, type Field } from "apache-arrow"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { exportArrow } from "../../src/export/ArrowExport.js"
import { exportParquet } from "../../src/export/ParquetExport.js"
import { Warehouse } from "../../src/load/Warehouse.js"
import { COUNTRY_DATA } from "../../src/sandbox/world/GeoData.js"
import { useHarness } from "../support/pipelines.js"

const firstParquet = (dir: string): string => {
  const f = fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .find((p) => p.endsWith(".parquet"))
  if (!f) throw new Error(`no parquet file under ${dir}`)
  return nodePath.join(dir, f)
}

describe("native types in Parquet and Arrow", () => {
  const h = useHarness({ sandbox: { world: { properties: 400, plots: 120 } } })
  const out = () => nodePath.join(h.dir, "typed-out")

  it("land, export and read back with an independent reader", async () => {
    const world = h.sandbox.context.world
    const ids = [0, 3, 17, 42, 99, 150].map((i) => world.propertyIdOf(i))
    expect((await h.run("properties-by-id", { params: { ids } })).status).toBe("done")
    expect((await h.run("plots-germany", { params: { pageSize: 40, maxPages: 1 } })).status).toBe("done")
    expect((await h.run("sourcing-search", { params: { country: "PT", pageSize: 50 } })).status).toBe("done")
    await h.use(Effect.flatMap(Warehouse, (wh) => exportParquet(wh, { outDir: out() })))
    await h.use(Effect.flatMap(Warehouse, (wh) => exportArrow(wh, { outDir: out() })))

    // Parquet: the footer as written
    const schema = async (table: string) => {
      const file = firstParquet(nodePath.join(out(), "parquet", table))
      const rows = await h.query(
        `SELECT name, type, converted_type, logical_type, repetition_type, num_children FROM parquet_schema('${file}')`
      )
      return (name: string) => rows.filter((r) => r.name === name)
    }
    const props = await schema("properties")
    expect(props("extracted_at")[0]!.logical_type).toMatch(/TimestampType\(isAdjustedToUTC=1/)
    expect(props("sale_price")[0]).toMatchObject({ converted_type: "DECIMAL", logical_type: "DecimalType(scale=2, precision=18)" })
    expect(props("extra")[0]).toMatchObject({ converted_type: "JSON", logical_type: "JsonType()" })
    expect(props("locations_structure")[0]).toMatchObject({ converted_type: "LIST", type: null })
    expect(props("list").some((r) => r.repetition_type === "REPEATED")).toBe(true)
    expect(props("features")[0]).toMatchObject({ type: null, num_children: 7 })
    const plots = await schema("plots")
    expect(plots("facts_from_text")[0]).toMatchObject({ converted_type: "MAP" })
    expect(plots("key_value")[0]).toMatchObject({ repetition_type: "REPEATED", num_children: 2 })
    expect(plots("sale_eur")[0]!.logical_type).toBe("DecimalType(scale=2, precision=18)")

    // Arrow: types and the JSON extension on the fields
    const arrow = tableFromIPC(fs.readFileSync(nodePath.join(out(), "arrow", "properties.arrow")))
    const field = (name: string): Field => arrow.schema.fields.find((f) => f.name === name)!
    expect(DataType.isTimestamp(field("extracted_at").type)).toBe(true)
    expect((field("extracted_at").type as { timezone?: string }).timezone).toBe("UTC")
    expect(DataType.isDecimal(field("sale_price").type)).toBe(true)
    expect(field("sale_price").type).toMatchObject({ scale: 2, precision: 18 })
    expect(DataType.isList(field("locations_structure").type)).toBe(true)
    expect(DataType.isStruct(field("locations_structure").type.children[0]!.type)).toBe(true)
    expect(DataType.isStruct(field("features").type)).toBe(true)
    expect(field("extra").metadata.get("ARROW:extension:name")).toBe("arrow.json")
    expect(field("description").metadata.get("ARROW:extension:name")).toBeUndefined()
    const plotsArrow = tableFromIPC(fs.readFileSync(nodePath.join(out(), "arrow", "plots.arrow")))
    expect(DataType.isMap(plotsArrow.schema.fields.find((f) => f.name === "facts_from_text")!.type)).toBe(true)

    // values against the world: prices to the cent, the country structure, the listings
    const now = h.sandbox.context.clock.now()
    for (let r = 0; r < arrow.numRows; r++) {
      const row = arrow.get(r)!.toJSON() as Record<string, any>
      const truth = world.propertyById(Number(row.property_id), now)!
      const top = truth.locations_structure[truth.locations_structure.length - 1]!
      expect(row.country_raw).toBe(top.name)
      expect(row.country).toBe(COUNTRY_DATA.find((c) => c.name === top.name)!.code)
      expect(row.locations_structure.toArray().map((l: any) => l.name)).toEqual(truth.locations_structure.map((l) => l.name))
      const [landed] = await h.query(`SELECT sale_price, sale_currency FROM properties WHERE property_id = ${truth.property_id}`)
      expect(landed!.sale_price).toBe(
        truth.sale_price === null || truth.sale_price === undefined ? null : Math.round(truth.sale_price * 100) / 100
      )
      expect(landed!.sale_currency).toBe(truth.sale_currency ?? null)
    }
  })

  it("every table's country is an upper-case code of the world's countries", async () => {
    const codes = new Set(COUNTRY_DATA.map((c) => c.code))
    const tables = await h.query(
      `SELECT table_name FROM duckdb_columns() WHERE column_name = 'country' AND schema_name = 'main' AND NOT internal AND table_name NOT LIKE '\\_%' ESCAPE '\\'`
    )
    expect(tables.length).toBeGreaterThanOrEqual(3)
    for (const { table_name } of tables) {
      const values = await h.query(`SELECT DISTINCT country FROM "${String(table_name)}"`)
      expect(values.length, `${table_name} has rows`).toBeGreaterThan(0)
      for (const v of values) expect(codes.has(String(v.country)), `${table_name}: ${v.country}`).toBe(true)
    }
    const [plot] = await h.query(`SELECT DISTINCT country, country_raw FROM plots`)
    expect(plot).toEqual({ country: "DE", country_raw: "de" })
  })
})
