/**
 * Whether a run's slice may send a request now. A paid call is charged once it is sent, whether
 * its answer is read or not, so once one of the run's slices failed the other slices must neither
 * drop the calls they have in flight nor send new ones:
 *
 * - `extractInto` gives its slices one gate (this fiber ref) and closes it when a slice fails;
 * - the host transport asks it before each attempt, after pacing: closed, nothing is sent and the
 *   slice ends there (an interruption, no failure); a request already sent is read to the end, and
 *   its page handed on as any other (kept, never bought again);
 * - a slice stops at its next page or attempt; what is still running `extractInto` stops after the
 *   request timeout.
 *
 * Assumed: the service charges a call it answered even if the client hung up before reading it
 * (the spec shows nothing of calls cut short); reading the answer costs nothing more if it does
 * not. How long the slices may take is the request timeout (`service.timeoutMs`).
 *
 * A step that makes two calls in turn loses the first answer when the gate closes between them (no
 * built-in pipeline does). Outside a run (no gate) every request goes out.
 */
import { FiberRef } from "effect"

export interface CallGate {
  /** Whether a request may be sent now. */
  readonly open: () => boolean
}

export const CurrentCallGate: FiberRef.FiberRef<CallGate | undefined> = FiberRef.unsafeMake<CallGate | undefined>(undefined)
