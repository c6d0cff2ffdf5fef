/**
 * The DuckDB warehouse: tables from specs, pages landed in one transaction per group (rows,
 * checkpoints, ledger, rejects, run counters; see `GroupLanding.ts`), runs and checkpoints for
 * resuming, the page journal beside the file, and queries for the CLI.
 *
 * One writer: the file is locked for the service's lifetime (see `Database.ts`); a second
 * process gets `WarehouseError` reason `Locked` after `lockTimeout`. Groups of one warehouse are
 * committed one at a time, in the order `commitPages` is called.
 *
 * `readOnly` (see `OpenOptions`): an existing warehouse opened to read (`status`, `query`,
 * `export`, `plan`): its format is checked but it is neither initialised nor migrated, it keeps no
 * raw archive and no page journal, and a write fails.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { Clock, Effect, Option } from "effect"
import type { KeyFilter } from "../extract/Sources.js"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { TableSpec } from "../normalize/Table.js"
import { checkFormat, initialise, TS } from "./Bookkeeping.js"
import { type Database, ident, inTransaction, literal, MEMORY, type OpenOptions, openDatabase, rowsOf } from "./Database.js"
import {
  type CheckpointRecord,
  type PageCommit,
  rawBodyOf,
  type RawPageRecord,
  type RunRecord,
  type RunStatus,
  type SliceRecord,
  type StagedPage,
  type StartRun,
  toCheckpointRecord,
  toRunRecord
} from "./PageCommit.js"
import { type ArchivedRaw, landGroup, type PageSummary, readRun, type RunCounters } from "./GroupLanding.js"
import { dropStages, type Stage, Stager } from "./Stage.js"
import { makePageJournal } from "./PageJournal.js"
import { makeRawArchive } from "./RawArchive.js"
import { readKeys } from "./KeyReads.js"
import { forgetSliceKeys, readSliceKeys } from "./SliceKeys.js"
import { endHistory, forgetHistoryKeys, type HistoryEnding, readLastFullRead } from "./HistoryClosing.js"
import { readReusableAnswers } from "./PaidArchive.js"
import { ensureTable, registeredSpecs } from "./TableDdl.js"
import { swapReplaceTables } from "./ReplaceSwap.js"
import { isFatal, isOutOfMemory, sqlError, WarehouseError } from "./WarehouseError.js"
import { createWarehouseFile, isCutShort, removeDeadTemps } from "./WarehouseFile.js"

export interface WarehouseOptions extends OpenOptions {
  /** The DuckDB file, or `":memory:"`. Default `data/warehouse.duckdb`. */
  readonly path?: string
  /**
   * Root of the raw archive. Default: `raw/` beside the warehouse file (`data/raw`); none for
   * `":memory:"`. `false` disables archiving (pages with `raw` then keep no body).
   */
  readonly rawDir?: string | false
  /**
   * Keep a page journal (`<path>.journal/`) so paid pages are durable before they are committed
   * (see `PageJournal.ts`). Default on for files; none for `":memory:"`.
   */
  readonly journal?: boolean
}

/**
 * DuckDB's settings while a run lands pages (each unless the options set it: then that value holds
 * throughout); exports and queries between runs get DuckDB's own defaults back.
 *
 * - threads 1: a group commit works on a few thousand rows, where DuckDB's parallel operators cost
 *   more CPU than they save (measured on the 207,071-property sourcing run: 1.2 s less CPU, the
 *   same wall time);
 * - memory_limit (`LANDING_MEMORY_LIMIT`, 256MB since a backlog failed at 80MB: see below). The
 *   history of the value: landing keeps nothing in DuckDB's cache it needs again, but DuckDB keeps
 *   the blocks of every table it wrote until the limit (its default is 80% of RAM), so a run's
 *   memory grew with the table (measured: 507 MB peak at 967,537 properties against 369 MB at
 *   233,400; 429 against 384 at 128MB). 96MB: about 10 MB less peak RSS than 128MB, CPU within
 *   the noise, a few MB of a group's temporary tables written to `<warehouse>.tmp`. At 64MB that
 *   spill was 18 MB and cost ~10% more CPU; at 32MB a checkpoint failed ("failed to pin block").
 *   Then 80MB, together with the checkpoint threshold below: 10-11 MB less peak RSS than 96MB with
 *   16MB checkpoints (stop 24, docs/BENCHMARKS.md), up to ~38 MB written to `<warehouse>.tmp`.
 * - checkpoint_threshold 64MB (DuckDB's default 16MB): every checkpoint compresses again the table's
 *   last, still growing row group, so checkpoints every 16MB of WAL cost the 207,071-property run
 *   about 1.0 s of CPU in its commits; at 64MB 0.35 s (measured on the thread running DuckDB), and
 *   the run's CPU 7-9% less. The rest is checkpointed when the warehouse closes, as before.
 */
