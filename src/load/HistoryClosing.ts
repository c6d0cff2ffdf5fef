/**
 * Closing what is gone: a complete full pull closes the current versions of the records it no
 * longer sees (`_valid_to` = the run's extraction time, `_is_current` FALSE), like dlt's `scd2`
 * retiring absent rows, so `<table>_current` holds only what the service still lists. Only the
 * records of the slices the pull read: a record belongs to the slices that listed it.
 *
 * - `_history_keys`: while a run lands, each landing group appends the keys of the history rows it
 *   staged with the slice of the page that brought them (one `INSERT ... SELECT` a table a group,
 *   no index: the page path stays as it was). They stay while the run may resume, so a pull
 *   resumed across processes knows every key of all its pages.
 * - `_history_members`: when a run ends (however it ends), its keys join the keys its slices listed
 *   before, under the run's scope (the pipeline and its parameters but the paging ones, see
 *   `pipeline/CloseScope.ts`): a record a nightly incremental read found is a member of its slice
 *   too, so the weekly full pull closes it once it is gone.
 * - At the end of a complete full pull (`full`: done, every slice read to the service's end, no
 *   incremental read, no cap, no shard), in the run's finishing transaction, one statement per
 *   table: the current versions whose key is a member of a slice the pull read and that no page of
 *   the pull brought are closed (an anti-join); the members of those slices become what the pull
 *   saw. Anything else (an incremental read, a stopped run, a shard, a sample) closes nothing.
 *
 * Only history tables keyed by one column (the toolkit's main tables: `properties`, `plots`,
 * `seller_leads`, `sourcing_properties`) take part. A warehouse's first full pull with this code
 * closes only the current rows of its tables that no other pipeline or scope wrote (see
 * `bootstrapMembers`); later pulls close by membership.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import type { TableSpec } from "../normalize/Table.js"
import { ident, literal, rowsOf } from "./Database.js"
import { TS } from "./Bookkeeping.js"
import { tableExists } from "./KeyReads.js"
import type { FullRead } from "../extract/Sources.js"

/** Whether a table's rows are closed when their record is gone: a history table keyed by one column. */
export const closable = (spec: TableSpec): boolean => spec.disposition === "history" && spec.primaryKey.length === 1

/**
 * The statement appending the keys of a group's staged rows of `spec` to `_history_keys`, each
 * with the slice of its page. `select` reads the staged rows with their types and `_seq` (their
 * order in the group, 0-based, pages one after another); `pages` are the group's pages in staging
 * order with their row count of the table and slice (none: a reload, recorded nowhere).
 */
export const historyKeysSql = (
  spec: TableSpec,
  select: string,
  runId: string,
  pages: ReadonlyArray<{ readonly slice: string | undefined; readonly rows: number }>
): string | undefined => {
  const ranges: Array<{ lo: number; hi: number; slice: string }> = []
  let lo = 0
  for (const p of pages) {
    if (p.rows > 0 && p.slice !== undefined) {
      const last = ranges[ranges.length - 1]
      if (last && last.slice === p.slice && last.hi === lo) last.hi = lo + p.rows
      else ranges.push({ lo, hi: lo + p.rows, slice: p.slice })
    }
    lo += p.rows
  }
  if (ranges.length === 0) return undefined
  const key = `CAST(_s.${ident(spec.primaryKey[0]!)} AS VARCHAR)`
  const head = `INSERT INTO _history_keys SELECT ${literal(runId)}`
  if (ranges.length === 1 && ranges[0]!.lo === 0 && ranges[0]!.hi === lo)
    return `${head}, ${literal(ranges[0]!.slice)}, ${literal(spec.name)}, ${key} FROM (${select}) AS _s WHERE ${key} IS NOT NULL`
  const values = ranges.map((r) => `(${r.lo}, ${r.hi}, ${literal(r.slice)})`).join(", ")
  return `${head}, _r.slice, ${literal(spec.name)}, ${key} FROM (${select}) AS _s
    JOIN (VALUES ${values}) AS _r(lo, hi, slice) ON _s._seq >= _r.lo AND _s._seq < _r.hi WHERE ${key} IS NOT NULL`
}

/** How a run ends for its history tables (`Warehouse.finishRun`). */
export interface HistoryEnding {
  readonly pipeline: string
  /** The run's scope (`pipeline/CloseScope.ts`). */
  readonly scope: string
  /** A complete full pull: every slice it read reached the service's end, nothing incremental, no cap. */
  readonly full: boolean
  /** `i/n` when the run read one shard of the slices: recorded for plans, closes nothing. */
  readonly shard?: string | undefined
  /** When the closed versions end (ISO): the run's extraction time. */
  readonly closeAt: string
}

