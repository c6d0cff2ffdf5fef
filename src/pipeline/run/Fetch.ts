/**
 * Step 2 of a run: fetch. A resumed run first lands what its journal holds beyond the warehouse
 * (paid, never refetched); then the slices fetch pages and hand each to the journal and the
 * queue, while the landing step drains the queue side by side. A signal stops the fetching at once
 * (the call in flight is lost, as the journal promises); what is queued still lands.
 */
import { Cause, Chunk, Effect, Either, Option, Ref } from "effect"
import { extractInto, type Page } from "../../extract/Extract.js"
import { groupsOf, makePageQueue } from "../PageQueue.js"
import { RunInterrupted } from "../RunError.js"
import { Shutdown } from "../Shutdown.js"
import { checkRejects, discardGroups, makeLanding, openGroup, type StagedGroup, makeOrderedStaging, stageReplay } from "./Land.js"
import type { JournalEntry, RunContext, RunCounters, RunState } from "./RunContext.js"
import type { StagedEntry } from "../../load/PageCommit.js"
import { journalIo } from "../../load/PageJournal.js"
import { identityOf } from "../RecordKey.js"
import { ServiceSettings } from "../../service/ServiceSettings.js"

export const fetchAndLand = (run: RunContext, state: RunState) =>
  Effect.gen(function* () {
    const shutdown = yield* Effect.serviceOption(Shutdown)
    const { pipeline, writer } = run
    // the slices a resumed run read to their end before it stopped (for the slices-done count)
    const doneBefore = run.resumed
      ? (yield* run.warehouse.checkpoints(pipeline.name)).filter((c) => c.done && c.runId === run.runId).map((c) => c.key)
      : []
    const land = makeLanding(run, state, doneBefore)
    const options = run.landing

    if (writer && run.resumed) {
      const { pageNo } = yield* Ref.get(state)
      const replay = yield* journalIo(() => run.journal!.pending(pipeline.name, run.runId, pageNo))
      // records stand for rows here (a page's rows are known once normalised)
      for (const group of groupsOf(replay, options, (e) => e.page.fetched.records.length)) yield* land(yield* stageReplay(run, group))
      yield* Ref.update(state, (s) => ({ ...s, pageNo: s.pageNo + replay.length }))
    }

    const queue = yield* makePageQueue<StagedEntry, StagedGroup>(
      () => openGroup(run),
      options,
      // records, as a replay weighs its pages (above): a group splits the same way live and replayed
      (e) => e.records
    )
    const stage = yield* makeOrderedStaging(run, (yield* Ref.get(state)).pageNo + 1, queue.group, queue.put)
    /** A fetched page goes to the journal and the queue at once. */
    const admit = (page: Page) =>
      Effect.gen(function* () {
        const entry = yield* Ref.modify(state, (s): readonly [JournalEntry, RunCounters] => {
          const seq = s.pageNo + 1
          const refined = page.seq === 0 && run.refine.first(page.slice, page.fetched.total, page.fetched.records.length)
          const entry: JournalEntry = {
            seq,
            page,
            // the bytes, not the text: the journal writes them now, the archive later, and they
            // wait for their group outside V8's heap (the text dies young)
            ...(run.archive && page.fetched.raw ? { body: Buffer.from(page.fetched.raw, "utf8") } : {})
          }
          return [
            entry,
            {
              ...s,
              pageNo: seq,
              totals: refined ? { ...s.totals, expectedPages: run.refine.expected().pages } : s.totals
            }
          ]
        })
        yield* journalIo(() => writer?.append(entry))
        // normalized and staged on arrival: its rows go to DuckDB at once instead of waiting as
        // JS objects in the queue for the group commit (and growing V8's old space)
        yield* stage(entry)
      })
    /** Its slice fetches on when there is room (by the page's records, as the queue weighs its entry). */
    const accept = (page: Page) => Effect.zipRight(admit(page), queue.reserve(page.fetched.records.length))

    const positions = new Map((yield* run.warehouse.checkpoints(pipeline.name)).map((c) => [c.key, c] as const))
    // a resumed run's slices go on knowing the keys they read (after the replay landed its pages)
    const seen = run.resumed ? yield* run.warehouse.sliceKeys(run.runId) : new Map<string, Array<number>>()
    const stop = Option.match(shutdown, {
      onNone: () => Effect.never,
      onSome: (s) => Effect.map(s.requested, (signal) => Either.left(new RunInterrupted({ signal })))
    })
    const fetching = extractInto(
      pipeline.source,
      run.params,
      {
        mode: run.resumed ? "resume" : "fresh",
        positions,
        runId: run.runId,
        shard: run.request.shard,
        identity: identityOf(pipeline),
        seen: (slice) => seen.get(slice) ?? [],
        // a request in flight answers within the request timeout
        settleMs: Option.match(yield* Effect.serviceOption(ServiceSettings), { onNone: () => undefined, onSome: (s) => s.timeoutMs }),
        // every slice's failure, as it happens (the first is the run's): each may carry a charge
        failed: (cause) =>
          Ref.update(state, (s) => ({
            ...s,
            fetchFailures: [...(s.fetchFailures ?? []), ...Chunk.toReadonlyArray(Cause.failures(cause))]
          })),
        // a page that failed bought nothing to land, but its requests were sent: they count
        failedAttempts: (a) =>
          Ref.update(state, (s) => ({
            ...s,
            unlanded: { requests: (s.unlanded?.requests ?? 0) + a.requests, retries: (s.unlanded?.retries ?? 0) + a.retries },
            totals: {
              ...s.totals,
              requests: s.totals.requests + a.requests,
              retries: s.totals.retries + a.retries,
              throttled: s.totals.throttled + a.throttled
            }
          }))
      },
      accept
    ).pipe(
      Effect.either,
      (f) => Effect.raceFirst(f, stop),
      Effect.tap(() => queue.close)
    )
    // fetching and landing run side by side; a failed landing stops the fetching, a failed fetch
    // still lands every page queued before it
    // the next group's staging tables are made before this one lands (the staging connection
    // then has them ready instead of waiting behind the landing's statements)
    const landGroup = (g: StagedGroup) =>
      Effect.zipRight(
        Effect.sync(
          () =>
            void queue
              .group()
              .stage.prepare([...g.stage.tables.values()].flatMap((t) => (t.rows > 0 ? [t.spec.name] : [])))
              .catch(() => undefined)
        ),
        land(g)
      )
    const landing = queue.drain(landGroup).pipe(Effect.tap(() => Ref.update(state, (s) => ({ ...s, drained: true }))))
    const [fetched] = yield* Effect.all([fetching, landing], { concurrency: 2 }).pipe(
      Effect.ensuring(Effect.suspend(() => discardGroups(queue.left())))
    )
    if (Either.isLeft(fetched)) return yield* Effect.fail(fetched.left)
    yield* checkRejects(run, state)
  })
