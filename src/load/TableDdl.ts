/**
 * Tables from specs: creation, schema evolution (new nullable columns are added, a NOT NULL
 * dropped, the types of warehouses written before native types migrated by `TypeMigration.ts`;
 * anything else is refused), and the registry `_tables` that remembers how each table
 * is written so exports and merges can read it back without the pipeline's declarations.
 *
 * Primary keys are kept by the loader, not by a DuckDB constraint: a page's rows are deduplicated
 * (last wins), then the keys they carry are deleted and the rows inserted, in one transaction.
 * With a PRIMARY KEY (an ART index) DuckDB turned repeated upserts of the same rows pathological
 * (measured on 1.5: the third upsert of 100k rows took 30-44 s, against under a second here);
 * key columns are still NOT NULL, and the key is recorded in `_tables`.
 *
 * Layout by disposition:
 * - `merge`: the spec's columns (a primary key is required);
 * - `append`: the spec's columns plus `_run_id` and `_extracted_at` (TIMESTAMPTZ);
 * - `replace`: the spec's columns, plus a persistent side table
 *   `_replace__<name>` holding the rows of unfinished runs (with `_pipeline`, `_run_id`, `_ord`);
 * - `history`: the spec's columns plus `_valid_from`, `_valid_to`, `_is_current` and
 *   `_content_hash`, and the view `<name>_current` (see `HistoryTable.ts`). A `merge` table
 *   declared `history` is migrated in place (its rows become the current versions); no other
 *   change of disposition is.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { columnTypeProblem } from "../normalize/ColumnTypes.js"
import type { TableSpec } from "../normalize/Table.js"
import { ident, literal, rowsOf } from "./Database.js"
import {
  currentViewOf,
  currentViewSql,
  HISTORY_COLUMNS,
  HISTORY_DDL,
  migrateMergeToHistory,
  rehashOtherRecipesSql
} from "./HistoryTable.js"
import { canonicalTypes, migrateCountry, migrateTypes, rehash, type TypeChange } from "./TypeMigration.js"
import { WarehouseError } from "./WarehouseError.js"

export const APPEND_COLUMNS = ["_run_id", "_extracted_at"] as const
export const REPLACE_COLUMNS = ["_pipeline", "_run_id", "_ord"] as const
/** A partition name the Parquet export derives from `_extracted_at` (append tables). */
export const EXTRACTED_DATE = "_extracted_date"

export const replaceTableOf = (name: string) => `_replace__${name}`

/** The loader's own columns whose type a migration checks too (by disposition). */
const OWN_TYPES: Partial<Record<TableSpec["disposition"], Record<string, string>>> = {
  append: { _extracted_at: "TIMESTAMPTZ" },
  history: { _valid_from: "TIMESTAMPTZ", _valid_to: "TIMESTAMPTZ" }
}

const conflict = (table: string, detail: string) =>
  new WarehouseError({ reason: "SchemaConflict", table, detail: `Table ${table}: ${detail}` })

/** Refuses a spec that cannot be a table: bad names or types, keys not among the columns. */
export const validateSpec = (spec: TableSpec): void => {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(spec.name)) {
    throw conflict(
      spec.name,
      "a table name starts with a letter and holds only letters, digits and _ (names starting with _ are the warehouse's own)"
    )
  }
  const names = new Set<string>()
  for (const c of spec.columns) {
    if (names.has(c.name)) throw conflict(spec.name, `column ${c.name} is declared twice`)
    const bad = columnTypeProblem(c.type)
    if (bad !== undefined) throw conflict(spec.name, `column ${c.name}: ${bad}`)
    if (
      (APPEND_COLUMNS as ReadonlyArray<string>).includes(c.name) ||
      (REPLACE_COLUMNS as ReadonlyArray<string>).includes(c.name) ||
      (HISTORY_COLUMNS as ReadonlyArray<string>).includes(c.name)
    ) {
      throw conflict(spec.name, `column name ${c.name} is reserved for the loader`)
    }
    names.add(c.name)
  }
  for (const k of spec.primaryKey) if (!names.has(k)) throw conflict(spec.name, `primary key column ${k} is not a column`)
  if ((spec.disposition === "merge" || spec.disposition === "history") && spec.primaryKey.length === 0) {
    throw conflict(spec.name, `a ${spec.disposition} table needs a primary key`)
  }
  for (const p of spec.partitionBy ?? []) {
    if (!names.has(p) && !(p === EXTRACTED_DATE && spec.disposition === "append")) {
      throw conflict(spec.name, `partition column ${p} is not a column`)
    }
  }
}

const nullable = (spec: TableSpec, col: string) => {
  const c = spec.columns.find((x) => x.name === col)!
  return !spec.primaryKey.includes(col) && c.nullable !== false
}

const columnDdl = (spec: TableSpec, withConstraints: boolean) =>
  spec.columns.map((c) => `${ident(c.name)} ${c.type}${withConstraints && !nullable(spec, c.name) ? " NOT NULL" : ""}`)

