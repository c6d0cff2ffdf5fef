/**
 * What the runner lets a pager spend on repairing what the service did: the settings' paging
 * bounds, read by the pagers through the context (a pager declared in a pipeline file needs no
 * settings of its own). Without it, the defaults.
 */
import { Context, Effect, Option } from "effect"

export interface PagingPolicyShape {
  /**
   * Paid pages a slice may read again to repair a list that shifted while it was read (records
   * left it between pages: `budget.paidRereads`). Beyond it the slice ends `shifted`.
   */
  readonly paidRereads: number
}

/** Default `budget.paidRereads`: two shifts a slice (a sale or two during one read). */
export const DEFAULT_PAGING_POLICY: PagingPolicyShape = { paidRereads: 2 }

export class PagingPolicy extends Context.Tag("extract/PagingPolicy")<PagingPolicy, PagingPolicyShape>() {}

/** The policy in force (the defaults when none is provided). */
export const pagingPolicy: Effect.Effect<PagingPolicyShape> = Effect.map(Effect.serviceOption(PagingPolicy), (p) =>
  Option.getOrElse(p, () => DEFAULT_PAGING_POLICY)
)
