/**
 * Step 3 of a run: land. A group of queued pages goes into the warehouse in one transaction
 * (rows, checkpoints, ledger, rejects, raw bodies, completeness per slice, missing keys), then is
 * counted and reported; a reject ratio above the cap stops the run.
 */
import { Effect, Ref } from "effect"
import type { PageContext } from "../Pipeline.js"
import { RunFailed } from "../RunError.js"
import type { JournalEntry, RunContext, RunState } from "./RunContext.js"
import { journalIo } from "../../load/PageJournal.js"
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

/** A page waiting to land: normalized when it arrived (`records` then emptied), or a journal replay. */
export type QueuedEntry = JournalEntry & { readonly normalized?: Normalized; readonly received?: number }

const normalizeEntry = (run: RunContext, e: Pick<JournalEntry, "records" | "slice">) =>
  run.normalize(e.records, { runId: run.runId, slice: e.slice, extractedAt: run.extractedAt } satisfies PageContext)

/**
 * The entry as it waits in the queue: its rows, without its parsed records (the journal already
 * holds the page). The records are then garbage as soon as the page is normalized, instead of
 * waiting in the queue for the group commit and being moved to V8's old space.
 */
export const normalizedEntry = (run: RunContext, e: JournalEntry): QueuedEntry => ({
  ...e,
  records: [],
  received: e.records.length,
  normalized: normalizeEntry(run, e)
})

const receivedOf = (e: QueuedEntry) => e.received ?? e.records.length

export const makeLanding = (run: RunContext, state: RunState) => (entries: ReadonlyArray<QueuedEntry>) =>
  Effect.gen(function* () {
    const { pipeline, runId } = run
    const normalized = entries.map((e) => e.normalized ?? normalizeEntry(run, e))
    yield* run.warehouse.commitPages(
      entries.map((e, i) => ({
        runId,
        pipeline: pipeline.name,
        extractedAt: run.extractedAt,
        rows: normalized[i]!.rows,
        checkpoint: e.checkpoint,
        ledger: e.ledger,
        rejects: normalized[i]!.rejects,
        raw: e.raw,
        requests: e.requests,
        retries: e.retries,
        slice: {
          key: e.slice,
          declared: e.declared,
          received: e.missing ? 0 : receivedOf(e),
          landed: e.missing ? 0 : normalized[i]!.records - normalized[i]!.rejects.length,
          rejected: e.missing ? 0 : normalized[i]!.rejects.length,
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
      const perPage = entries.map((e, i) => {
        const n = normalized[i]!
        let rows = 0
        for (const [t, list] of n.rows) {
          rowsPerTable[t] = (rowsPerTable[t] ?? 0) + list.length
          rows += list.length
        }
        totals = {
          ...totals,
          pages: totals.pages + 1,
          records: totals.records + n.records,
          rows: totals.rows + rows,
          rejects: totals.rejects + n.rejects.length,
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
      const n = normalized[i]!
      yield* run.progress.emit({
        type: "page_committed",
        pipeline: pipeline.name,
        runId,
        slice: e.slice,
        seq: e.sliceSeq,
        records: n.records,
        rows: counted[i]!.rows,
        rejects: n.rejects.length,
        units: e.units,
        totals: counted[i]!.totals
      })
    }
    // stop early once the sample is large enough to judge; the end of the run judges the rest
    if ((yield* Ref.get(state)).totals.records >= 100) yield* checkRejects(run, state)
  }).pipe(
    Effect.withSpan("Land.group", {
      attributes: {
        pipeline: run.pipeline.name,
        pages: entries.length,
        records: entries.reduce((n, e) => n + receivedOf(e), 0),
        units: entries.reduce((n, e) => n + e.units, 0)
      }
    })
  )