/**
 * Adds the members `keys` selects (slice, table, key) that the scope does not hold yet, each once,
 * under the ending's pipeline and scope: `_history_members` has no key to conflict on (format 5),
 * and an `EXCEPT` spills to disk where an index over every member stayed in memory. The pipeline
 * and scope are set after the `EXCEPT`, not compared in it: the scope is the run's parameters as
 * JSON (hundreds of bytes with a list of places), and carried into every row of the set
 * difference they made the 1,034,151-property finish run out of memory at the landing limit (a
 * script, not kept: a 693-byte scope failed at 80MB, without it the same keys landed).
 */
const addMembers = (conn: DuckDBConnection, ending: HistoryEnding, keys: string) =>
  conn.run(
    `INSERT INTO _history_members SELECT ${literal(ending.pipeline)}, ${literal(ending.scope)}, slice, table_name, "key"
     FROM (${keys}
       EXCEPT SELECT slice, table_name, "key" FROM _history_members
         WHERE pipeline = ${literal(ending.pipeline)} AND scope = ${literal(ending.scope)}) AS _new`
  )

const count = async (conn: DuckDBConnection, sql: string): Promise<number> => Number((await rowsOf(conn, sql))[0]?.n ?? 0)

/**
 * A scope's first complete full pull (a warehouse older than membership, whose current rows no
 * slice has listed as members yet): the table's current rows from before the pull are taken as
 * members of this pull's slices when nothing else could have
 * written them: every run that landed rows in the table is of this pipeline, ran under this scope
 * (`scopeOfRun` from its parameters) and read only slices this pull read. Else nothing is taken
 * (nothing closes before the next full pull). Returns whether the rows were taken.
 */
const bootstrapMembers = async (
  conn: DuckDBConnection,
  runId: string,
  ending: HistoryEnding,
  spec: TableSpec,
  scopeOfRun: (params: unknown) => string | undefined
): Promise<boolean> => {
  const t = literal(spec.name)
  const owner = `pipeline = ${literal(ending.pipeline)} AND scope = ${literal(ending.scope)}`
  if ((await count(conn, `SELECT count(*) AS n FROM _full_pulls WHERE ${owner} AND shard IS NULL`)) > 0) return false
  const before = `_is_current AND _valid_from < CAST(${literal(ending.closeAt)} AS TIMESTAMPTZ)`
  if ((await count(conn, `SELECT count(*) AS n FROM ${ident(spec.name)} WHERE ${before}`)) === 0) return false
  const writers = await rowsOf(
    conn,
    `SELECT run_id, pipeline, CAST(params AS VARCHAR) AS params FROM _runs
     WHERE coalesce(TRY_CAST(json_extract(rows_per_table, ${literal(`$."${spec.name}"`)}) AS BIGINT), 0) > 0 AND run_id <> ${literal(runId)}`
  )
  for (const w of writers) {
    if (String(w.pipeline) !== ending.pipeline) return false
    if (scopeOfRun(w.params === null ? null : JSON.parse(String(w.params))) !== ending.scope) return false
  }
  const foreign = await count(
    conn,
    `SELECT count(*) AS n FROM _slices s WHERE s.run_id IN (${writers.length > 0 ? writers.map((w) => literal(String(w.run_id))).join(", ") : "NULL"})
       AND s.slice NOT IN (SELECT slice FROM _slices WHERE run_id = ${literal(runId)})`
  )
  if (foreign > 0) return false
  // the slice is unknown per row: each current key joins every slice this pull read (all of them
  // are read again by the next full pull, so the next membership is exact)
  await addMembers(
    conn,
    ending,
    `SELECT _sl.slice, ${t} AS table_name, CAST(_t.${ident(spec.primaryKey[0]!)} AS VARCHAR) AS "key"
     FROM ${ident(spec.name)} AS _t, (SELECT slice FROM _slices WHERE run_id = ${literal(runId)}) AS _sl
     WHERE _t.${before}`
  )
  return true
}

/**
 * Run in the finishing transaction of run `runId`: its keys join its slices' members; a complete
 * full pull without a shard closes the current versions its slices listed before and no page of
 * it brought, and is recorded in `_full_pulls` (with a shard too, for plans). Returns the rows
 * closed per table. `specOf` gives a registered table's spec (undefined: not declared here).
 */
