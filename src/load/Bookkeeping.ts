/**
 * The warehouse's own tables: what it is (`_meta`), which tables it holds and how they are
 * written (`_tables`), runs, checkpoints, the unit ledger, rejects, raw pages kept for `reload`,
 * rows of `replace` tables waiting for their run to finish (`_replace_pending`), what each slice
 * of a run was declared and landed (`_slices`: completeness), and the fan-out keys the service
 * did not know (`_missing`).
 *
 * Every timestamp is UTC wall time (`TIMESTAMP`), written from ISO strings.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { literal, rowsOf } from "./Database.js"
import { WarehouseError } from "./WarehouseError.js"

/** Bumped when the bookkeeping layout changes incompatibly. */
export const FORMAT_VERSION = 1
export const FORMAT_NAME = "estate-etl-warehouse"

export const BOOKKEEPING_DDL = [
  `CREATE TABLE IF NOT EXISTS _meta (key VARCHAR PRIMARY KEY, value VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS _tables (table_name VARCHAR PRIMARY KEY, disposition VARCHAR NOT NULL,
     primary_key JSON NOT NULL, partition_by JSON NOT NULL, columns JSON NOT NULL, updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS _runs (run_id VARCHAR PRIMARY KEY, pipeline VARCHAR NOT NULL, params JSON,
     started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, status VARCHAR NOT NULL, pages BIGINT NOT NULL DEFAULT 0,
     rows_per_table JSON NOT NULL DEFAULT '{}', requests BIGINT NOT NULL DEFAULT 0, retries BIGINT NOT NULL DEFAULT 0,
     units_planned DOUBLE, units_charged DOUBLE NOT NULL DEFAULT 0, eur DOUBLE, error VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS _checkpoints (pipeline VARCHAR NOT NULL, run_id VARCHAR NOT NULL, key VARCHAR NOT NULL,
     value JSON, done BOOLEAN NOT NULL, updated_at TIMESTAMP NOT NULL, PRIMARY KEY (pipeline, key))`,
  `CREATE TABLE IF NOT EXISTS _ledger (request_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL,
     operation VARCHAR NOT NULL, units DOUBLE NOT NULL, "at" TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS _rejects (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, table_name VARCHAR NOT NULL,
     reason VARCHAR NOT NULL, raw VARCHAR, "at" TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS _raw_pages (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, seq BIGINT NOT NULL,
     page_key VARCHAR NOT NULL, path VARCHAR NOT NULL, bytes BIGINT NOT NULL, "at" TIMESTAMP NOT NULL, PRIMARY KEY (run_id, seq))`,
  `CREATE TABLE IF NOT EXISTS _replace_pending (pipeline VARCHAR NOT NULL, table_name VARCHAR NOT NULL,
     PRIMARY KEY (pipeline, table_name))`,
  // declared: the service's count (null when it gives none); ended_by: cap | limit | stalled
  `CREATE TABLE IF NOT EXISTS _slices (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, slice VARCHAR NOT NULL,
     declared BIGINT, received BIGINT NOT NULL, landed BIGINT NOT NULL, rejected BIGINT NOT NULL, pages BIGINT NOT NULL,
     ended_by VARCHAR, end_detail VARCHAR, done BOOLEAN NOT NULL, updated_at TIMESTAMP NOT NULL, PRIMARY KEY (run_id, slice))`,
  `CREATE TABLE IF NOT EXISTS _missing (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, "key" VARCHAR NOT NULL,
     status INTEGER NOT NULL, request_id VARCHAR, detail VARCHAR, "at" TIMESTAMP NOT NULL, PRIMARY KEY (run_id, "key"))`
]

export const BOOKKEEPING_TABLES = ["_meta", "_tables", "_runs", "_checkpoints", "_ledger", "_rejects", "_raw_pages", "_replace_pending", "_slices", "_missing"]

/** A timestamp parameter from an ISO string, honouring any offset, as UTC wall time. */
export const TS = (placeholder: string) => `CAST(CAST(${placeholder} AS TIMESTAMPTZ) AS TIMESTAMP)`

/**
 * Makes sure the open file is a warehouse of this toolkit: an empty database is initialised,
 * a database with tables but no `_meta` marker (or another format) is refused as `Foreign`.
 */
export const initialise = async (conn: DuckDBConnection, path: string): Promise<void> => {
  const tables = await rowsOf(conn, `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary`)
  const names = new Set(tables.map((t) => String(t.table_name)))
  if (names.size > 0 && !names.has("_meta")) {
    throw new WarehouseError({
      reason: "Foreign",
      path,
      detail: `${path} is a DuckDB database this toolkit did not create (no _meta table; found ${[...names].slice(0, 5).join(", ")}); choose another warehouse path`
    })
  }
  if (names.has("_meta")) {
    const meta = await rowsOf(conn, `SELECT key, value FROM _meta`)
    const get = (k: string) => meta.find((m) => m.key === k)?.value
    if (get("format") !== FORMAT_NAME || Number(get("format_version")) > FORMAT_VERSION || !Number.isFinite(Number(get("format_version")))) {
      throw new WarehouseError({
        reason: "Foreign",
        path,
        detail: `${path} holds a warehouse of format ${String(get("format"))} version ${String(get("format_version"))}; this toolkit reads ${FORMAT_NAME} version ${FORMAT_VERSION} or older`
      })
    }
  }
  for (const ddl of BOOKKEEPING_DDL) await conn.run(ddl)
  if (!names.has("_meta")) {
    await conn.run(
      `INSERT INTO _meta VALUES ('format', ${literal(FORMAT_NAME)}), ('format_version', '${FORMAT_VERSION}'),
       ('created_at', CAST(now() AS VARCHAR)) ON CONFLICT DO NOTHING`
    )
  }
}
