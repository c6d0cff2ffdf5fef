/**
 * Step 3 of a run: land. Each page's rows are staged as it arrives (`stageEntry`: the journaled
 * page wrapped as a `StagedEntry`); a group of them then goes into the warehouse in one
 * transaction (rows, checkpoints, ledger, rejects, raw bodies, completeness per slice, missing
 * keys), then is counted and reported; a reject ratio above the cap stops the run.
 */
import { Effect, Ref } from "effect"
import type { PageContext } from "../Pipeline.js"
import { RunFailed } from "../RunError.js"
import type { JournalEntry, RunContext, RunState } from "./RunContext.js"
import { withoutPayload } from "../../extract/Page.js"
import { arrivedBytes, type StagedEntry } from "../../load/PageCommit.js"
import { journalIo } from "../../load/PageJournal.js"
import { dropStages, type Stage } from "../../load/Stage.js"
import { sqlError } from "../../load/WarehouseError.js"

/** Fails the run when more records failed their schema than the settings allow. */
export const checkRejects = (run: RunContext, state: RunState) =>
  Effect.flatMap(Ref.get(state), ({ totals }) =>
    totals.records > 0 && totals.rejects / totals.records > run.request.maxRejectRatio
      ? Effect.fail(
          new RunFailed({
            reason: "RejectRatio",
            pipeline: run.pipeline.name,
            runId: run.runId,
            detail: `${totals.rejects} of ${totals.records} records failed their schema (more than ${run.request.maxRejectRatio * 100}%); see _rejects`
          })
        )
      : Effect.void
  )

/** A group of queued pages and the staging group holding their rows. */
export interface StagedGroup {
  readonly stage: Stage
  readonly pages: Array<StagedEntry>
}

export const openGroup = (run: RunContext): StagedGroup => ({ stage: run.warehouse.openStage(run.runId), pages: [] })

/**
 * Normalizes a page and stages its rows in the group `group()` names at that moment, waiting
 * first for staging tables the group lacks; `join` adds the entry to that same group in the same
 * synchronous step as its rows (a group is never taken with half a page).
 */
export const stageEntry = (run: RunContext, e: JournalEntry, group: () => StagedGroup, join: (staged: StagedEntry) => void) =>
  Effect.gen(function* () {
    const { page } = e
    const n = run.normalize(page.fetched.records, {
      runId: run.runId,
      slice: page.slice,
      extractedAt: run.extractedAt
    } satisfies PageContext)
    const tables: Array<string> = []
    for (const [t, list] of n.rows) if (list.length > 0) tables.push(t)
    while (true) {
      const { stage } = group()
      if (stage.has(tables)) {
        const counts = stage.append(n.rows)
        return join({
          runId: run.runId,
          pipeline: run.pipeline.name,
          extractedAt: run.extractedAt,
          entry: { ...e, page: withoutPayload(page) },
          records: n.records,
          counts,
          rejects: n.rejects,
          bytes: arrivedBytes(e)
        })
      }
      yield* Effect.tryPromise({ try: () => stage.prepare(tables), catch: (cause) => sqlError("Cannot create staging tables", cause) })
    }
  })

/**
 * Stages journaled pages in journal order (`seq` from `first` on), whatever order their slices
 * reach it in: a page that finds its group's tables missing waits for them, and a later page of
 * another slice must not land before it. The groups then always hold pages 1..n of the run in
 * order, which `_runs.pages`, the journal's `committed` and a resume's replay all count on. Each
 * call stages its page and every page after it that is waiting, or leaves its page waiting for
 * the page before it (whose own call then stages both).
 */
export const makeOrderedStaging = (run: RunContext, first: number, group: () => StagedGroup, join: (staged: StagedEntry) => void) =>
  Effect.map(Effect.makeSemaphore(1), (turn) => {
    const waiting = new Map<number, JournalEntry>()
    let next = first
    const stageWaiting = Effect.gen(function* () {
      while (waiting.has(next)) {
        yield* stageEntry(run, waiting.get(next)!, group, join)
        waiting.delete(next)
        next++
      }
    })
    return (e: JournalEntry) =>
      Effect.suspend(() => {
        waiting.set(e.seq, e)
        return turn.withPermits(1)(stageWaiting)
      })
  })

