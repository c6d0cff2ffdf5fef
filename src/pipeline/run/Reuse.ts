/**
 * The paid answers a run may reuse instead of buying them again (`service/PaidAnswers.ts`): those
 * its warehouse archived within `budget.reuseWithin`, unless the run asks for fresh answers
 * (`--fresh`), keeps no raw archive, or reads the unmetered token host.
 */
import { Effect } from "effect"
import { makeRawArchive } from "../../load/RawArchive.js"
import { PaidAnswers, type PaidAnswersShape } from "../../service/PaidAnswers.js"
import type { WarehouseApi } from "../../load/Warehouse.js"

/** Default `budget.reuseWithin`: 12 hours, so the next night buys fresh answers. */
export const DEFAULT_REUSE_WITHIN_MS = 12 * 3_600_000

const none: PaidAnswersShape = PaidAnswers.make([], () => Effect.fail("none"))

export const paidAnswersOf = (run: {
  readonly warehouse: WarehouseApi
  readonly host: "platform" | "token"
  readonly fresh?: boolean | undefined
  readonly reuseWithinMs?: number | undefined
}): Effect.Effect<PaidAnswersShape, unknown> => {
  const within = run.reuseWithinMs ?? DEFAULT_REUSE_WITHIN_MS
  const root = run.warehouse.rawRoot
  if (run.fresh || within <= 0 || root === undefined || run.host !== "platform") return Effect.succeed(none)
  const archive = makeRawArchive(root)
  return Effect.map(run.warehouse.reusableAnswers(new Date(Date.now() - within).toISOString()), (entries) =>
    PaidAnswers.make(entries, archive.read)
  )
}
