/**
 * The warehouse's own tables: what it is (`_meta`), which tables it holds and how they are
 * written (`_tables`), runs, checkpoints, the unit ledger, rejects, raw pages kept for `reload`,
 * rows of `replace` tables waiting for their run to finish (`_replace_pending`), what each slice
 * of a run was declared and landed (`_slices`: completeness), and the fan-out keys the service
 * did not know (`_missing`), and each fetched page as a call of its slice (`_calls`).
 *
 * Every timestamp is UTC wall time (`TIMESTAMP`), written from ISO strings.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { inTransaction, literal, rowsOf } from "./Database.js"
import { WarehouseError } from "./WarehouseError.js"

/**
 * Bumped when the bookkeeping layout changes incompatibly (an older toolkit could not write the
 * file any more): it refuses a newer version, and `initialise` migrates older ones in place.
 *
 * - 1: the first layout.
 * - 2: `_ledger` is keyed by `(run_id, request_id)`: a request id the service repeats in another
 *   run (a restarted sandbox, a service reusing ids) is still a charge of that run. Version 1
 *   keyed it by `request_id` alone and silently dropped such charges.
 * - 3: paid answers are reusable: `_raw_pages` says which request a body answers, when it was
 *   bought and for how much (`operation`, `request_key`, `bought_at`, `units`); `_slices` counts
 *   the distinct keys a slice read (`distinct_keys`), and `_slice_keys` keeps their hashes until
 *   the run ends, so a resumed slice knows what it read. Version 2 warehouses gain them in place.
 * - 4: the bill: `_ledger.units_remaining` keeps the balance each charged answer reported
 *   (`Svc-Units-Remaining`), `_runs.units_full` what the run's plan said a full pull would cost
 *   (what a refresh saved). Older warehouses gain both columns in place (NULL for earlier rows);
 *   the version is bumped because a toolkit of format 3 writes `_ledger` by position and would
 *   fail on the extra column: it now refuses the file with a clear message instead.
 * - 5: `_history_members` has no primary key. DuckDB keeps such an index in memory, and a run's
 *   finish inserted every key of its slices under it in one transaction (104 MB for 1,034,151
 *   keys, out of memory at the landing limit); members are now added by an anti-join. Older
 *   warehouses have the table rebuilt in place, rows kept; the version is bumped because a toolkit
 *   of format 4 inserts with `ON CONFLICT DO NOTHING`, which DuckDB refuses on a table without a key.
 */
export const FORMAT_VERSION = 5
export const FORMAT_NAME = "estate-etl-warehouse"

/**
 * The unit ledger: one row per charged request of a run (format 2 key, see `FORMAT_VERSION`);
 * `units_remaining` (format 4): the account's balance the answer reported, NULL when it said none.
 */
const LEDGER_DDL = (name: string) =>
  `CREATE TABLE IF NOT EXISTS ${name} (request_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL,
     operation VARCHAR NOT NULL, units DOUBLE NOT NULL, "at" TIMESTAMP NOT NULL, units_remaining DOUBLE,
     PRIMARY KEY (run_id, request_id))`

const MEMBERS_DDL = (name: string) =>
  `CREATE TABLE IF NOT EXISTS ${name} (pipeline VARCHAR NOT NULL, scope VARCHAR NOT NULL, slice VARCHAR NOT NULL,
     table_name VARCHAR NOT NULL, "key" VARCHAR NOT NULL)`