/** Journal entries (a resume's replay) staged as one group. */
export const stageReplay = (run: RunContext, entries: ReadonlyArray<JournalEntry>) =>
  Effect.suspend(() => {
    const g = openGroup(run)
    return Effect.forEach(
      entries,
      (e) =>
        stageEntry(
          run,
          e,
          () => g,
          (q) => g.pages.push(q)
        ),
      { discard: true }
    ).pipe(
      Effect.as(g),
      Effect.onError(() => discardGroups([g]))
    )
  })

/** Drops the staging tables of groups that will not land (a run stopped early). */
export const discardGroups = (groups: ReadonlyArray<StagedGroup>) => dropStages(groups.map((g) => g.stage))

/**
 * Lands groups of the run; `doneBefore` are the slices a resumed run had already read to their end
 * (the `group_landed` event counts slices done with them).
 */
export const makeLanding = (run: RunContext, state: RunState, doneBefore: Iterable<string> = []) => {
  const slicesDone = new Set(doneBefore)
  return (group: StagedGroup) => landOne(run, state, group, slicesDone)
}

const landOne = (run: RunContext, state: RunState, group: StagedGroup, slicesDone: Set<string>) =>
  Effect.gen(function* () {
    const { pipeline, runId } = run
    const staged = group.pages
    yield* run.warehouse.commitStaged(group.stage, staged)
    if (run.writer) yield* journalIo(() => run.writer!.committed(staged[staged.length - 1]!.entry.seq))
    // the group's pages counted in one step; each page's event carries the totals as of that page
    const counted = yield* Ref.modify(state, (s) => {
      const rowsPerTable = { ...s.rowsPerTable }
      let totals = s.totals
      const perPage = staged.map((e) => {
        const { fetched, attempts } = e.entry.page
        let rows = 0
        for (const t in e.counts) {
          rowsPerTable[t] = (rowsPerTable[t] ?? 0) + e.counts[t]!
          rows += e.counts[t]!
        }
        totals = {
          ...totals,
          pages: totals.pages + 1,
          records: totals.records + e.records,
          rows: totals.rows + rows,
          rejects: totals.rejects + e.rejects.length,
          units: totals.units + fetched.units,
          requests: totals.requests + attempts.requests,
          retries: totals.retries + attempts.retries,
          throttled: totals.throttled + attempts.throttled,
          elapsedMs: Date.now() - run.started
        }
        return { rows, totals }
      })
      return [perPage, { ...s, rowsPerTable, totals }] as const
    })
    for (const [i, e] of staged.entries()) {
      const { page } = e.entry
      yield* run.progress.emit({
        type: "page_committed",
        pipeline: pipeline.name,
        runId,
        slice: page.slice,
        seq: page.seq,
        records: e.records,
        rows: counted[i]!.rows,
        rejects: e.rejects.length,
        units: page.fetched.units,
        totals: counted[i]!.totals
      })
    }
    for (const { entry } of staged) if (entry.page.checkpoint.done || entry.page.end !== undefined) slicesDone.add(entry.page.slice)
    yield* run.progress.emit({
      type: "group_landed",
      pipeline: pipeline.name,
      runId,
      pages: staged.length,
      slices: { total: Math.max(run.plan.slices, slicesDone.size), done: slicesDone.size },
      totals: counted[counted.length - 1]!.totals
    })
    // stop early once the sample is large enough to judge; the end of the run judges the rest
    if ((yield* Ref.get(state)).totals.records >= run.landing.rejectSample) yield* checkRejects(run, state)
  }).pipe(
    Effect.withSpan("Land.group", {
      attributes: {
        pipeline: run.pipeline.name,
        pages: group.pages.length,
        records: group.pages.reduce((n, e) => n + e.records, 0),
        units: group.pages.reduce((n, e) => n + e.entry.page.fetched.units, 0)
      }
    })
  )
