import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber } from "effect"
import type { PageCommit } from "../../src/load/PageCommit.js"
import { makeGroupCommitter } from "../../src/pipeline/GroupCommit.js"

const page = (n: number): PageCommit => ({ runId: "r", pipeline: "p", rows: new Map(), ledger: [], rejects: [], requests: n, retries: 0 })

describe("group commit", () => {
  it.effect("pages queued while a commit runs land together, each caller resumes after its own page", () =>
    Effect.gen(function* () {
      const groups: Array<Array<number>> = []
      const gate = yield* Deferred.make<void>()
      const committer = yield* makeGroupCommitter((commits) =>
        Effect.gen(function* () {
          groups.push(commits.map((c) => c.requests))
          if (groups.length === 1) yield* Deferred.await(gate) // the first commit is slow
        }))
      const first = yield* Effect.fork(committer.submit(page(1)))
      yield* Effect.yieldNow()
      const rest = yield* Effect.fork(Effect.all([2, 3, 4, 5].map((n) => committer.submit(page(n))), { concurrency: "unbounded" }))
      yield* Effect.repeatN(Effect.yieldNow(), 20) // every submitter has queued its page
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(rest)
      expect(groups).toEqual([[1], [2, 3, 4, 5]])
    }))

  it.effect("a failed group fails every page in it, and the next group goes on", () =>
    Effect.gen(function* () {
      let calls = 0
      const committer = yield* makeGroupCommitter(() => (++calls === 1 ? Effect.fail("disk full") : Effect.void))
      const failed = yield* Effect.either(committer.submit(page(1)))
      expect(Either.isLeft(failed) && failed.left).toBe("disk full")
      yield* committer.submit(page(2))
      expect(calls).toBe(2)
    }))
})
