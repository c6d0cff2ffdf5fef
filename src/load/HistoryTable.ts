/**
 * `history` tables: a slowly changing dimension of type 2 (dlt's `scd2`, Airbyte's "deduped +
 * history"). Every version of a record is a row, with
 *
 * - `_valid_from`: the extraction time of the run that first saw this version (the run's start,
 *   the same for all its pages; see `PageCommit.extractedAt`);
 * - `_valid_to`: the `_valid_from` of the version that replaced it, NULL while it is current;
 * - `_is_current`: TRUE for the one current version of a key;
 * - `_content_hash`: a hash of the record's content (the columns `hashedColumns` names), prefixed
 *   with its recipe (`contentHashSql`); versions hashed by another recipe are hashed again when
 *   the table is ensured (`rehashOtherRecipesSql`).
 *
 * Landing a page (the last row per key, as for `merge`), per key:
 * - no current version: the row is inserted as the current version;
 * - the same hash: nothing is written (not even `_valid_from` or the volatile columns);
 * - another hash, current version from an earlier run: it is closed (`_valid_to` = the new
 *   version's `_valid_from`, `_is_current` FALSE) and the row is inserted as the current version;
 * - another hash, current version from this same run (`_valid_from` equal): it is updated in
 *   place (last wins within a run, as for `merge`), so a run adds at most one version per key;
 * - a current version newer than the page (`_valid_from` later): the page is stale, nothing is
 *   written.
 * A record whose status says it left the market (delisted, sold, rented) is a change like any
 * other: its new version is the current one and carries the status. Rows are never deleted.
 * Landing closes nothing a page did not bring: a run may read only part of the inventory (a
 * nightly search since a date, one shard, a page cap), so absence proves nothing while it lands.
 * Only a complete full pull, once it ends, closes the current versions of the records its slices
 * listed before and no longer list (`HistoryClosing.ts`).
 *
 * Replaying a page (a resume landing its journal again) is idempotent: the same content has the
 * same hash, so it writes nothing, whatever the replay's extraction time.
 *
 * Beside each history table, the view `<table>_current` holds its current versions without
 * `_valid_to` and `_is_current` (one row per key, like a merge table): downstream SQL reads the
 * view, the Parquet and Arrow exports write it under the table's name by default.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import type { TableSpec } from "../normalize/Table.js"
import { ident, literal, rowsOf } from "./Database.js"

export const HISTORY_COLUMNS = ["_valid_from", "_valid_to", "_is_current", "_content_hash"] as const

/** The DDL of the history columns (after the spec's own). */
export const HISTORY_DDL = [
  `_valid_from TIMESTAMPTZ NOT NULL`,
  `_valid_to TIMESTAMPTZ`,
  `_is_current BOOLEAN NOT NULL`,
  `_content_hash VARCHAR NOT NULL`
]

/**
 * Columns never hashed: `extracted_at`, which every row mapping of the toolkit stamps with the
 * run's extraction time (it changes every night while the record does not).
 */
export const UNVERSIONED_COLUMNS: ReadonlySet<string> = new Set(["extracted_at"])

/** The view of a history table's current versions. */
export const currentViewOf = (table: string) => `${table}_current`

/**
 * The columns `_content_hash` covers: the spec's columns except the primary key (it is the
 * version's key, not its content), the volatile ones (`ColumnSpec.volatile`), `extracted_at` and
 * any `_`-prefixed bookkeeping column. Sorted by name, so reordering a declaration changes
 * nothing.
 */
export const hashedColumns = (spec: TableSpec): ReadonlyArray<string> => {
  const keys = new Set(spec.primaryKey)
  return spec.columns
    .filter((c) => !keys.has(c.name) && c.volatile !== true && !UNVERSIONED_COLUMNS.has(c.name) && !c.name.startsWith("_"))
    .map((c) => c.name)
    .sort()
}

/**
 * The recipe of the `_content_hash` values this code writes, as a SQL string expression: what
 * every value starts with (`v2/<DuckDB version>:`). Recipes so far:
 *
 * - `v1` (until issue 33; values carry no prefix, 32 hex digits): md5 of `name=value` pieces of the
 *   non-NULL hashed columns, each value cast to VARCHAR, joined by chr(31) after the tag `v1`. The
 *   casts and the string building cost ~3.5 µs a row of `sourcing_properties`, most of a group's
 *   hashing;
 * - `v2/<version>:` + hex: DuckDB's `hash(name, value)` of each non-NULL hashed column, combined
 *   with `xor` (a NULL column adds nothing, so a new nullable column changes no hash until it holds
 *   a value; the name keeps two columns swapping values apart). 1.1-1.4 µs a row with the hex text,
 *   0.4-0.6 above a plain copy of the rows (bench/HistoryLanding.ts has the landing's figures).
 *
 * Assumed: DuckDB's `hash()` is its internal hash-table hash and is not promised stable across
 * DuckDB versions (it changed for several arguments and strings between 1.2.2 and 1.3.0, duckdb
 * issues 17596 and 17660: "not a bug"), so the recipe names the DuckDB version (`version()`,
 * folded to a constant by the planner) and a value of another version is a value of another
 * recipe. Within one version it is assumed deterministic across processes and little-endian
 * platforms (it has no seed; x86-64 and arm64 warehouses move between hosts).
 */