export const BOOKKEEPING_DDL = [
  `CREATE TABLE IF NOT EXISTS _meta (key VARCHAR PRIMARY KEY, value VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS _tables (table_name VARCHAR PRIMARY KEY, disposition VARCHAR NOT NULL,
     primary_key JSON NOT NULL, partition_by JSON NOT NULL, columns JSON NOT NULL, updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS _runs (run_id VARCHAR PRIMARY KEY, pipeline VARCHAR NOT NULL, params JSON,
     started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP, status VARCHAR NOT NULL, pages BIGINT NOT NULL DEFAULT 0,
     rows_per_table JSON NOT NULL DEFAULT '{}', requests BIGINT NOT NULL DEFAULT 0, retries BIGINT NOT NULL DEFAULT 0,
     units_planned DOUBLE, units_charged DOUBLE NOT NULL DEFAULT 0, eur DOUBLE, error VARCHAR, units_full DOUBLE)`,
  `CREATE TABLE IF NOT EXISTS _checkpoints (pipeline VARCHAR NOT NULL, run_id VARCHAR NOT NULL, key VARCHAR NOT NULL,
     value JSON, done BOOLEAN NOT NULL, updated_at TIMESTAMP NOT NULL, PRIMARY KEY (pipeline, key))`,
  LEDGER_DDL("_ledger"),
  `CREATE TABLE IF NOT EXISTS _rejects (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, table_name VARCHAR NOT NULL,
     reason VARCHAR NOT NULL, raw VARCHAR, "at" TIMESTAMP NOT NULL)`,
  // operation .. units (format 3): the paid request a body answers, for reuse (`PaidArchive.ts`)
  `CREATE TABLE IF NOT EXISTS _raw_pages (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, seq BIGINT NOT NULL,
     page_key VARCHAR NOT NULL, path VARCHAR NOT NULL, bytes BIGINT NOT NULL, "at" TIMESTAMP NOT NULL,
     operation VARCHAR, request_key VARCHAR, bought_at TIMESTAMP, units DOUBLE, PRIMARY KEY (run_id, seq))`,
  `CREATE TABLE IF NOT EXISTS _replace_pending (pipeline VARCHAR NOT NULL, table_name VARCHAR NOT NULL,
     PRIMARY KEY (pipeline, table_name))`,
  // declared: the service's count (null when it gives none); ended_by: cap | caught-up | limit | stalled | shifted;
  // distinct_keys (format 3): the distinct keys the slice read, what completeness compares with `declared`
  `CREATE TABLE IF NOT EXISTS _slices (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, slice VARCHAR NOT NULL,
     declared BIGINT, received BIGINT NOT NULL, landed BIGINT NOT NULL, rejected BIGINT NOT NULL, pages BIGINT NOT NULL,
     ended_by VARCHAR, end_detail VARCHAR, done BOOLEAN NOT NULL, updated_at TIMESTAMP NOT NULL, distinct_keys BIGINT,
     PRIMARY KEY (run_id, slice))`,
  // the key hashes each page brought to its slice (`extract/SeenKeys.ts`), kept while the run may resume
  `CREATE TABLE IF NOT EXISTS _slice_keys (run_id VARCHAR NOT NULL, slice VARCHAR NOT NULL, keys BLOB NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS _missing (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, "key" VARCHAR NOT NULL,
     status INTEGER NOT NULL, request_id VARCHAR, detail VARCHAR, "at" TIMESTAMP NOT NULL, PRIMARY KEY (run_id, "key"))`,
  // one row per fetched page of a run (a call and its retries): its slice, what it cost, when it
  // began and its wall time (ms, retry and rate-limit waits included); what `trace` reads. Added
  // to format 3 without a version bump: nothing else reads it, an older toolkit ignores it, and a
  // warehouse without it gains it at its next writable open (read-only readers do without).
  `CREATE TABLE IF NOT EXISTS _calls (run_id VARCHAR NOT NULL, pipeline VARCHAR NOT NULL, seq BIGINT NOT NULL,
     slice VARCHAR NOT NULL, slice_seq BIGINT NOT NULL, operation VARCHAR, request_id VARCHAR, requests BIGINT NOT NULL,
     retries BIGINT NOT NULL, units DOUBLE NOT NULL, started_at TIMESTAMP, ms DOUBLE, PRIMARY KEY (run_id, seq))`,
  // Closing what is gone (`HistoryClosing.ts`), added to format 3 like `_calls` (an older toolkit
  // ignores them; a warehouse without them gains them at its next writable open):
  // the keys of history tables each slice of a run brought (appended per landing group, kept
  // while the run may resume), ...
  `CREATE TABLE IF NOT EXISTS _history_keys (run_id VARCHAR NOT NULL, slice VARCHAR NOT NULL, table_name VARCHAR NOT NULL,
     "key" VARCHAR NOT NULL)`,
  // ... the keys each slice of a pipeline has listed under a scope (its parameters but the paging
  // ones), since the last complete full pull of that slice, ...
  // (format 5: no primary key, its index held every member in memory; inserts are anti-joins)
  MEMBERS_DDL("_history_members"),
  // ... and each complete full pull: a done run whose every slice read to the service's end,
  // nothing incremental, no cap (what `plan` prices a full pull from, per slice), its shard if it
  // ran one (`i/n`: it closes nothing), and the history rows it closed per table
  `CREATE TABLE IF NOT EXISTS _full_pulls (run_id VARCHAR PRIMARY KEY, pipeline VARCHAR NOT NULL, scope VARCHAR NOT NULL,
     shard VARCHAR, "at" TIMESTAMP NOT NULL, closed JSON NOT NULL DEFAULT '{}')`
]