export const endHistory = async (
  conn: DuckDBConnection,
  runId: string,
  ending: HistoryEnding,
  specOf: (table: string) => TableSpec | undefined,
  scopeOfRun: (params: unknown) => string | undefined,
  tables: ReadonlyArray<TableSpec>
): Promise<Record<string, number>> => {
  const run = literal(runId)
  const owner = `pipeline = ${literal(ending.pipeline)} AND scope = ${literal(ending.scope)}`
  const covered = `(SELECT slice FROM _slices WHERE run_id = ${run})`
  const closed: Record<string, number> = {}
  if (ending.full && ending.shard === undefined) {
    const named = await rowsOf(
      conn,
      `SELECT DISTINCT table_name FROM _history_members WHERE ${owner} UNION SELECT DISTINCT table_name FROM _history_keys WHERE run_id = ${run}`
    )
    const candidates = new Map<string, TableSpec>()
    for (const s of tables) if (closable(s)) candidates.set(s.name, s)
    for (const r of named) {
      const s = specOf(String(r.table_name))
      if (s && closable(s)) candidates.set(s.name, s)
    }
    for (const spec of candidates.values()) {
      await bootstrapMembers(conn, runId, ending, spec, scopeOfRun)
      const t = literal(spec.name)
      const key = `CAST(${ident(spec.primaryKey[0]!)} AS VARCHAR)`
      const at = `CAST(${literal(ending.closeAt)} AS TIMESTAMPTZ)`
      const result = await conn.run(
        `UPDATE ${ident(spec.name)} SET _valid_to = ${at}, _is_current = FALSE
         WHERE _is_current AND _valid_from < ${at}
           AND ${key} IN (SELECT "key" FROM _history_members WHERE ${owner} AND table_name = ${t} AND slice IN ${covered})
           AND ${key} NOT IN (SELECT "key" FROM _history_keys WHERE run_id = ${run} AND table_name = ${t})`
      )
      closed[spec.name] = result.rowsChanged
    }
    // the members of the slices read are what this pull saw
    await conn.run(
      `DELETE FROM _history_members WHERE ${owner} AND slice IN ${covered}
         AND NOT EXISTS (SELECT 1 FROM _history_keys AS _k WHERE _k.run_id = ${run} AND _k.slice = _history_members.slice
           AND _k.table_name = _history_members.table_name AND _k."key" = _history_members."key")`
    )
  }
  await addMembers(conn, ending, `SELECT slice, table_name, "key" FROM _history_keys WHERE run_id = ${run}`)
  if (ending.full) {
    await conn.run(
      `INSERT OR REPLACE INTO _full_pulls (run_id, pipeline, scope, shard, "at", closed) VALUES (${run}, ${literal(ending.pipeline)},
         ${literal(ending.scope)}, ${ending.shard === undefined ? "NULL" : literal(ending.shard)}, ${TS(literal(ending.closeAt))}, ${literal(JSON.stringify(closed))})`
    )
  }
  return closed
}

/** Forgets the keys a finished run's pages brought (its members keep them). */
export const forgetHistoryKeys = (conn: DuckDBConnection, runId: string) =>
  conn.run(`DELETE FROM _history_keys WHERE run_id = ${literal(runId)}`)

/** Before `_full_pulls` (or a pipeline without one yet): the last done run whose slices all ended as the service said. */
const LAST_DONE_READ = `SELECT slice, pages, received FROM _slices WHERE run_id = (
  SELECT r.run_id FROM _runs r WHERE r.pipeline = ? AND r.status = 'done'
    AND NOT EXISTS (SELECT 1 FROM _slices s WHERE s.run_id = r.run_id AND s.ended_by IS NOT NULL)
  ORDER BY r.started_at DESC LIMIT 1)`

/**
 * Pages and records each slice of `pipeline` took in its last complete full pull that read it
 * (`_full_pulls`: no incremental read, no cap, every slice to the service's end), by slice key:
 * what `plan` prices a full pull at. A pipeline with no recorded full pull (a warehouse older
 * than `_full_pulls`) falls back to its last done run whose slices all ended as the service said.
 */
export const readLastFullRead = async (conn: DuckDBConnection, pipeline: string): Promise<Map<string, FullRead>> => {
  const pages = (rows: ReadonlyArray<Record<string, unknown>>) =>
    new Map(rows.map((r) => [String(r.slice), { pages: Number(r.pages), records: Number(r.received) }] as const))
  if (await tableExists(conn, "_full_pulls")) {
    const full = await rowsOf(
      conn,
      `SELECT slice, pages, received FROM (
         SELECT s.slice, s.pages, s.received, row_number() OVER (PARTITION BY s.slice ORDER BY f."at" DESC, f.run_id DESC) AS r
         FROM _full_pulls f JOIN _slices s ON s.run_id = f.run_id WHERE f.pipeline = ?
       ) WHERE r = 1`,
      [pipeline]
    )
    if (full.length > 0) return pages(full)
  }
  return pages(await rowsOf(conn, LAST_DONE_READ, [pipeline]))
}