export const HASH_RECIPE_SQL = `('v2/' || version() || ':')`

/** Whether the stored `_content_hash` (a SQL expression) is of the current recipe. */
export const ofCurrentRecipe = (stored: string) => `starts_with(${stored}, ${HASH_RECIPE_SQL})`

/**
 * `_content_hash` of a row of `source` (an alias whose columns have the table's types) in the
 * current recipe (`HASH_RECIPE_SQL`): a NULL column adds nothing, so a new nullable column changes
 * no hash until it holds a value.
 */
export const contentHashSql = (spec: TableSpec, source?: string) => {
  const col = (c: string) => (source ? `${source}.${ident(c)}` : ident(c))
  const pieces = hashedColumns(spec).map((c) => `CASE WHEN ${col(c)} IS NULL THEN 0::UBIGINT ELSE hash(${literal(c)}, ${col(c)}) END`)
  const combined = pieces.length === 0 ? "0::UBIGINT" : pieces.reduce((a, b) => `xor(${a}, ${b})`)
  return `${HASH_RECIPE_SQL} || to_hex(${combined})`
}

/**
 * Re-hashes in the current recipe every version whose `_content_hash` is of another recipe (`v1`
 * of an older toolkit, `v2` of another DuckDB version): run when a warehouse's history table is
 * ensured (`TableDdl.ensureSpecs`), before any landing compares hashes. The hashes cover nothing
 * but the version's columns, so the hash recomputed from them is the one its content gets today,
 * and the same records landed again write no new version. Writes only on the first open after an
 * upgrade; later opens scan the hashes and write nothing.
 *
 * Measured (bench/HistoryLanding.ts): comparing by recipe inside the landing `MERGE` instead (a
 * `CASE` recomputing the hash of other-recipe versions) made the `MERGE` read every column of the
 * target for every group, ~1.5-2 µs a row more, eating the hash's gain.
 */
export const rehashOtherRecipesSql = (spec: TableSpec) =>
  `UPDATE ${ident(spec.name)} SET _content_hash = ${contentHashSql(spec)} WHERE NOT ${ofCurrentRecipe("_content_hash")}`

const otherRecipe = (table: string) =>
  `history table ${table} holds content hashes of another recipe (an older toolkit or DuckDB): ensure the table (Warehouse.ensureTables) to hash them again before landing`

const keyMatch = (spec: TableSpec, a: string, b: string) => spec.primaryKey.map((k) => `${a}.${ident(k)} = ${b}.${ident(k)}`).join(" AND ")

/**
 * The statements landing `source` (a query of the table's columns, one row per key) as versions
 * valid from `validFrom` (ISO). Run inside the group's transaction, in order:
 *
 * 1. hash the rows into a connection-local table, joined once with the target's current versions
 *    (their `rowid`, hash and `_valid_from`): the only statement that joins the group with the
 *    whole target;
 * 2. close the current versions whose hash differs and that began before `validFrom`, found by
 *    `rowid` (the join reads the target's row ids only);
 * 3. update in place the current versions whose hash differs and that this run wrote (last wins
 *    within a run), by `rowid`;
 * 4. insert a current version for every key that had none or whose version step 2 closed.
 *
 * Measured on 256,000 current versions, groups of ~6,400 rows, a tenth changed: 10.3-11.1 µs a
 * row against 12.5-13.5 for the hash, a `MERGE` and an `INSERT ... WHERE NOT EXISTS` (each of which
 * joined the group with the target; the anti-join alone was ~4 µs a row). Row ids hold within the
 * transaction: nothing else writes the table (one writer), steps 2 and 3 touch disjoint rows, and
 * step 4 only appends. A spec declaring a column `rowid` (which would hide DuckDB's) keeps the
 * `MERGE` statements (`mergeLandSql`).
 *
 * The stored hashes are of the current recipe (`rehashOtherRecipesSql` ran when the table was
 * ensured); a current version of another recipe (a table landed without being ensured in this
 * process since an upgrade) fails the group instead of opening spurious versions.
 */
