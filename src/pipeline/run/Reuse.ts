/**
 * The paid answers a run may reuse instead of buying them again (`service/PaidAnswers.ts`): those
 * its warehouse archived within `budget.reuseWithin`, unless the run asks for fresh answers
 * (`--fresh`), keeps no raw archive, or reads the unmetered token host.
 */
import { Effect } from "effect"
import { makeRawArchive } from "../../load/RawArchive.js"
import { PaidAnswers, type PaidAnswersShape } from "../../service/PaidAnswers.js"
import type { RunContext } from "./RunContext.js"

/** Default `budget.reuseWithin`: 12 hours, so the next night buys fresh answers. */
export const DEFAULT_REUSE_WITHIN_MS = 12 * 3_600_000

const none: PaidAnswersShape = PaidAnswers.make([], () => Effect.fail("none"))

export const paidAnswersOf = (run: RunContext): Effect.Effect<PaidAnswersShape, unknown> => {
  const within = run.request.reuseWithinMs ?? DEFAULT_REUSE_WITHIN_MS
  const root = run.warehouse.rawRoot
  if (run.request.fresh || within <= 0 || root === undefined || run.pipeline.host !== "platform") return Effect.succeed(none)
  const archive = makeRawArchive(root)
  return Effect.map(run.warehouse.reusableAnswers(new Date(Date.now() - within).toISOString()), (entries) =>
    PaidAnswers.make(entries, archive.read)
  )
}
