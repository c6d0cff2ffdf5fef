/**
 * Step 3 of a run: land. Each page's rows are staged as it arrives (`stageEntry`); a group of
 * queued pages then goes into the warehouse in one transaction
 * (rows, checkpoints, ledger, rejects, raw bodies, completeness per slice, missing keys), then is
 * counted and reported; a reject ratio above the cap stops the run.
 */
import { Effect, Ref } from "effect"
import type { PageContext } from "../Pipeline.js"
import { RunFailed } from "../RunError.js"
import type { JournalEntry, RunContext, RunState } from "./RunContext.js"
import { journalIo } from "../../load/PageJournal.js"
import { dropStages, type Stage } from "../../load/Stage.js"
import { sqlError } from "../../load/WarehouseError.js"
import type { Normalized } from "../../normalize/Normalizer.js"

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

/** A page waiting to land: its rows staged in its group's tables, its records dropped (the journal has the page). */
export type QueuedEntry = Omit<JournalEntry, "records"> & {
  readonly received: number
  readonly records: number
  /** Rows per table. */
  readonly counts: Readonly<Record<string, number>>
  readonly rejects: Normalized["rejects"]
}

/** A group of queued pages and the staging group holding their rows. */
export interface StagedGroup {
  readonly stage: Stage
  readonly pages: Array<QueuedEntry>
}

export const openGroup = (run: RunContext): StagedGroup => ({ stage: run.warehouse.openStage(run.runId), pages: [] })

/**
 * Normalizes a page and stages its rows in the group `group()` names at that moment, waiting
 * first for staging tables the group lacks; `join` adds the entry to that same group in the same
 * synchronous step as its rows (a group is never taken with half a page).
 */
export const stageEntry = (run: RunContext, e: JournalEntry, group: () => StagedGroup, join: (entry: QueuedEntry) => void) =>
  Effect.gen(function* () {
    const n = run.normalize(e.records, { runId: run.runId, slice: e.slice, extractedAt: run.extractedAt } satisfies PageContext)
    const tables: Array<string> = []
    for (const [t, list] of n.rows) if (list.length > 0) tables.push(t)
    while (true) {
      const { stage } = group()
      if (stage.has(tables)) {
        const counts = stage.append(n.rows)
        return join({ ...e, records: n.records, received: e.records.length, counts, rejects: n.rejects })
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
export const makeOrderedStaging = (run: RunContext, first: number, group: () => StagedGroup, join: (entry: QueuedEntry) => void) =>
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
    const entries = group.pages
    yield* run.warehouse.commitStaged(
      group.stage,
      entries.map((e) => ({
        runId,
        pipeline: pipeline.name,
        extractedAt: run.extractedAt,
        counts: e.counts,
        checkpoint: e.checkpoint,
        ledger: e.ledger,
        rejects: e.rejects,
        raw: e.raw,
        requests: e.requests,
        retries: e.retries,
        call: { seq: e.seq, sliceSeq: e.sliceSeq, operation: e.operation, startedAt: e.timing?.startedAt, ms: e.timing?.ms },
        slice: {
          key: e.slice,
          declared: e.declared,
          received: e.missing ? 0 : e.received,
          landed: e.missing ? 0 : e.records - e.rejects.length,
          rejected: e.missing ? 0 : e.rejects.length,
          fresh: e.missing ? 0 : (e.fresh ?? e.received),
          freshKeys: e.freshKeys,
          end: e.end,
          done: e.checkpoint.done || e.end !== undefined
        },
        missing: e.missing
      }))
    )
    if (run.writer) yield* journalIo(() => run.writer!.committed(entries[entries.length - 1]!.seq))
    // the group's pages counted in one step; each page's event carries the totals as of that page
    const counted = yield* Ref.modify(state, (s) => {
      const rowsPerTable = { ...s.rowsPerTable }
      let totals = s.totals
      const perPage = entries.map((e) => {
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
          units: totals.units + e.units,
          requests: totals.requests + e.requests,
          retries: totals.retries + e.retries,
          throttled: totals.throttled + (e.throttled ?? 0),
          elapsedMs: Date.now() - run.started
        }
        return { rows, totals }
      })
      return [perPage, { ...s, rowsPerTable, totals }] as const
    })
    for (const [i, e] of entries.entries()) {
      yield* run.progress.emit({
        type: "page_committed",
        pipeline: pipeline.name,
        runId,
        slice: e.slice,
        seq: e.sliceSeq,
        records: e.records,
        rows: counted[i]!.rows,
        rejects: e.rejects.length,
        units: e.units,
        totals: counted[i]!.totals
      })
    }
    for (const e of entries) if (e.checkpoint.done || e.end !== undefined) slicesDone.add(e.slice)
    yield* run.progress.emit({
      type: "group_landed",
      pipeline: pipeline.name,
      runId,
      pages: entries.length,
      slices: { total: Math.max(run.plan.slices, slicesDone.size), done: slicesDone.size },
      totals: counted[counted.length - 1]!.totals
    })
    // stop early once the sample is large enough to judge; the end of the run judges the rest
    if ((yield* Ref.get(state)).totals.records >= 100) yield* checkRejects(run, state)
  }).pipe(
    Effect.withSpan("Land.group", {
      attributes: {
        pipeline: run.pipeline.name,
        pages: group.pages.length,
        records: group.pages.reduce((n, e) => n + e.received, 0),
        units: group.pages.reduce((n, e) => n + e.units, 0)
      }
    })
  )
