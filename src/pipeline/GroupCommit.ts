/**
 * Group commit: pages of several slices waiting for the warehouse land in one transaction.
 * Whoever gets the lock commits every page queued so far; each caller resumes once its own page
 * is in (or fails with the group). A slice still fetches its next page only after its page is
 * committed, so a crash loses no more than before: at most one page per slice in flight. What it
 * saves is the per-transaction cost, paid once per group instead of once per page.
 */
import { Deferred, Effect, Exit } from "effect"
import type { PageCommit } from "../load/PageCommit.js"

export const makeGroupCommitter = <E>(commitMany: (commits: ReadonlyArray<PageCommit>) => Effect.Effect<unknown, E>) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    const pending: Array<{ readonly commit: PageCommit; readonly done: Deferred.Deferred<void, E> }> = []
    const submit = (commit: PageCommit): Effect.Effect<void, E> =>
      Effect.gen(function* () {
        const done = yield* Deferred.make<void, E>()
        pending.push({ commit, done })
        yield* lock.withPermits(1)(Effect.suspend(() => {
          const group = pending.splice(0)
          if (group.length === 0) return Effect.void // an earlier holder committed ours
          return commitMany(group.map((g) => g.commit)).pipe(
            Effect.exit,
            Effect.flatMap((exit) => Effect.forEach(group, (g) => Deferred.done(g.done, Exit.asVoid(exit)), { discard: true }))
          )
        }))
        return yield* Deferred.await(done)
      })
    return { submit }
  })