/** CREATE TABLE statement of a spec's target table (under another name when swapping). */
export const createTableSql = (spec: TableSpec, as: string = spec.name) => {
  const cols = columnDdl(spec, true)
  if (spec.disposition === "append") cols.push(`_run_id VARCHAR`, `_extracted_at TIMESTAMPTZ`)
  if (spec.disposition === "history") cols.push(...HISTORY_DDL)
  return `CREATE TABLE ${ident(as)} (${cols.join(", ")})`
}

const createReplaceSideSql = (spec: TableSpec) =>
  `CREATE TABLE IF NOT EXISTS ${ident(replaceTableOf(spec.name))} (${[
    ...columnDdl(spec, false),
    `_pipeline VARCHAR NOT NULL`,
    `_run_id VARCHAR NOT NULL`,
    `_ord BIGINT NOT NULL`
  ].join(", ")})`

/** `<name>_current` must be free for the view (or already be the view). */
const refuseCurrentViewClash = async (conn: DuckDBConnection, table: string) => {
  const clash = await rowsOf(
    conn,
    `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?`,
    [currentViewOf(table)]
  )
  if (Number(clash[0]!.n) > 0) {
    throw conflict(table, `a history table needs the name ${currentViewOf(table)} for its view of current rows, and a table has it`)
  }
}

interface Registered {
  readonly disposition: string
  readonly primaryKey: ReadonlyArray<string>
}

type ColumnRow = Record<string, unknown>

/** The columns of the warehouse's tables named in `names` (`duckdb_columns()` rows), by table. */
const columnsOf = async (conn: DuckDBConnection, names: ReadonlyArray<string>): Promise<Map<string, Array<ColumnRow>>> => {
  const byTable = new Map<string, Array<ColumnRow>>(names.map((n) => [n, []]))
  if (names.length === 0) return byTable
  const rows = await rowsOf(
    conn,
    `SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name IN (${names.map(() => "?").join(", ")})
     ORDER BY table_name, column_index`,
    [...names]
  )
  for (const r of rows) byTable.get(String(r.table_name))?.push(r)
  return byTable
}

/**
 * Creates the tables of `specs` or evolves the existing ones (`ensureTable`), their columns read
 * in one query: `duckdb_columns()` reads the whole catalog each time (7 tables of a warehouse of 30
 * took 43.5 ms of CPU one query each, 7.0 ms in one: DuckDB 1.5.5). Inside the caller's transaction.
 */
export const ensureSpecs = async (conn: DuckDBConnection, specs: ReadonlyArray<TableSpec>): Promise<void> => {
  const known = await columnsOf(conn, [...new Set(specs.map((s) => s.name))])
  for (const spec of specs) {
    // a name declared twice reads its columns again: the first may have created or changed it
    const columns = known.get(spec.name)
    known.delete(spec.name)
    await ensureTable(conn, spec, columns)
  }
}

/**
 * Creates the table of `spec` or evolves the existing one, its columns as `ensureSpecs` read them
 * (undefined: read here). Runs inside the caller's transaction.
 */
