/**
 * Landing a group of pages of one run in the open transaction, with a fixed number of statements
 * whatever the group's size: per table the landing statements over the rows the group staged
 * (`Stage.ts`; in page order, so the last duplicate still wins), then one statement each for
 * checkpoints (the last position per key), ledger, rejects, raw pages and the run's counters.
 *
 * Why literals and not parameters: DuckDB prepares a parameterised statement on every call
 * (about 3 ms each, measured; about 0.5 ms for the same statement with literals), and this is the
 * hot path of every run (docs/BENCHMARKS.md). Every value goes through `sqlValue`, which quotes
 * strings and refuses anything that is not a finite number, a boolean, a string or null.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { TS } from "./Bookkeeping.js"
import { literal, rowsOf } from "./Database.js"
import { attemptsOf, checkpointOf, ledgerOf, rawBodyOf, type SliceProgress, sliceProgressOf, type StagedPage } from "./PageCommit.js"
import type { Checkpoint } from "../extract/Page.js"
import { castedSelect, landSql } from "./PageStager.js"
import { closable, historyKeysSql } from "./HistoryClosing.js"
import type { StagedTable } from "./Stage.js"
import { WarehouseError } from "./WarehouseError.js"

/** Rows landed by one commit, per table (input rows, duplicates included). */
export type PageSummary = Record<string, number>

/** Where a page's raw body was archived, numbered within its run. */
export interface ArchivedRaw {
  readonly seq: number
  readonly path: string
  readonly bytes: number
}

/** A SQL literal of a bookkeeping value. */
export const sqlValue = (v: string | number | boolean | null | undefined): string => {
  if (v === null || v === undefined) return "NULL"
  if (typeof v === "string") return literal(v)
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE"
  if (Number.isFinite(v)) return String(v)
  throw new WarehouseError({ reason: "BadValue", detail: `A bookkeeping number must be finite, got ${v}` })
}

const tuple = (values: ReadonlyArray<string>) => `(${values.join(", ")})`

/** Key hashes (`SeenKeys.keyHash`, below 2^53) as the hex of their little-endian doubles. */
const hashesHex = (keys: ArrayLike<number>): string => {
  const hashes = keys instanceof Float64Array ? keys : Float64Array.from(keys)
  return Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength).toString("hex")
}

/** A run's counters as a group starts landing (read once per group, inside its commit lock). */
export type RunCounters = Awaited<ReturnType<typeof readRun>>

/** The run's pipeline, pages so far and rows per table. */
export const readRun = async (conn: DuckDBConnection, runId: string) => {
  const r = await rowsOf(conn, `SELECT pipeline, pages, rows_per_table FROM _runs WHERE run_id = ${literal(runId)}`)
  if (r.length === 0) throw new WarehouseError({ reason: "Sql", runId, detail: `Run ${runId} was not started (call startRun first)` })
  return {
    pipeline: String(r[0]!.pipeline),
    pages: Number(r[0]!.pages),
    rowsPerTable: JSON.parse(String(r[0]!.rows_per_table)) as Record<string, number>
  }
}

/**
 * Lands `pages` (all of run `runId`, whose counters are `run`; their rows staged in `tables`) in
 * the caller's transaction; `raws[i]` is where the body of `pages[i]` was archived, if it was.
 * Returns each page's rows per table.
 */
