/**
 * What a run writes: its tables declared, its pages landed in one transaction per group (rows,
 * checkpoints, ledger, rejects, run counters; see `GroupLanding.ts`), its start and end recorded,
 * and a full refresh's forgetting. Groups of one warehouse are committed one at a time, in the
 * order they are handed over; raw bodies are archived before their group commits, and the page
 * journal (when the file keeps one) is the runner's to write before that.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { Clock, Effect } from "effect"
import type { TableSpec } from "../normalize/Table.js"
import { TS } from "./Bookkeeping.js"
import { mergeInto, RUN_START_COLUMNS } from "./BookkeepingRows.js"
import { type Database, inTransaction } from "./Database.js"
import { type ArchivedRaw, landGroup, mergeCharges, type PageSummary, readRun, type RunCounters } from "./GroupLanding.js"
import type { Charge } from "../extract/Source.js"
import { endHistory, forgetHistoryKeys, type HistoryEnding } from "./HistoryClosing.js"
import { type CommitSize, commitSizeOf, type makeLandingSettings } from "./LandingSettings.js"
import { bytesOf, type PageCommit, rawBodyOf, type RunStatus, type StagedPage, type StartRun } from "./PageCommit.js"
import type { PageJournal } from "./PageJournal.js"
import type { RawArchive } from "./RawArchive.js"
import { swapReplaceTables } from "./ReplaceSwap.js"
import { forgetSliceKeys } from "./SliceKeys.js"
import { dropStages, type Stage, Stager } from "./Stage.js"
import { ensureSpecs } from "./TableDdl.js"
import type { TableRegistry } from "./TableRegistry.js"
import { sqlError, type WarehouseError } from "./WarehouseError.js"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

export const makeWarehouseLanding = (
  db: Database,
  registry: TableRegistry,
  settings: ReturnType<typeof makeLandingSettings>,
  stores: { readonly archive: RawArchive | undefined; readonly journal: PageJournal | undefined; readonly rawRoot: string | undefined }
) =>
  Effect.gen(function* () {
    const { archive } = stores
    const commitLock = yield* Effect.makeSemaphore(1)
    const stager = new Stager(db, registry.specOf)

    const ensureTables = Effect.fn("Warehouse.ensureTables")(function* (list: ReadonlyArray<TableSpec>) {
      yield* db.use("Cannot create tables", (conn) =>
        inTransaction(conn, async () => {
          await ensureSpecs(conn, list)
        })
      )
      for (const spec of list) registry.declare(spec)
    })

    /**
     * One transaction of a run's landing (a group, a run's finish): its statements at the landing
     * limit, landed again with the limit doubled if one of them runs out (the transaction rolled
     * back whole), its `COMMIT` with room raised up front (a failed commit cannot be landed again:
     * `isFailedCommit`) unless it is a group of a `size` that commits at the landing limit
     * (`LandingSettings.roomToCommit`); `"finish"`: a run's finish (`LandingSettings.roomToFinish`).
     */
    const transact = <A>(what: string, f: (conn: DuckDBConnection) => Promise<A>, size: CommitSize | "finish") =>
      settings.withMemoryToLand(
        db.use(what, async (conn) => {
          let setBack: (() => Promise<void>) | undefined
          try {
            return await inTransaction(conn, async () => {
              const a = await f(conn)
              setBack = await (size === "finish" ? settings.roomToFinish(conn) : settings.roomToCommit(conn, size))
              return a
            })
          } finally {
            await setBack?.()
          }
        })
      )

    /** Raw bodies of `commits` archived, numbered in commit order within their run, one file per run of consecutive pages. */
    const archiveBodies = (commits: ReadonlyArray<StagedPage>, runs: Map<string, RunCounters>) =>
      Effect.gen(function* () {
        const seqs: Array<number> = []
        const pagesOf = new Map<string, number>()
        for (const commit of commits) {
          const pages = (pagesOf.get(commit.runId) ?? runs.get(commit.runId)!.pages) + 1
          pagesOf.set(commit.runId, pages)
          seqs.push(pages)
        }
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
        return raws
      })

    /**
     * Lands groups of staged pages (one group per run, in order) in one transaction: all of them
     * or none. Raw bodies are archived first. The groups' staging tables are dropped after, landed or not;
     * then the warehouse is checkpointed if its WAL is due (`LandingSettings.checkpointIfDue`).
     */
    const landStaged = (
      groups: ReadonlyArray<{ readonly stage: Stage; readonly pages: ReadonlyArray<StagedPage> }>,
      bytes: number | undefined
    ) =>
      commitLock.withPermits(1)(
        Effect.gen(function* () {
          const at = yield* now
          const commits = groups.flatMap((g) => g.pages)
          const runs = new Map<string, RunCounters>()
          for (const commit of commits)
            if (!runs.has(commit.runId)) runs.set(commit.runId, yield* db.use("Cannot read the run", (conn) => readRun(conn, commit.runId)))
          const raws = yield* archiveBodies(commits, runs)
          // sealed after the archive: a page that cannot land still leaves its body on disk
          for (const g of groups)
            yield* Effect.tryPromise({ try: () => g.stage.seal(), catch: (e) => sqlError("Cannot stage the rows", e) })
          const size = commitSizeOf(
            groups.flatMap((g) => [...g.stage.tables.values()].map((t) => t.spec)),
            commits.map((c) => c.counts),
            bytes
          )
          return yield* transact(
            `Cannot commit ${commits.length} page(s) of run ${commits[0]!.runId}`,
            async (conn) => {
              const out: Array<PageSummary> = []
              let i = 0
              for (const { stage, pages } of groups) {
                const runId = pages[0]!.runId
                out.push(...(await landGroup(conn, runId, runs.get(runId)!, pages, stage.tables, raws.slice(i, i + pages.length), at)))
                i += pages.length
              }
              return out
            },
            size
          )
        }).pipe(
          Effect.ensuring(dropStages(groups.map((g) => g.stage))),
          // after the staging tables are gone: the checkpoint has their memory too
          Effect.tap(() => settings.checkpointIfDue)
        )
      )

    /** A new, empty staging group for pages of run `runId` (`Stage.ts`); `commitStaged` lands it. */
    const openStage = (runId: string) => stager.open(runId)

    /** Lands the pages staged in `stage` in one transaction (a group commit). */
    const commitStaged = Effect.fn("Warehouse.commitStaged")(function* (stage: Stage, pages: ReadonlyArray<StagedPage>) {
      if (pages.length === 0) {
        yield* dropStages([stage])
        return [] as Array<PageSummary>
      }
      // the pages' bytes, for the commit's room: unknown if a page's are
      let bytes: number | undefined = 0
      for (const page of pages) {
        const b = bytesOf(page)
        bytes = b === undefined || bytes === undefined ? undefined : bytes + b
      }
      return yield* landStaged([{ stage, pages }], bytes)
    })

    /**
     * Lands pages with their rows in hand in one transaction (a group commit): all of them or none.
     * Their rows are staged first (a group per run, consecutive pages of one run together).
     * `commitPage` is the one-page case.
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
      // the rows' bytes, for the commit's room (a UTF-16 unit of text is at most 3 bytes of UTF-8)
      let bytes = 0
      for (const commit of commits)
        for (const list of commit.rows.values())
          for (const row of list) for (const k in row) bytes += typeof row[k] === "string" ? 3 * (row[k] as string).length : 8
      return yield* landStaged(groups, bytes)
    })

    const commitPage = (commit: PageCommit) => Effect.map(commitPages([commit]), (summaries) => summaries[0]!)

    const startRun = Effect.fn("Warehouse.startRun")(function* (run: StartRun) {
      const at = yield* now
      yield* settings.enter
      yield* db.use("Cannot start the run", (conn) =>
        // a resumed run's record is marked running again
        conn.run(
          mergeInto(
            "_runs",
            RUN_START_COLUMNS,
            [
              [
                run.runId,
                run.pipeline,
                JSON.stringify(run.params ?? null),
                at,
                "running",
                run.unitsPlanned ?? null,
                run.eur ?? null,
                run.unitsFull ?? null
              ]
            ],
            ["run_id"],
            { update: { status: "'running'", finished_at: "NULL", error: "NULL" } }
          )
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
      // the finish joins the run's keys with the tables (history closing): at a million keys its
      // statements spill at the landing limit, and it is landed again like a group if one runs out
      const closed = yield* commitLock.withPermits(1)(
        transact(
          `Cannot finish run ${runId}`,
          async (conn) => {
            const run = await readRun(conn, runId)
            if (status === "done") await swapReplaceTables(conn, run.pipeline, (t) => registry.specOf(t, runId))
            const closed = history ? await endHistory(conn, runId, history, registry.get, history.scopeOfRun, history.tables) : {}
            // a done run never resumes: the keys its pages brought live on in its slices' members
            if (history && status === "done") await forgetHistoryKeys(conn, runId)
            await conn.run(`UPDATE _runs SET status = ?, finished_at = ${TS("?")}, error = ? WHERE run_id = ?`, [
              status,
              at,
              error ?? null,
              runId
            ])
            return closed
          },
          "finish"
        )
      )
      yield* settings.leave
      return closed
    })

    /**
     * Charges of a run that no page brings: an answer the service charged that the run ended on (a
     * body broken off after its headers, a wrong content type; `finishRun` in
     * `pipeline/run/Finish.ts`), also when the run's landing failed after it. Into `_ledger` and
     * the run's `units_charged` in one transaction, not counted as a page, so `_runs.pages` counts
     * pages and stays the journal's count for the resume. Returns the units the ledger took.
     */
    const recordCharges = (runId: string, pipeline: string, charges: ReadonlyArray<Charge>) =>
      commitLock.withPermits(1)(
        db.use("Cannot record the run's charges", (conn) =>
          inTransaction(conn, async () => {
            const units = await mergeCharges(conn, runId, pipeline, charges)
            if (units > 0) await conn.run(`UPDATE _runs SET units_charged = units_charged + ? WHERE run_id = ?`, [units, runId])
            return units
          })
        )
      )

    /** Sets the planned units or the EUR figure of a run (e.g. after planning, or when prices are known). */
    /** Sets the run's plan and EUR; adds requests and retries that landed no page (a failed page's). */
    const updateRun = (
      runId: string,
      update: { readonly unitsPlanned?: number; readonly eur?: number; readonly addRequests?: number; readonly addRetries?: number }
    ) =>
      db.use("Cannot update the run", (conn) =>
        conn.run(
          `UPDATE _runs SET units_planned = coalesce(?, units_planned), eur = coalesce(?, eur), requests = requests + ?,
             retries = retries + ? WHERE run_id = ?`,
          [update.unitsPlanned ?? null, update.eur ?? null, update.addRequests ?? 0, update.addRetries ?? 0, runId]
        )
      )

    /** Full refresh: forgets the pipeline's checkpoints and the rows staged for its replace tables. */
    const clearCheckpoints = (pipeline: string) =>
      commitLock.withPermits(1)(
        db.use("Cannot clear checkpoints", (conn) =>
          inTransaction(conn, async () => {
            await conn.run(`DELETE FROM _checkpoints WHERE pipeline = ?`, [pipeline])
            await swapReplaceTables(conn, pipeline, (t) => registry.specOf(t, ""), { discard: true })
          })
        )
      )

    /** Forgets the key hashes of a pipeline's runs but `keep` (see `SliceKeys.ts`). */
    const forgetKeys = (pipeline: string, keep?: string): Effect.Effect<void, WarehouseError> =>
      commitLock.withPermits(1)(db.use("Cannot clear _slice_keys", (conn) => forgetSliceKeys(conn, pipeline, keep)))

    return {
      /** The page journal of this file, if it keeps one. */
      journal: stores.journal,
      /** Root of the raw archive, if the file keeps one. */
      rawRoot: stores.rawRoot,
      ensureTables,
      openStage,
      commitStaged,
      commitPages,
      commitPage,
      recordCharges,
      startRun,
      finishRun,
      updateRun,
      clearCheckpoints,
      forgetKeys
    } as const
  })

/** What a run writes to a warehouse (part of the `Warehouse` service). */
export type LandingApi = Effect.Effect.Success<ReturnType<typeof makeWarehouseLanding>>