const ensureTable = async (conn: DuckDBConnection, spec: TableSpec, columns: ReadonlyArray<ColumnRow> | undefined): Promise<void> => {
  validateSpec(spec)
  const columnsNow = async () => (await columnsOf(conn, [spec.name])).get(spec.name)!
  let existing = columns ?? (await columnsNow())
  const reg = await rowsOf(conn, `SELECT disposition, primary_key, partition_by, columns FROM _tables WHERE table_name = ?`, [spec.name])
  if (spec.disposition === "history") await refuseCurrentViewClash(conn, spec.name)
  if (existing.length === 0) {
    await conn.run(createTableSql(spec))
  } else {
    if (reg.length === 0) throw conflict(spec.name, "a table of that name exists but was not created by the loader")
    const r: Registered = { disposition: String(reg[0]!.disposition), primaryKey: JSON.parse(String(reg[0]!.primary_key)) }
    const migrate = r.disposition === "merge" && spec.disposition === "history"
    if (r.disposition !== spec.disposition && !migrate) {
      throw conflict(spec.name, `disposition changed from ${r.disposition} to ${spec.disposition}; drop the table or use a new name`)
    }
    if (JSON.stringify(r.primaryKey) !== JSON.stringify(spec.primaryKey)) {
      throw conflict(
        spec.name,
        `primary key changed from (${r.primaryKey.join(", ")}) to (${spec.primaryKey.join(", ")}); drop the table or use a new name`
      )
    }
    if (migrate) {
      await migrateMergeToHistory(conn, spec)
      existing = await columnsNow()
    }
    const have = new Map(existing.map((e) => [String(e.column_name), e]))
    const own = OWN_TYPES[spec.disposition] ?? {}
    const wanted: Array<readonly [string, string]> = [
      ...spec.columns.map((c) => [c.name, c.type] as const),
      ...Object.entries(own).filter(([n]) => have.has(n))
    ]
    const canonical = await canonicalTypes(
      conn,
      wanted.map(([, t]) => t)
    )
    const changes: Array<TypeChange> = []
    for (const [name, type] of wanted) {
      const e = have.get(name)
      if (e !== undefined && String(e.data_type) !== canonical.get(type))
        changes.push({ column: name, from: String(e.data_type), to: type })
    }
    await migrateTypes(conn, spec.name, changes, spec.disposition === "replace" ? replaceTableOf(spec.name) : undefined)
    let countryRawAdded = false
    for (const c of spec.columns) {
      const e = have.get(c.name)
      if (e === undefined) {
        if (!nullable(spec, c.name))
          throw conflict(spec.name, `new column ${c.name} is NOT NULL; existing rows have no value for it (declare it nullable)`)
        await conn.run(`ALTER TABLE ${ident(spec.name)} ADD COLUMN ${ident(c.name)} ${c.type}`)
        if (spec.disposition === "replace") {
          await conn.run(`ALTER TABLE ${ident(replaceTableOf(spec.name))} ADD COLUMN IF NOT EXISTS ${ident(c.name)} ${c.type}`)
        }
        if (c.name === "country_raw" && have.has("country")) countryRawAdded = true
        continue
      }
      const wasNullable = e.is_nullable === true
      if (wasNullable && !nullable(spec, c.name))
        throw conflict(spec.name, `column ${c.name} became NOT NULL; existing rows may hold nulls`)
      if (!wasNullable && nullable(spec, c.name))
        await conn.run(`ALTER TABLE ${ident(spec.name)} ALTER COLUMN ${ident(c.name)} DROP NOT NULL`)
    }
    if (countryRawAdded) {
      await migrateCountry(conn, spec.name)
      if (spec.disposition === "replace") await migrateCountry(conn, replaceTableOf(spec.name))
    }
    if (spec.disposition === "history" && (changes.length > 0 || countryRawAdded)) await rehash(conn, spec)
    if (spec.disposition === "history") await conn.run(rehashOtherRecipesSql(spec))
    const declared = new Set(spec.columns.map((c) => c.name))
    for (const [name, e] of have) {
      const own =
        (spec.disposition === "append" && (APPEND_COLUMNS as ReadonlyArray<string>).includes(name)) ||
        (spec.disposition === "history" && (HISTORY_COLUMNS as ReadonlyArray<string>).includes(name))
      if (!own && !declared.has(name) && e.is_nullable !== true) {
        throw conflict(spec.name, `column ${name} is NOT NULL in the warehouse but no longer declared; new rows could not be written`)
      }
    }
  }
  if (spec.disposition === "replace") await conn.run(createReplaceSideSql(spec))
  if (spec.disposition === "history") await conn.run(currentViewSql(spec))
  // the spec as registered: written only when it changed (`updated_at`: when it last did). An
  // upsert per table per run cost ~19 ms of a small run's ~830 ms CPU (DuckDB's ON CONFLICT path
  // on a freshly opened file), for a row that said the same. The row read above says which
  // statement: a plain INSERT or UPDATE, not `ON CONFLICT`, which on a freshly opened file took
  // 12-14 ms of CPU a row against 5 for the INSERT (DuckDB 1.5.5, a new warehouse's first
  // registration: every first run, and every test's).
  const declared = [spec.disposition, JSON.stringify(spec.primaryKey), JSON.stringify(spec.partitionBy ?? []), JSON.stringify(spec.columns)]
  const stored = reg[0] && [reg[0].disposition, reg[0].primary_key, reg[0].partition_by, reg[0].columns].map(String)
  if (stored === undefined) await conn.run(`INSERT INTO _tables VALUES (?, ?, ?, ?, ?, now()::TIMESTAMP)`, [spec.name, ...declared])
  else if (stored.some((v, i) => v !== declared[i]))
    await conn.run(
      `UPDATE _tables SET disposition = ?, primary_key = ?, partition_by = ?, columns = ?, updated_at = now()::TIMESTAMP WHERE table_name = ?`,
      [...declared, spec.name]
    )
}

/** The table specs the warehouse has registered (as last declared). */
export const registeredSpecs = async (conn: DuckDBConnection, catalog?: string): Promise<Array<TableSpec>> => {
  const from = catalog ? `${ident(catalog)}.main._tables` : "_tables"
  const rows = await rowsOf(conn, `SELECT table_name, disposition, primary_key, partition_by, columns FROM ${from} ORDER BY table_name`)
  return rows.map((r) => {
    const partitionBy = JSON.parse(String(r.partition_by)) as Array<string>
    return {
      name: String(r.table_name),
      disposition: String(r.disposition) as TableSpec["disposition"],
      primaryKey: JSON.parse(String(r.primary_key)),
      columns: JSON.parse(String(r.columns)),
      ...(partitionBy.length > 0 ? { partitionBy } : {})
    }
  })
}