export const LANDING_THREADS = 1
/**
 * 256MB since a 30-day alerts backlog (50,010 alerts, ~100,000 rows landed in one run, 1000-row
 * pages) ran DuckDB out of memory at 80MB under load, sometimes fatally (the database
 * invalidated mid-run, exit 1): 128MB and 256MB landed it 3 of 3 times under the same load. The
 * RSS figures above were measured at 80MB (`make bench` measures the current value).
 */
export const LANDING_MEMORY_LIMIT_MB = 256
export const LANDING_MEMORY_LIMIT = `${LANDING_MEMORY_LIMIT_MB}MB`
/**
 * How far a group commit that runs out of memory at the landing limit may raise it (doubling).
 * Measured: a 24-day alerts backlog (80,039 alerts, 7 pages in a group) did not fit 80MB.
 */
export const LANDING_MEMORY_CEILING_MB = 1280
export const LANDING_CHECKPOINT_THRESHOLD = "64MB"

export const DEFAULT_WAREHOUSE_PATH = "data/warehouse.duckdb"

export type { PageSummary } from "./GroupLanding.js"

/**
 * Assumed: `query` returns BIGINT values as numbers when they fit exactly (counts print and
 * serialise as JSON), as `bigint` otherwise, also inside lists and structs; DATE/TIMESTAMP(TZ)
 * stay `Date`s, DECIMAL is a number, JSON stays text, LIST/STRUCT are arrays and objects.
 */
export const jsValue = (v: unknown): unknown =>
  typeof v === "bigint"
    ? v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(v)
      : v
    : Array.isArray(v)
      ? v.map(jsValue)
      : v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsValue(x)]))
        : v

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/**
 * Opens the warehouse file; one that does not exist yet is created whole first, and one a
 * creation left cut short is created again (to write) or named (to read): see `WarehouseFile.ts`.
 */
const openWarehouseFile = (path: string, options: OpenOptions) => {
  if (path === MEMORY) return openDatabase(path, options)
  const file = nodePath.resolve(path)
  const create = (replace: boolean) => Effect.zipRight(createWarehouseFile(file, replace), openDatabase(path, options))
  if (!options.readOnly && !fs.existsSync(file)) return create(false)
  const opened = openDatabase(path, options).pipe(
    Effect.catchIf(
      (e) => (e.reason === "Corrupt" || e.reason === "Io") && fs.existsSync(file) && isCutShort(file),
      (e) =>
        options.readOnly
          ? Effect.fail(
              new WarehouseError({
                reason: "Foreign",
                path: file,
                cause: e,
                detail: `${file} is a database file whose creation was cut short (no data in it), not a warehouse yet; run a pipeline against it first`
              })
            )
          : create(true)
    )
  )
  return options.readOnly ? opened : Effect.tap(opened, () => Effect.sync(() => removeDeadTemps(file)))
}