export const landGroup = async (
  conn: DuckDBConnection,
  runId: string,
  run: RunCounters,
  pages: ReadonlyArray<StagedPage>,
  tables: ReadonlyMap<string, StagedTable>,
  raws: ReadonlyArray<ArchivedRaw | undefined>,
  at: string
): Promise<Array<PageSummary>> => {
  const rowsPerTable = run.rowsPerTable // updated in place: the next group of the same run in this commit goes on from it
  const pipeline = pages[0]!.pipeline
  // versions of history tables begin at the run's extraction time (the commit time without one)
  const validFrom = pages[0]!.extractedAt ?? at
  // what each page adds to its slice's record (the history keys, `_slices` and `_slice_keys` read it)
  const progress = new Map(pages.map((p) => [p, sliceProgressOf(p)] as const))

  for (const [table, staged] of tables) {
    const { spec } = staged
    if (staged.rows > 0) {
      for (const sql of landSql(spec, { runId, pipeline, extractedAt: at, validFrom }, staged)) await conn.run(sql)
      // the keys each slice brought, for closing what a full pull no longer sees (HistoryClosing.ts)
      if (closable(spec)) {
        const sql = historyKeysSql(
          spec,
          castedSelect(spec, staged.name),
          runId,
          pages.map((p) => ({ slice: progress.get(p)?.key, rows: p.counts[table] ?? 0 }))
        )
        if (sql !== undefined) await conn.run(sql)
      }
    }
    if (spec.disposition === "replace") {
      await conn.run(`INSERT INTO _replace_pending VALUES (${sqlValue(pipeline)}, ${sqlValue(table)}) ON CONFLICT DO NOTHING`)
    }
    rowsPerTable[table] = (rowsPerTable[table] ?? 0) + staged.rows
  }

  const atTs = TS(sqlValue(at))
  const checkpoints = new Map<string, Checkpoint>()
  for (const c of pages) {
    const cp = checkpointOf(c)
    if (cp) checkpoints.set(cp.key, cp)
  }
  if (checkpoints.size > 0) {
    await conn.run(
      `INSERT INTO _checkpoints VALUES ${[...checkpoints.values()]
        .map((cp) =>
          tuple([
            sqlValue(pipeline),
            sqlValue(runId),
            sqlValue(cp.key),
            sqlValue(JSON.stringify(cp.value ?? null)),
            sqlValue(cp.done),
            atTs
          ])
        )
        .join(", ")}
       ON CONFLICT (pipeline, key) DO UPDATE SET run_id = EXCLUDED.run_id, value = EXCLUDED.value, done = EXCLUDED.done, updated_at = EXCLUDED.updated_at`
    )
  }

  // A charge is a (run, request id): the same id in another run is another charge. Within a run a
  // repeated id is the same charge landed again, recorded once; the run's `units_charged` adds
  // only what the ledger took, so the two always agree.
  const ledger = [...new Map(pages.flatMap(ledgerOf).map((l) => [l.requestId, l])).values()]
  let units = 0
  if (ledger.length > 0) {
    const inserted = await rowsOf(
      conn,
      `INSERT INTO _ledger (request_id, run_id, pipeline, operation, units, "at", units_remaining) VALUES ${ledger
        .map((l) =>
          tuple([
            sqlValue(l.requestId),
            sqlValue(runId),
            sqlValue(pipeline),
            sqlValue(l.operation),
            sqlValue(l.units),
            TS(sqlValue(l.at)),
            sqlValue(l.remaining ?? null)
          ])
        )
        .join(", ")} ON CONFLICT (run_id, request_id) DO NOTHING RETURNING units`
    )
    for (const r of inserted) units += Number(r.units)
  }

  const rejects = pages.flatMap((c) => c.rejects)
  if (rejects.length > 0) {
    await conn.run(
      `INSERT INTO _rejects VALUES ${rejects
        .map((r) => tuple([sqlValue(runId), sqlValue(pipeline), sqlValue(r.table), sqlValue(r.reason), sqlValue(r.raw), atTs]))
        .join(", ")}`
    )
  }

  const archived = pages.flatMap((c, i) => {
    const body = rawBodyOf(c)
    return raws[i] && body ? [{ raw: raws[i]!, pageKey: body.pageKey, request: body.request }] : []
  })
  if (archived.length > 0) {
    await conn.run(
      `INSERT OR REPLACE INTO _raw_pages (run_id, pipeline, seq, page_key, path, bytes, "at", operation, request_key, bought_at, units)
       VALUES ${archived
         .map(({ raw, pageKey, request }) =>
           tuple([
             sqlValue(runId),
             sqlValue(pipeline),
             sqlValue(raw.seq),
             sqlValue(pageKey),
             sqlValue(raw.path),
             sqlValue(raw.bytes),
             atTs,
             sqlValue(request?.operation),
             sqlValue(request?.key),
             request ? TS(sqlValue(request.boughtAt)) : "NULL",
             sqlValue(request?.units)
           ])
         )
         .join(", ")}`
    )
  }

  type SliceTotals = Omit<SliceProgress, "key" | "fresh" | "freshKeys"> & { distinct: number; pages: number }
  const slices = new Map<string, SliceTotals>()
  for (const c of pages) {
    const slice = progress.get(c)
    if (!slice) continue
    const s = slices.get(slice.key) ?? {
      declared: undefined,
      received: 0,
      landed: 0,
      rejected: 0,
      distinct: 0,
      pages: 0,
      end: undefined,
      done: false
    }
    slices.set(slice.key, {
      declared: slice.declared ?? s.declared,
      received: s.received + slice.received,
      landed: s.landed + slice.landed,
      rejected: s.rejected + slice.rejected,
      // pages landed before distinct keys were counted (a journal of an older toolkit) count their records
      distinct: s.distinct + (slice.fresh ?? slice.received),
      pages: s.pages + 1,
      end: slice.end ?? s.end,
      done: slice.done
    })
  }
  if (slices.size > 0) {
    await conn.run(
      `INSERT INTO _slices (run_id, pipeline, slice, declared, received, landed, rejected, pages, ended_by, end_detail, done,
         updated_at, distinct_keys) VALUES ${[...slices]
           .map(([key, s]) =>
             tuple([
               sqlValue(runId),
               sqlValue(pipeline),
               sqlValue(key),
               sqlValue(s.declared),
               sqlValue(s.received),
               sqlValue(s.landed),
               sqlValue(s.rejected),
               sqlValue(s.pages),
               sqlValue(s.end?.kind),
               sqlValue(s.end?.detail),
               sqlValue(s.done),
               atTs,
               sqlValue(s.distinct)
             ])
           )
           .join(", ")}
       ON CONFLICT (run_id, slice) DO UPDATE SET declared = coalesce(EXCLUDED.declared, _slices.declared),
         received = _slices.received + EXCLUDED.received, landed = _slices.landed + EXCLUDED.landed,
         rejected = _slices.rejected + EXCLUDED.rejected, pages = _slices.pages + EXCLUDED.pages,
         distinct_keys = coalesce(_slices.distinct_keys, 0) + EXCLUDED.distinct_keys,
         ended_by = coalesce(EXCLUDED.ended_by, _slices.ended_by), end_detail = coalesce(EXCLUDED.end_detail, _slices.end_detail),
         done = EXCLUDED.done, updated_at = EXCLUDED.updated_at`
    )
  }

  // each fetched page as a call of its slice (a page landed again from the journal keeps its first row)
  const calls = pages.flatMap((c) => (c.entry ? [c.entry] : []))
  if (calls.length > 0) {
    await conn.run(
      `INSERT INTO _calls VALUES ${calls
        .map(({ seq, page }) => {
          const { charges, operation, request } = page.fetched
          return tuple([
            sqlValue(runId),
            sqlValue(pipeline),
            sqlValue(seq),
            sqlValue(page.slice),
            sqlValue(page.seq),
            sqlValue(operation ?? charges[0]?.operation ?? request?.operation),
            sqlValue(charges[0]?.requestId),
            sqlValue(page.attempts.requests),
            sqlValue(page.attempts.retries),
            sqlValue(charges.reduce((u, l) => u + l.units, 0)),
            page.timing ? TS(sqlValue(page.timing.startedAt)) : "NULL",
            sqlValue(page.timing?.ms)
          ])
        })
        .join(", ")} ON CONFLICT (run_id, seq) DO NOTHING`
    )
  }

  // the keys each page brought its slice (a group lands once: its rows are appended once)
  const keyed = pages.flatMap((c) => {
    const slice = progress.get(c)
    return slice?.freshKeys && slice.freshKeys.length > 0 ? [{ slice: slice.key, keys: slice.freshKeys }] : []
  })
  if (keyed.length > 0) {
    await conn.run(
      `INSERT INTO _slice_keys VALUES ${keyed.map((k) => tuple([sqlValue(runId), sqlValue(k.slice), `from_hex('${hashesHex(k.keys)}')`])).join(", ")}`
    )
  }

  const missing = calls.flatMap(({ page }) => (page.missing ? [page.missing] : []))
  if (missing.length > 0) {
    await conn.run(
      `INSERT OR REPLACE INTO _missing VALUES ${missing
        .map((m) =>
          tuple([sqlValue(runId), sqlValue(pipeline), sqlValue(m.key), sqlValue(m.status), sqlValue(m.requestId), sqlValue(m.detail), atTs])
        )
        .join(", ")}`
    )
  }

  const sum = (f: (c: StagedPage) => number) => pages.reduce((s, c) => s + f(c), 0)
  await conn.run(
    `UPDATE _runs SET pages = pages + ${sqlValue(pages.length)}, requests = requests + ${sqlValue(sum((c) => attemptsOf(c).requests))},
       retries = retries + ${sqlValue(sum((c) => attemptsOf(c).retries))}, units_charged = units_charged + ${sqlValue(units)},
       rows_per_table = ${sqlValue(JSON.stringify(rowsPerTable))} WHERE run_id = ${sqlValue(runId)}`
  )
  return pages.map((p) => ({ ...p.counts }))
}
