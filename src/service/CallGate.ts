/**
 * What lets a run's paid call out once one of the run's slices failed. A paid call is charged once
 * it is sent, whether its answer is read or not, so a failing slice must neither drop the paid
 * calls the other slices have in flight nor let them send new ones:
 *
 * - `extractInto` gives each slice a gate (this fiber ref, for the slice's fiber);
 * - the cost guard asks it when a paid call has its permit, just before it is sent: closed (the
 *   run is stopping), the call is not sent and its slice ends there (interrupted, not failed);
 *   open, the slice is marked as having a paid call in flight until its page is accepted;
 * - once a slice failed, `extractInto` interrupts every slice without a paid call in flight and
 *   lets the others read their answer and hand it on (bounded by the request timeout).
 *
 * Outside a run (no gate) every call goes out.
 */
import { FiberRef } from "effect"

export interface CallGate {
  /** Whether a paid call may be sent now; `true` marks its slice as having one in flight. */
  readonly open: () => boolean
}

export const CurrentCallGate: FiberRef.FiberRef<CallGate | undefined> = FiberRef.unsafeMake<CallGate | undefined>(undefined)