export const makeWarehouse = (options: WarehouseOptions = {}) =>
  Effect.gen(function* () {
    const path = options.path ?? DEFAULT_WAREHOUSE_PATH
    const db: Database = yield* openWarehouseFile(path, options)
    if (options.readOnly && path !== MEMORY) {
      // read-only: checked, never initialised or migrated (an older format reads as it is)
      yield* db.use("Cannot read the warehouse", async (conn) => {
        const { names } = await checkFormat(conn, db.path)
        if (!names.has("_meta")) {
          throw new WarehouseError({
            reason: "Foreign",
            path: db.path,
            detail: `${db.path} is an empty DuckDB database, not a warehouse yet; run a pipeline against it first`
          })
        }
      })
    } else yield* db.use("Cannot initialise the warehouse", (conn) => initialise(conn, db.path))
    const rawRoot =
      options.rawDir === false || options.readOnly
        ? undefined
        : (options.rawDir ?? (path === MEMORY ? undefined : nodePath.join(nodePath.dirname(db.path), "raw")))
    const archive = rawRoot === undefined ? undefined : makeRawArchive(rawRoot)

    const journal = options.journal === false || options.readOnly || path === MEMORY ? undefined : makePageJournal(`${db.path}.journal`)

    const specs = new Map<string, TableSpec>()
    for (const s of yield* db.use("Cannot read _tables", (conn) => registeredSpecs(conn))) specs.set(s.name, s)
    const commitLock = yield* Effect.makeSemaphore(1)

    const ensureTables = Effect.fn("Warehouse.ensureTables")(function* (list: ReadonlyArray<TableSpec>) {
      yield* db.use("Cannot create tables", (conn) =>
        inTransaction(conn, async () => {
          for (const spec of list) await ensureTable(conn, spec)
        })
      )
      for (const spec of list) {
        specs.set(spec.name, spec)
      }
    })

    const specOf = (table: string, runId: string) => {
      const spec = specs.get(table)
      if (spec === undefined) {
        throw new WarehouseError({
          reason: "SchemaConflict",
          table,
          runId,
          detail: `Table ${table} was not declared; call ensureTables with its spec before committing rows to it`
        })
      }
      return spec
    }

    const stager = new Stager(db, specOf)

    /**
     * Lands groups of staged pages (one group per run, in order) in one transaction: all of them
     * or none. Raw bodies are archived first, numbered in commit order. The groups' staging tables
     * are dropped after, landed or not.
     */
    const landStaged = (groups: ReadonlyArray<{ readonly stage: Stage; readonly pages: ReadonlyArray<StagedPage> }>) =>
      commitLock
        .withPermits(1)(
          Effect.gen(function* () {
            const at = yield* now
            const commits = groups.flatMap((g) => g.pages)
            // Each run's counters, read once; raw bodies first (numbered in commit order within their
            // run), several at a time.
            const runs = new Map<string, RunCounters>()
            const seqs: Array<number> = []
            const pagesOf = new Map<string, number>()
            for (const commit of commits) {
              if (!runs.has(commit.runId))
                runs.set(commit.runId, yield* db.use("Cannot read the run", (conn) => readRun(conn, commit.runId)))
              const pages = (pagesOf.get(commit.runId) ?? runs.get(commit.runId)!.pages) + 1
              pagesOf.set(commit.runId, pages)
              seqs.push(pages)
            }
            // the bodies of each run's pages numbered one after another go into one file of the archive
            const raws: Array<ArchivedRaw | undefined> = commits.map(() => undefined)
            const files: Array<Array<{ seq: number; body: string | Uint8Array; at: number }>> = []
            commits.forEach((commit, i) => {
              const raw = rawBodyOf(commit)
              if (!raw || !archive) return
              const last = files[files.length - 1]?.at(-1)
              const page = { seq: seqs[i]!, body: raw.body, at: i }
              if (last && commits[last.at]!.runId === commit.runId && last.seq + 1 === page.seq) files[files.length - 1]!.push(page)
              else files.push([page])
            })
            for (const file of files) {
              const commit = commits[file[0]!.at]!
              const written = yield* archive!.writeGroup(commit.pipeline, commit.runId, file)
              file.forEach((g, k) => (raws[g.at] = { seq: g.seq, ...written[k]! }))
            }
            // sealed after the archive: a page that cannot land still leaves its body on disk
            for (const g of groups)
              yield* Effect.tryPromise({ try: () => g.stage.seal(), catch: (e) => sqlError("Cannot stage the rows", e) })
            const land = db.use(`Cannot commit ${commits.length} page(s) of run ${commits[0]!.runId}`, (conn) =>
              inTransaction(conn, async () => {
                const out: Array<PageSummary> = []
                let i = 0
                for (const { stage, pages } of groups) {
                  const runId = pages[0]!.runId
                  out.push(...(await landGroup(conn, runId, runs.get(runId)!, pages, stage.tables, raws.slice(i, i + pages.length), at)))
                  i += pages.length
                }
                return out
              })
            )
            return yield* withMemoryToLand(land)
          })
        )
        .pipe(Effect.ensuring(dropStages(groups.map((g) => g.stage))))

    /** A new, empty staging group for pages of run `runId` (`Stage.ts`); `commitStaged` lands it. */
    const openStage = (runId: string) => stager.open(runId)

    /** Lands the pages staged in `stage` in one transaction (a group commit). */
    const commitStaged = Effect.fn("Warehouse.commitStaged")(function* (stage: Stage, pages: ReadonlyArray<StagedPage>) {
      if (pages.length === 0) {
        yield* dropStages([stage])
        return [] as Array<PageSummary>
      }
      return yield* landStaged([{ stage, pages }])
    })

    /**
     * Lands pages in one transaction (a group commit): all of them or none. Their rows are staged
     * first (a group per run, consecutive pages of one run together). `commitPage` is the one-page case.
     */
    const commitPages = Effect.fn("Warehouse.commitPages")(function* (commits: ReadonlyArray<PageCommit>) {
      if (commits.length === 0) return [] as Array<PageSummary>
      const groups: Array<{ stage: Stage; pages: Array<StagedPage> }> = []
      for (const commit of commits) {
        const last = groups[groups.length - 1]
        const group = last && last.pages[0]!.runId === commit.runId ? last : undefined
        const { rows, ...rest } = commit
        const stage = group?.stage ?? stager.open(commit.runId)
        const tables = [...rows].flatMap(([t, list]) => (list.length > 0 ? [t] : []))
        yield* Effect.tryPromise({ try: () => stage.prepare(tables), catch: (e) => sqlError("Cannot create staging tables", e) }).pipe(
          Effect.tapError(() => dropStages(new Set([...groups.map((g) => g.stage), stage])))
        )
        const page = { ...rest, counts: stage.append(rows) }
        if (group) group.pages.push(page)
        else groups.push({ stage, pages: [page] })
      }
      return yield* landStaged(groups)
    })

    /** Lands one page in one transaction; the raw body (if any) is archived first. */
    const commitPage = (commit: PageCommit) => Effect.map(commitPages([commit]), (summaries) => summaries[0]!)

    // runs landing now: the first sets the landing settings, the last sets back what was there.
    // Not `RESET`: on DuckDB 1.5 `RESET memory_limit` changes the setting shown but leaves the
    // buffer manager at the landing limit, so an export after a run ran out of memory at that limit
    let landing = 0
    let landingLimitMb = LANDING_MEMORY_LIMIT_MB
    let before: ReadonlyArray<readonly [string, string]> = []
    const landingSettings = [
      ...(options.threads === undefined ? [["threads", String(LANDING_THREADS)]] : []),
      ...(options.memoryLimit === undefined ? [["memory_limit", `'${LANDING_MEMORY_LIMIT}'`]] : []),
      ...(options.checkpointThreshold === undefined ? [["checkpoint_threshold", `'${LANDING_CHECKPOINT_THRESHOLD}'`]] : [])
    ]
    const landingMode = (delta: 1 | -1) =>
      landingSettings.length === 0 || options.readOnly
        ? Effect.void
        : db.use("Cannot set DuckDB's landing settings", async (conn) => {
            landing = Math.max(0, landing + delta)
            if (delta === 1 && landing === 1) {
              const shown = await rowsOf(
                conn,
                `SELECT ${landingSettings.map(([n]) => `current_setting('${n}')::VARCHAR AS ${n}`).join(", ")}`
              )
              before = landingSettings.map(([name]) => [name, String(shown[0]![name!])] as const)
              for (const [name, value] of landingSettings) await conn.run(`SET ${name} = ${value}`)
              landingLimitMb = LANDING_MEMORY_LIMIT_MB
            }
            if (delta === -1 && landing === 0) for (const [name, value] of before) await conn.run(`SET ${name} = ${literal(value)}`)
          })

    /**
     * A group that does not fit the landing limit (a backlog of large pages: DuckDB keeps a
     * transaction's rows and the keys it checks in memory) is landed again, the transaction having
     * rolled back whole, with the limit doubled, up to `LANDING_MEMORY_CEILING`; the limit stays
     * raised for the rest of the run. A limit the settings set is never changed.
     */
    const withMemoryToLand = <A>(land: Effect.Effect<A, WarehouseError>): Effect.Effect<A, WarehouseError> =>
      Effect.catchIf(
        land,
        (e) =>
          landing > 0 && options.memoryLimit === undefined && isOutOfMemory(e) && !isFatal(e) && landingLimitMb < LANDING_MEMORY_CEILING_MB,
        () =>
          Effect.zipRight(
            db.use("Cannot raise DuckDB's memory limit", async (conn) => {
              landingLimitMb = Math.min(landingLimitMb * 2, LANDING_MEMORY_CEILING_MB)
              await conn.run(`SET memory_limit = '${landingLimitMb}MB'`)
            }),
            Effect.suspend(() => withMemoryToLand(land))
          )
      )

    const startRun = Effect.fn("Warehouse.startRun")(function* (run: StartRun) {
      const at = yield* now
      yield* landingMode(1)
      yield* db.use("Cannot start the run", (conn) =>
        conn.run(
          `INSERT INTO _runs (run_id, pipeline, params, started_at, status, units_planned, eur, units_full)
           VALUES (?, ?, ?, ${TS("?")}, 'running', ?, ?, ?)
           ON CONFLICT (run_id) DO UPDATE SET status = 'running', finished_at = NULL, error = NULL`,
          [
            run.runId,
            run.pipeline,
            JSON.stringify(run.params ?? null),
            at,
            run.unitsPlanned ?? null,
            run.eur ?? null,
            run.unitsFull ?? null
          ]
        )
      )
    })

    /**
     * Records how a run ended; `done` also swaps in the rows staged for the pipeline's replace
     * tables. With `history` (the runner's), in the same transaction: the run's history keys join
     * its slices' members, and a complete full pull closes the history rows of the records it no
     * longer sees (`HistoryClosing.ts`). Returns the rows closed per table.
     */
    const finishRun = Effect.fn("Warehouse.finishRun")(function* (
      runId: string,
      status: Exclude<RunStatus, "running">,
      error?: string,
      history?: HistoryEnding & {
        /** The scope of an earlier run from its saved parameters (undefined: unknown). */
        readonly scopeOfRun: (params: unknown) => string | undefined
        /** The pipeline's tables. */
        readonly tables: ReadonlyArray<TableSpec>
      }
    ) {
      const at = yield* now
      const closed = yield* commitLock.withPermits(1)(
        db.use(`Cannot finish run ${runId}`, (conn) =>
          inTransaction(conn, async () => {
            const run = await readRun(conn, runId)
            if (status === "done") await swapReplaceTables(conn, run.pipeline, (t) => specOf(t, runId))
            const closed = history ? await endHistory(conn, runId, history, (t) => specs.get(t), history.scopeOfRun, history.tables) : {}
            // a done run never resumes: the keys its pages brought live on in its slices' members
            if (history && status === "done") await forgetHistoryKeys(conn, runId)
            await conn.run(`UPDATE _runs SET status = ?, finished_at = ${TS("?")}, error = ? WHERE run_id = ?`, [
              status,
              at,
              error ?? null,
              runId
            ])
            return closed
          })
        )
      )
      yield* landingMode(-1)
      return closed
    })

    /** Sets the planned units or the EUR figure of a run (e.g. after planning, or when prices are known). */
    const updateRun = (runId: string, update: { readonly unitsPlanned?: number; readonly eur?: number }) =>
      db.use("Cannot update the run", (conn) =>
        conn.run(`UPDATE _runs SET units_planned = coalesce(?, units_planned), eur = coalesce(?, eur) WHERE run_id = ?`, [
          update.unitsPlanned ?? null,
          update.eur ?? null,
          runId
        ])
      )

    const runs = (limit = 20): Effect.Effect<Array<RunRecord>, WarehouseError> =>
      db
        .use("Cannot read runs", (conn) => rowsOf(conn, `SELECT * FROM _runs ORDER BY started_at DESC, run_id DESC LIMIT ?`, [limit]))
        .pipe(Effect.map((rows) => rows.map(toRunRecord)))

    const lastRun = (pipeline: string): Effect.Effect<Option.Option<RunRecord>, WarehouseError> =>
      db
        .use("Cannot read runs", (conn) =>
          rowsOf(conn, `SELECT * FROM _runs WHERE pipeline = ? ORDER BY started_at DESC, run_id DESC LIMIT 1`, [pipeline])
        )
        .pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRunRecord)))

    const checkpoints = (pipeline: string): Effect.Effect<Array<CheckpointRecord>, WarehouseError> =>
      db
        .use("Cannot read checkpoints", (conn) => rowsOf(conn, `SELECT * FROM _checkpoints WHERE pipeline = ? ORDER BY key`, [pipeline]))
        .pipe(Effect.map((rows) => rows.map(toCheckpointRecord)))

    /** Full refresh: forgets the pipeline's checkpoints and the rows staged for its replace tables. */
    const clearCheckpoints = (pipeline: string) =>
      commitLock.withPermits(1)(
        db.use("Cannot clear checkpoints", (conn) =>
          inTransaction(conn, async () => {
            await conn.run(`DELETE FROM _checkpoints WHERE pipeline = ?`, [pipeline])
            await swapReplaceTables(conn, pipeline, (t) => specOf(t, ""), { discard: true })
          })
        )
      )

    /** Units charged since an instant (ISO), over every run and pipeline: the daily cap's input. */
    const unitsSpentSince = (iso: string): Effect.Effect<number, WarehouseError> =>
      db
        .use("Cannot sum the ledger", (conn) =>
          rowsOf(conn, `SELECT coalesce(sum(units), 0) AS u FROM _ledger WHERE "at" >= ${TS("?")}`, [iso])
        )
        .pipe(Effect.map((rows) => Number(rows[0]!.u)))

    /**
     * The median units of each operation's last `recent` charges (`_ledger`), by operation: what
     * the service charges, learned (plans prefer it to the assumed cost table).
     */
    const observedCosts = (recent = 50): Effect.Effect<Record<string, { perRequest: number; charges: number }>, WarehouseError> =>
      db
        .use("Cannot read the ledger", (conn) =>
          rowsOf(
            conn,
            `SELECT operation, median(units)::DOUBLE AS m, count(*)::INTEGER AS n FROM (
               SELECT operation, units, row_number() OVER (PARTITION BY operation ORDER BY "at" DESC) AS r FROM _ledger
             ) WHERE r <= ? GROUP BY operation`,
            [recent]
          )
        )
        .pipe(
          Effect.map((rows) =>
            Object.fromEntries(rows.map((r) => [String(r.operation), { perRequest: Number(r.m), charges: Number(r.n) }]))
          )
        )

    /** What each slice of a run was declared and landed (`_slices`), by slice key. */
    const slices = (runId: string): Effect.Effect<Array<SliceRecord>, WarehouseError> =>
      db
        .use("Cannot read _slices", (conn) => rowsOf(conn, `SELECT * FROM _slices WHERE run_id = ? ORDER BY slice`, [runId]))
        .pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              slice: String(r.slice),
              declared: r.declared === null ? null : Number(r.declared),
              received: Number(r.received),
              landed: Number(r.landed),
              rejected: Number(r.rejected),
              distinct: r.distinct_keys === null || r.distinct_keys === undefined ? null : Number(r.distinct_keys),
              pages: Number(r.pages),
              endedBy: r.ended_by === null ? null : (String(r.ended_by) as SliceRecord["endedBy"]),
              endDetail: r.end_detail === null ? null : String(r.end_detail),
              done: r.done === true
            }))
          )
        )

    /**
     * The distinct non-null values of `table.column` as text, ordered, of the rows `filter` keeps
     * (keys of a fan-out fed by an earlier table; see `KeyReads.ts`); `undefined` when the
     * warehouse has no such table yet.
     */
    const keysOf = (table: string, column: string, filter?: KeyFilter): Effect.Effect<ReadonlyArray<string> | undefined, WarehouseError> =>
      db.use(`Cannot read keys from ${table}.${column}`, (conn) => readKeys(conn, table, column, filter))

    /** Paid answers archived with their request since `sinceIso` (`service/PaidAnswers.ts`), newest first. */
    const reusableAnswers = (sinceIso: string) => db.use("Cannot read _raw_pages", (conn) => readReusableAnswers(conn, sinceIso))

    /** The key hashes each slice of a run read (`SliceKeys.ts`), for a resumed run. */
    const sliceKeys = (runId: string) => db.use("Cannot read _slice_keys", (conn) => readSliceKeys(conn, runId))

    /** Forgets the key hashes of a pipeline's runs but `keep` (see `SliceKeys.ts`). */
    const forgetKeys = (pipeline: string, keep?: string) =>
      commitLock.withPermits(1)(db.use("Cannot clear _slice_keys", (conn) => forgetSliceKeys(conn, pipeline, keep)))

    /**
     * Pages per slice of `pipeline`'s last complete full pull that read each slice (`_full_pulls`;
     * see `HistoryClosing.readLastFullRead`): what `plan` prices a full pull at.
     */
    const lastFullRead = (pipeline: string) => db.use("Cannot read the last full pull", (conn) => readLastFullRead(conn, pipeline))

    /** Fan-out keys of a run the service answered 404 for. */
    const missingCount = (runId: string): Effect.Effect<number, WarehouseError> =>
      db
        .use("Cannot read _missing", (conn) => rowsOf(conn, `SELECT count(*) AS n FROM _missing WHERE run_id = ?`, [runId]))
        .pipe(Effect.map((rows) => Number(rows[0]!.n)))

    const rawPages = (runId: string): Effect.Effect<Array<RawPageRecord>, WarehouseError> =>
      db
        .use("Cannot read _raw_pages", (conn) => rowsOf(conn, `SELECT * FROM _raw_pages WHERE run_id = ? ORDER BY seq`, [runId]))
        .pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              runId: String(r.run_id),
              pipeline: String(r.pipeline),
              seq: Number(r.seq),
              pageKey: String(r.page_key),
              path: String(r.path),
              operation: r.operation === null || r.operation === undefined ? undefined : String(r.operation)
            }))
          )
        )

    /** Any SQL; rows as objects of JS values (see `jsValue`). */
    const query = (sql: string, params?: ReadonlyArray<string | number | boolean | bigint | null>) =>
      db
        .use("Query failed", (conn) => rowsOf(conn, sql, params))
        .pipe(Effect.map((rows) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsValue(v)])))))

    /** Row counts of the declared tables. */
    const tableCounts = () =>
      db.use("Cannot count rows", async (conn) => {
        const out: Record<string, number> = {}
        for (const name of [...specs.keys()].sort())
          out[name] = Number((await rowsOf(conn, `SELECT count(*) AS n FROM ${ident(name)}`))[0]!.n)
        return out
      })

    return {
      path: db.path,
      rawRoot,
      /** The page journal of this file, if it keeps one. */
      journal,
      ensureTables,
      commitPage,
      commitPages,
      openStage,
      commitStaged,
      startRun,
      finishRun,
      updateRun,
      runs,
      lastRun,
      checkpoints,
      clearCheckpoints,
      unitsSpentSince,
      observedCosts,
      slices,
      missingCount,
      sliceKeys,
      forgetKeys,
      lastFullRead,
      reusableAnswers,
      keysOf,
      rawPages,
      query,
      tableCounts,
      /** The declared table specs (from this process or the `_tables` registry). */
      tables: () => [...specs.values()],
      /** Exclusive use of the connection, for exports and merges. */
      withConnection: db.use
    } as const
  })

/** What an open warehouse offers (the `Warehouse` service's shape). */
export type WarehouseApi = Effect.Effect.Success<ReturnType<typeof makeWarehouse>>

/** The warehouse service: `Warehouse.Default(options)` opens it for the layer's scope. */
export class Warehouse extends Effect.Service<Warehouse>()("load/Warehouse", {
  scoped: (options: WarehouseOptions = {}) => makeWarehouse(options)
}) {}
