/**
 * DuckDB types as Arrow types, for the nested and exact columns the Arrow export writes natively:
 * LIST -> List, STRUCT -> Struct, MAP -> Map, DECIMAL(p,s) -> Decimal128(p,s), JSON -> Utf8 with
 * the canonical extension `arrow.json` on its field (`ARROW:extension:name`), so readers (pyarrow
 * 19+, polars, DuckDB) know the text is JSON. Leaves inside nested values follow the scalar
 * mapping of `ArrowExport.ts` (timestamps with time zone `UTC`).
 */
import type { DuckDBDecimalType, DuckDBListType, DuckDBMapType, DuckDBStructType, DuckDBType } from "@duckdb/node-api"
import { duckdb } from "../load/DuckDbApi.js"
import * as Arrow from "apache-arrow"

const TypeId = duckdb.DuckDBTypeId

/** The field metadata marking a column as JSON text (Arrow's canonical extension type). */
export const JSON_EXTENSION: ReadonlyMap<string, string> = new Map([
  ["ARROW:extension:name", "arrow.json"],
  ["ARROW:extension:metadata", ""]
])

export const isJsonType = (t: DuckDBType) => t.typeId === TypeId.VARCHAR && t.alias === "JSON"

/** The field of a column (or a nested member): nullable, JSON marked as such. */
export const arrowField = (name: string, t: DuckDBType, nullable = true): Arrow.Field =>
  new Arrow.Field(name, arrowTypeOf(t), nullable, isJsonType(t) ? new Map(JSON_EXTENSION) : null)

/** The Arrow type of a DuckDB type (anything without a mapping is text). */
export const arrowTypeOf = (t: DuckDBType): Arrow.DataType => {
  switch (t.typeId) {
    case TypeId.TINYINT:
    case TypeId.SMALLINT:
    case TypeId.INTEGER:
    case TypeId.UTINYINT:
    case TypeId.USMALLINT:
      return new Arrow.Int32()
    case TypeId.BIGINT:
    case TypeId.UINTEGER:
      return new Arrow.Int64()
    case TypeId.HUGEINT:
    case TypeId.UHUGEINT:
    case TypeId.UBIGINT:
    case TypeId.FLOAT:
    case TypeId.DOUBLE:
      return new Arrow.Float64()
    case TypeId.DECIMAL: {
      const d = t as DuckDBDecimalType
      return new Arrow.Decimal(d.scale, d.width, 128)
    }
    case TypeId.DATE:
      return new Arrow.DateDay()
    case TypeId.TIMESTAMP:
      return new Arrow.TimestampMicrosecond()
    case TypeId.TIMESTAMP_TZ:
      return new Arrow.TimestampMicrosecond("UTC")
    case TypeId.BOOLEAN:
      return new Arrow.Bool()
    case TypeId.LIST:
      return new Arrow.List(arrowField("item", (t as DuckDBListType).valueType))
    case TypeId.STRUCT: {
      const s = t as DuckDBStructType
      return new Arrow.Struct(s.entryNames.map((n, i) => arrowField(n, s.entryTypes[i]!)))
    }
    case TypeId.MAP: {
      const m = t as DuckDBMapType
      const entries = new Arrow.Struct<any>([arrowField("key", m.keyType, false), arrowField("value", m.valueType)])
      return new Arrow.Map_(new Arrow.Field("entries", entries, false))
    }
    default:
      return new Arrow.Utf8()
  }
}

/** A decimal's unscaled value as the four little-endian 32-bit words Arrow stores. */
export const decimalWords = (unscaled: bigint, into: Uint32Array = new Uint32Array(4), at = 0): Uint32Array => {
  const v = BigInt.asUintN(128, unscaled)
  for (let w = 0; w < 4; w++) into[at + w] = Number((v >> BigInt(32 * w)) & 0xffffffffn)
  return into
}

type ToJs = (v: any) => unknown

/** How a DuckDB value of the type becomes what apache-arrow's builder of `arrowTypeOf(t)` takes. */
export const jsValueOf = (t: DuckDBType): ToJs => {
  const nullable =
    (f: ToJs): ToJs =>
    (v) =>
      v === null || v === undefined ? null : f(v)
  switch (t.typeId) {
    case TypeId.BIGINT:
    case TypeId.UINTEGER:
      return nullable((v: number | bigint) => BigInt(v))
    case TypeId.HUGEINT:
    case TypeId.UHUGEINT:
    case TypeId.UBIGINT:
      return nullable((v: number | bigint) => Number(v))
    case TypeId.DECIMAL:
      return nullable((v: { value: bigint }) => decimalWords(v.value))
    case TypeId.DATE:
      return nullable((v: { days: number }) => v.days * 86_400_000)
    case TypeId.TIMESTAMP:
    case TypeId.TIMESTAMP_TZ:
      return nullable((v: { micros: bigint }) => Number(v.micros / 1000n))
    case TypeId.TINYINT:
    case TypeId.SMALLINT:
    case TypeId.INTEGER:
    case TypeId.UTINYINT:
    case TypeId.USMALLINT:
    case TypeId.FLOAT:
    case TypeId.DOUBLE:
    case TypeId.BOOLEAN:
    case TypeId.VARCHAR:
      return nullable((v) => v)
    case TypeId.LIST: {
      const item = jsValueOf((t as DuckDBListType).valueType)
      return nullable((v: { items: ReadonlyArray<unknown> }) => v.items.map(item))
    }
    case TypeId.STRUCT: {
      const s = t as DuckDBStructType
      const members = s.entryNames.map((n, i) => [n, jsValueOf(s.entryTypes[i]!)] as const)
      return nullable((v: { entries: Record<string, unknown> }) => {
        const out: Record<string, unknown> = {}
        for (const [n, f] of members) out[n] = f(v.entries[n])
        return out
      })
    }
    case TypeId.MAP: {
      const m = t as DuckDBMapType
      const key = jsValueOf(m.keyType)
      const value = jsValueOf(m.valueType)
      return nullable(
        (v: { entries: ReadonlyArray<{ key: unknown; value: unknown }> }) => new Map(v.entries.map((e) => [key(e.key), value(e.value)]))
      )
    }
    default:
      return nullable((v) => String(v))
  }
}