export const historyLandSql = (spec: TableSpec, source: string, validFrom: string): ReadonlyArray<string> => {
  if (spec.columns.some((c) => c.name.toLowerCase() === "rowid")) return mergeLandSql(spec, source, validFrom)
  const target = ident(spec.name)
  const from = `CAST(${literal(validFrom)} AS TIMESTAMPTZ)`
  const hashed = ident(`_versions_${spec.name}`)
  const v = `temp.main.${hashed}`
  const keys = new Set(spec.primaryKey)
  const rest = spec.columns.filter((c) => !keys.has(c.name)).map((c) => ident(c.name))
  const cols = spec.columns.map((c) => ident(c.name))
  const changed = `_hist_rowid IS NOT NULL AND _hist_hash <> _content_hash`
  // error() with a column in its argument: a constant one is folded (and raised) when planning
  const stored = `CASE WHEN _t._content_hash IS NULL OR ${ofCurrentRecipe("_t._content_hash")} THEN _t._content_hash
    ELSE error(${literal(`${otherRecipe(spec.name)}: `)} || _t._content_hash) END`
  return [
    `CREATE OR REPLACE TEMP TABLE ${hashed} AS SELECT _g.*, ${contentHashSql(spec, "_g")} AS _content_hash,
       _t.rowid AS _hist_rowid, ${stored} AS _hist_hash, _t._valid_from AS _hist_from
     FROM (${source}) AS _g LEFT JOIN ${target} AS _t ON ${keyMatch(spec, "_t", "_g")} AND _t._is_current`,
    `UPDATE ${target} SET _valid_to = ${from}, _is_current = FALSE
     FROM (SELECT _hist_rowid FROM ${v} WHERE ${changed} AND _hist_from < ${from}) AS _s WHERE ${target}.rowid = _s._hist_rowid`,
    `UPDATE ${target} SET ${[...rest.map((c) => `${c} = _s.${c}`), `_content_hash = _s._content_hash`].join(", ")}
     FROM (SELECT * FROM ${v} WHERE ${changed} AND _hist_from = ${from}) AS _s WHERE ${target}.rowid = _s._hist_rowid`,
    `INSERT INTO ${target} (${cols.join(", ")}, _valid_from, _valid_to, _is_current, _content_hash)
     SELECT ${cols.join(", ")}, ${from}, NULL, TRUE, _content_hash FROM ${v}
     WHERE _hist_rowid IS NULL OR (_hist_hash <> _content_hash AND _hist_from < ${from})`
  ]
}

/**
 * The landing of `historyLandSql` as a `MERGE` (close or update the current versions whose hash
 * differs) and an `INSERT ... WHERE NOT EXISTS` (a current version for every key that has none):
 * two joins of the group with the whole target. Kept for a spec with a column named `rowid`.
 */
const mergeLandSql = (spec: TableSpec, source: string, validFrom: string): ReadonlyArray<string> => {
  const target = ident(spec.name)
  const from = `CAST(${literal(validFrom)} AS TIMESTAMPTZ)`
  const hashed = ident(`_versions_${spec.name}`)
  const keys = new Set(spec.primaryKey)
  const rest = spec.columns.filter((c) => !keys.has(c.name)).map((c) => ident(c.name))
  const cols = spec.columns.map((c) => ident(c.name))
  return [
    `CREATE OR REPLACE TEMP TABLE ${hashed} AS SELECT *, ${contentHashSql(spec)} AS _content_hash FROM (${source})`,
    `MERGE INTO ${target} USING temp.main.${hashed} AS _s ON ${keyMatch(spec, target, "_s")} AND ${target}._is_current
     WHEN MATCHED AND NOT ${ofCurrentRecipe(`${target}._content_hash`)} THEN ERROR ${literal(otherRecipe(spec.name))}
     WHEN MATCHED AND ${target}._content_hash <> _s._content_hash AND ${target}._valid_from = ${from}
       THEN UPDATE SET ${[...rest.map((c) => `${c} = _s.${c}`), `_content_hash = _s._content_hash`].join(", ")}
     WHEN MATCHED AND ${target}._content_hash <> _s._content_hash AND ${target}._valid_from < ${from}
       THEN UPDATE SET _valid_to = ${from}, _is_current = FALSE`,
    `INSERT INTO ${target} (${cols.join(", ")}, _valid_from, _valid_to, _is_current, _content_hash)
     SELECT ${cols.map((c) => `_s.${c}`).join(", ")}, ${from}, NULL, TRUE, _s._content_hash FROM temp.main.${hashed} AS _s
     WHERE NOT EXISTS (SELECT 1 FROM ${target} AS _t WHERE ${keyMatch(spec, "_t", "_s")} AND _t._is_current)`
  ]
}

/** (Re)creates the `<table>_current` view (it reads `*`, so columns added later show up). */
export const currentViewSql = (spec: TableSpec) =>
  `CREATE OR REPLACE VIEW ${ident(currentViewOf(spec.name))} AS SELECT * EXCLUDE (_valid_to, _is_current) FROM ${ident(spec.name)} WHERE _is_current`