export const BOOKKEEPING_TABLES = [
  "_meta",
  "_tables",
  "_runs",
  "_checkpoints",
  "_ledger",
  "_rejects",
  "_raw_pages",
  "_replace_pending",
  "_slices",
  "_slice_keys",
  "_missing",
  "_calls",
  "_history_keys",
  "_history_members",
  "_full_pulls"
]

/** A timestamp parameter from an ISO string, honouring any offset, as UTC wall time. */
export const TS = (placeholder: string) => `CAST(CAST(${placeholder} AS TIMESTAMPTZ) AS TIMESTAMP)`

/**
 * Refuses a database that is not a warehouse of this toolkit (tables but no `_meta` marker, or
 * another format or a newer version). Returns the names of its tables and its format version
 * (`undefined` for an empty database). Reads only: read-only opens call it too.
 */
export const checkFormat = async (
  conn: DuckDBConnection,
  path: string
): Promise<{ readonly names: ReadonlySet<string>; readonly version: number | undefined }> => {
  const tables = await rowsOf(conn, `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary`)
  const names = new Set(tables.map((t) => String(t.table_name)))
  if (names.size > 0 && !names.has("_meta")) {
    throw new WarehouseError({
      reason: "Foreign",
      path,
      detail: `${path} is a DuckDB database this toolkit did not create (no _meta table; found ${[...names].slice(0, 5).join(", ")}); choose another warehouse path`
    })
  }
  if (!names.has("_meta")) return { names, version: undefined }
  const meta = await rowsOf(conn, `SELECT key, value FROM _meta`)
  if (meta.length === 0 && [...names].every((n) => BOOKKEEPING_TABLES.includes(n))) {
    // an older toolkit killed while it created the warehouse (before creation was one
    // transaction): bookkeeping tables without the marker. Nothing ran yet if `_runs` is empty.
    const runs = names.has("_runs") ? Number((await rowsOf(conn, `SELECT count(*) AS n FROM _runs`))[0]!.n) : 0
    if (runs === 0) return { names: new Set([...names].filter((n) => n !== "_meta")), version: undefined }
  }
  const get = (k: string) => meta.find((m) => m.key === k)?.value
  const version = Number(get("format_version"))
  if (get("format") !== FORMAT_NAME || version > FORMAT_VERSION || !Number.isFinite(version)) {
    throw new WarehouseError({
      reason: "Foreign",
      path,
      detail: `${path} holds a warehouse of format ${String(get("format"))} version ${String(get("format_version"))}; this toolkit reads ${FORMAT_NAME} version ${FORMAT_VERSION} or older`
    })
  }
  return { names, version }
}

/**
 * Version 1 -> 2: `_ledger` rebuilt with the key `(run_id, request_id)` (DuckDB cannot change a
 * primary key in place), rows kept.
 */
const migrateLedger = async (conn: DuckDBConnection) => {
  await conn.run(`DROP TABLE IF EXISTS _ledger_v2`)
  await conn.run(LEDGER_DDL("_ledger_v2"))
  await conn.run(`INSERT INTO _ledger_v2 (request_id, run_id, pipeline, operation, units, "at")
    SELECT request_id, run_id, pipeline, operation, units, "at" FROM _ledger`)
  await conn.run(`DROP TABLE _ledger`)
  await conn.run(`ALTER TABLE _ledger_v2 RENAME TO _ledger`)
}

