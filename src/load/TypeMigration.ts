/**
 * Column types of an existing table against its spec: warehouses written before native types
 * (timestamps without time zone, money as DOUBLE, nested records as JSON text, country names)
 * are migrated in place, inside the caller's transaction:
 *
 * - `TIMESTAMP` -> `TIMESTAMPTZ`: the stored wall time was UTC, so it is read as UTC;
 * - `DOUBLE`, `BIGINT`, `INTEGER` -> `DECIMAL(p,s)`: cast (rounded to the scale);
 * - `JSON` or `VARCHAR` -> a nested type: shaped by `json_transform` as new rows are;
 * - `VARCHAR` -> `JSON`: cast;
 * - a new `country_raw` column beside `country`: the old value moves there and `country` becomes
 *   its ISO code (`normalize/Countries.ts`);
 * - a history table's `_content_hash` is recomputed (a value's text changes with its type), so the
 *   next run does not see every record as changed.
 *
 * Any other change of type is refused with what to do (`SchemaConflict`).
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { landingCast, type ParsedType, parseColumnType } from "../normalize/ColumnTypes.js"
import { countryCodeSql } from "../normalize/Countries.js"
import type { TableSpec } from "../normalize/Table.js"
import { ident, rowsOf } from "./Database.js"
import { contentHashSql } from "./HistoryTable.js"
import { WarehouseError } from "./WarehouseError.js"

/** DuckDB's own text of each type (`TIMESTAMPTZ` is `TIMESTAMP WITH TIME ZONE`), for comparison. */
export const canonicalTypes = async (conn: DuckDBConnection, types: ReadonlyArray<string>): Promise<Map<string, string>> => {
  const distinct = [...new Set(types)]
  if (distinct.length === 0) return new Map()
  const row = (await rowsOf(conn, `SELECT ${distinct.map((t, i) => `typeof(CAST(NULL AS ${t})) AS "${i}"`).join(", ")}`))[0]!
  return new Map(distinct.map((t, i) => [t, String(row[String(i)])]))
}

const NUMERIC = new Set(["DOUBLE", "BIGINT", "INTEGER", "FLOAT", "SMALLINT", "HUGEINT"])

/** The `USING` expression turning the old column into the new type, or undefined when there is none. */
export const migrationOf = (from: string, to: ParsedType, col: string): string | undefined => {
  if (to.kind === "scalar" && to.name === "TIMESTAMPTZ" && from === "TIMESTAMP") return `CAST(${col} AS TIMESTAMPTZ)`
  if (to.kind === "decimal" && (NUMERIC.has(from) || from.startsWith("DECIMAL"))) return landingCast(to, col)
  if (to.kind === "scalar" && to.name === "JSON" && from === "VARCHAR") return `CAST(${col} AS JSON)`
  if ((to.kind === "list" || to.kind === "struct" || to.kind === "map") && (from === "JSON" || from === "VARCHAR"))
    return landingCast(to, col)
  return undefined
}

export interface TypeChange {
  readonly column: string
  readonly from: string
  readonly to: string
}

const refuse = (table: string, c: TypeChange) =>
  new WarehouseError({
    reason: "SchemaConflict",
    table,
    detail:
      `Table ${table}: column ${c.column} is ${c.from} in the warehouse but ${c.to} in the spec, and there is no automatic migration ` +
      `between them; rename the old table (ALTER TABLE ${table} RENAME TO ${table}_old) or drop it and run again, or use a new column name`
  })

/** Alters the columns of `changes` (in `table` and, when given, its replace side table). */
export const migrateTypes = async (
  conn: DuckDBConnection,
  table: string,
  changes: ReadonlyArray<TypeChange>,
  sideTable?: string
): Promise<void> => {
  for (const c of changes) {
    const to = parseColumnType(c.to)
    const using = migrationOf(c.from, to, ident(c.column))
    if (using === undefined) throw refuse(table, c)
    for (const t of sideTable ? [table, sideTable] : [table]) {
      await conn.run(`ALTER TABLE ${ident(t)} ALTER COLUMN ${ident(c.column)} SET DATA TYPE ${c.to} USING ${using}`)
    }
  }
}

/** Moves the old `country` values to the new `country_raw` column and codes `country`. */
export const migrateCountry = (conn: DuckDBConnection, table: string) =>
  conn.run(`UPDATE ${ident(table)} SET country_raw = country, country = ${countryCodeSql("country")} WHERE country IS NOT NULL`)

/** Recomputes every version's `_content_hash` of a history table after its types changed. */
export const rehash = (conn: DuckDBConnection, spec: TableSpec) =>
  conn.run(`UPDATE ${ident(spec.name)} SET _content_hash = ${contentHashSql(spec)}`)