/** What a reader of the table's current rows selects from (a history table's view, else the table). */
export const currentSource = (spec: TableSpec) => ident(spec.disposition === "history" ? currentViewOf(spec.name) : spec.name)

/**
 * Turns a `merge` table into a `history` table in place (inside the caller's transaction): each
 * row becomes the current version of its key, valid from its `extracted_at` when the table has
 * one (the last time a run wrote it, the best the table knows), else from now. The table is
 * rebuilt with its own columns plus the history columns (DuckDB cannot add NOT NULL columns).
 */
export const migrateMergeToHistory = async (conn: DuckDBConnection, spec: TableSpec): Promise<void> => {
  const existing = await rowsOf(
    conn,
    `SELECT column_name, data_type, is_nullable FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ? ORDER BY column_index`,
    [spec.name]
  )
  const names = new Set(existing.map((e) => String(e.column_name)))
  const present = { ...spec, columns: spec.columns.filter((c) => names.has(c.name)) }
  const validFrom = names.has("extracted_at") ? `coalesce(CAST("extracted_at" AS TIMESTAMPTZ), now())` : "now()"
  const swap = ident(`${spec.name}__history`)
  const cols = existing.map((e) => ident(String(e.column_name)))
  await conn.run(`DROP TABLE IF EXISTS ${swap}`)
  await conn.run(
    `CREATE TABLE ${swap} (${[
      ...existing.map((e) => `${ident(String(e.column_name))} ${String(e.data_type)}${e.is_nullable === true ? "" : " NOT NULL"}`),
      ...HISTORY_DDL
    ].join(", ")})`
  )
  await conn.run(
    `INSERT INTO ${swap} (${cols.join(", ")}, _valid_from, _valid_to, _is_current, _content_hash)
     SELECT ${cols.join(", ")}, ${validFrom}, NULL, TRUE, ${contentHashSql(present)} FROM ${ident(spec.name)}`
  )
  await conn.run(`DROP TABLE ${ident(spec.name)}`)
  await conn.run(`ALTER TABLE ${swap} RENAME TO ${ident(spec.name)}`)
}

/**
 * Folds the versions of `from` (another warehouse's table of the same spec) into the target
 * (`merge` of shards): for the keys `from` holds, the versions of both are put in `_valid_from`
 * order (the same `_valid_from` in both: `from`'s wins), a version with the hash of the one before
 * it is dropped (it changed nothing), and `_valid_to` / `_is_current` are recomputed. Keys only
 * the target holds are not touched. `cols` are the columns both have. The folded versions' hashes
 * are recomputed in the current recipe (over `cols`, the columns the folded rows keep): the two
 * warehouses may hold hashes of different recipes (an older toolkit, another DuckDB version), and
 * hashes of two recipes never compare equal.
 */
export const mergeHistorySql = (spec: TableSpec, from: string, cols: ReadonlyArray<string>): ReadonlyArray<string> => {
  const target = ident(spec.name)
  const keys = spec.primaryKey.map(ident).join(", ")
  const list = cols.map(ident).join(", ")
  const folded = `_fold_${spec.name}`
  const hash = `${contentHashSql({ ...spec, columns: spec.columns.filter((c) => cols.includes(c.name)) })} AS _content_hash`
  return [
    `CREATE OR REPLACE TEMP TABLE ${ident(folded)} AS
     WITH _all AS (
       SELECT ${list}, _valid_from, ${hash}, 0 AS _src FROM ${target}
         WHERE EXISTS (SELECT 1 FROM ${from} AS _f WHERE ${keyMatch(spec, "_f", target)})
       UNION ALL SELECT ${list}, _valid_from, ${hash}, 1 AS _src FROM ${from}
     ), _one AS (
       SELECT * FROM _all QUALIFY row_number() OVER (PARTITION BY ${keys}, _valid_from ORDER BY _src DESC) = 1
     ), _changed AS (
       SELECT * FROM _one
       QUALIFY _content_hash IS DISTINCT FROM lag(_content_hash) OVER (PARTITION BY ${keys} ORDER BY _valid_from)
     )
     SELECT ${list}, _valid_from, lead(_valid_from) OVER _w AS _valid_to, lead(_valid_from) OVER _w IS NULL AS _is_current, _content_hash
     FROM _changed WINDOW _w AS (PARTITION BY ${keys} ORDER BY _valid_from)`,
    `DELETE FROM ${target} USING (SELECT DISTINCT ${keys} FROM temp.main.${ident(folded)}) AS _k WHERE ${keyMatch(spec, target, "_k")}`,
    `INSERT INTO ${target} (${list}, _valid_from, _valid_to, _is_current, _content_hash)
     SELECT ${list}, _valid_from, _valid_to, _is_current, _content_hash FROM temp.main.${ident(folded)}`,
    `DROP TABLE temp.main.${ident(folded)}`
  ]
}