/** Version 2 -> 3: the reuse columns of `_raw_pages` and the distinct keys of `_slices` (`_slice_keys` is created below). */
const migrateReuse = async (conn: DuckDBConnection, names: ReadonlySet<string>) => {
  if (names.has("_raw_pages")) {
    for (const col of ["operation VARCHAR", "request_key VARCHAR", "bought_at TIMESTAMP", "units DOUBLE"]) {
      await conn.run(`ALTER TABLE _raw_pages ADD COLUMN IF NOT EXISTS ${col}`)
    }
  }
  if (names.has("_slices")) await conn.run(`ALTER TABLE _slices ADD COLUMN IF NOT EXISTS distinct_keys BIGINT`)
}

/** Version 3 -> 4: the bill's columns (`_ledger.units_remaining`, `_runs.units_full`), NULL for earlier rows. */
const migrateBill = async (conn: DuckDBConnection, names: ReadonlySet<string>) => {
  if (names.has("_ledger")) await conn.run(`ALTER TABLE _ledger ADD COLUMN IF NOT EXISTS units_remaining DOUBLE`)
  if (names.has("_runs")) await conn.run(`ALTER TABLE _runs ADD COLUMN IF NOT EXISTS units_full DOUBLE`)
}

/** Version 4 -> 5: `_history_members` rebuilt without its primary key (DuckDB cannot drop one in place), rows kept. */
const migrateMembers = async (conn: DuckDBConnection, names: ReadonlySet<string>) => {
  if (!names.has("_history_members")) return
  await conn.run(`DROP TABLE IF EXISTS _history_members_v5`)
  await conn.run(MEMBERS_DDL("_history_members_v5"))
  await conn.run(`INSERT INTO _history_members_v5 SELECT pipeline, scope, slice, table_name, "key" FROM _history_members`)
  await conn.run(`DROP TABLE _history_members`)
  await conn.run(`ALTER TABLE _history_members_v5 RENAME TO _history_members`)
}

/**
 * Writes the warehouse's creation time (`_meta.created_at`) unless it has one: the first open to
 * write does, not the creation, whose file is the same bytes for every warehouse a process makes
 * (`WarehouseFile.ts`).
 */
export const stampCreation = (conn: DuckDBConnection): Promise<unknown> =>
  conn.run(`INSERT INTO _meta SELECT 'created_at', CAST(now() AS VARCHAR) WHERE NOT EXISTS (SELECT 1 FROM _meta WHERE key = 'created_at')`)

/**
 * Makes sure the open file is a warehouse of this toolkit: an empty database is initialised, an
 * older format version is migrated, a database with tables but no `_meta` marker (or another
 * format, or a newer version) is refused as `Foreign`.
 */
export const initialise = async (conn: DuckDBConnection, path: string): Promise<void> => {
  const { names, version } = await checkFormat(conn, path)
  if (version === FORMAT_VERSION && BOOKKEEPING_TABLES.every((t) => names.has(t))) return
  // creation and each migration are one transaction: a process killed meanwhile leaves either no
  // warehouse tables or a whole warehouse of the old or the new version, never a half
  await inTransaction(conn, async () => {
    if (version !== undefined && version < 2 && names.has("_ledger")) await migrateLedger(conn)
    if (version !== undefined && version < 3) await migrateReuse(conn, names)
    if (version !== undefined && version < 4) await migrateBill(conn, names)
    if (version !== undefined && version < 5) await migrateMembers(conn, names)
    for (const ddl of BOOKKEEPING_DDL) await conn.run(ddl)
    if (!names.has("_meta")) {
      // `_meta` was made just above: empty
      await conn.run(`INSERT INTO _meta VALUES ('format', ${literal(FORMAT_NAME)}), ('format_version', '${FORMAT_VERSION}')`)
    } else if (version !== undefined && version < FORMAT_VERSION) {
      await conn.run(`UPDATE _meta SET value = '${FORMAT_VERSION}' WHERE key = 'format_version'`)
    }
  })
}
