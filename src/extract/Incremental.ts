/**
 * Incremental reads of operations that have no watermark of their own: pager wrappers that read
 * less once a slice has read before (its position from the last finished run, which an
 * `incremental` pager is handed). `--full-refresh` forgets the positions, so the next read is a
 * full one again.
 *
 * - `untilKnown`: newest-first pages stop once pages hold only records landed before (a
 *   `caught-up` end: reported, not a shortfall).
 * - `sinceWatermark`: a read "since a date" from the newest date the slice landed (the service's
 *   own dates, never this machine's clock), less an overlap.
 */
import { Effect } from "effect"
import type { Pager, PagerStep } from "./Source.js"

/** Whether a saved position is one of these wrappers' (it carries the inner pager's). */
const wrapped = <P extends { readonly inner: unknown }>(saved: P | unknown): saved is P =>
  typeof saved === "object" && saved !== null && "inner" in saved

export interface UntilKnownPosition<S> {
  readonly inner: S
  /** All-known pages in a row so far. */
  readonly knownPages: number
  /** Whether this read stops at known pages (the slice has read before). */
  readonly stopAtKnown: boolean
}

/**
 * Stops a newest-first slice after `tolerated` pages in a row that end in a record whose id is in
 * `known` (read once per run, when the first page needs it): in newest-first order a page that
 * ends in a record landed before has reached what earlier reads landed, so the new records of a
 * night cost one page, not that page plus an all-known one. Applies only when the slice has read
 * before and `tolerated` > 0; a first read (or one after `--full-refresh`) reads everything. The
 * stop ends the slice as `caught-up`: the records it skips were landed by earlier reads. A page
 * that ends in a new record resets the count.
 */
export const untilKnown = <S, R, E, Ctx, E2, Ctx2>(
  inner: Pager<S, R, E, Ctx>,
  options: {
    readonly known: Effect.Effect<ReadonlyArray<string>, E2, Ctx2>
    readonly idOf: (record: R) => string | undefined
    readonly tolerated: number
  }
): Pager<UntilKnownPosition<S>, R, E | E2, Ctx | Ctx2> => {
  let known: ReadonlySet<string> | undefined
  const knownIds = Effect.suspend(() =>
    known !== undefined ? Effect.succeed(known) : Effect.map(options.known, (ids) => (known = new Set(ids)))
  )
  return {
    incremental: true,
    // a stop at known pages ends the slice `caught-up` (`_slices.ended_by`); a read that did not
    // stop there reached the service's own end and saw every record
    partial: () => false,
    start: (previous) => ({
      inner: inner.start(undefined),
      knownPages: 0,
      stopAtKnown: previous !== undefined && options.tolerated > 0
    }),
    fetch: (saved) => {
      // a position saved before this wrapper (a paused run resumed after an upgrade) is the inner one
      const pos = wrapped(saved) ? saved : { inner: saved as unknown as S, knownPages: 0, stopAtKnown: false }
      return Effect.flatMap(inner.fetch(pos.inner), (step): Effect.Effect<PagerStep<UntilKnownPosition<S>, R>, E2, Ctx2> => {
        const next: UntilKnownPosition<S> = { inner: step.next, knownPages: 0, stopAtKnown: pos.stopAtKnown }
        // a natural end, a stall or a service limit say more than a known page would
        if (!pos.stopAtKnown || (step.done && step.end?.kind !== "cap")) return Effect.succeed({ ...step, next })
        return Effect.map(knownIds, (ids) => {
          const last = step.fetched.records.at(-1)
          const lastId = last === undefined ? undefined : options.idOf(last)
          const reached = lastId !== undefined && ids.has(lastId)
          const knownPages = reached ? pos.knownPages + 1 : 0
          const moved = { ...next, knownPages }
          if (knownPages < options.tolerated) return { ...step, next: moved }
          return {
            ...step,
            next: moved,
            done: true,
            end: { kind: "caught-up", detail: `${knownPages} page(s) in a row ending in records landed before` }
          }
        })
      })
    }
  }
}

export interface SincePosition<S> {
  readonly inner: S
  /** The date (YYYY-MM-DD) this read is since; null: everything. */
  readonly since: string | null
  /** The newest date the slice has landed (the service's own), the next read's base. */
  readonly mark: string | null
  /** Whether the read ended as the service's signals say (no cap, stall or limit cut it). */
  readonly complete: boolean
}

const DATE = /^\d{4}-\d{2}-\d{2}/

/** `YYYY-MM-DD` minus whole days. */
export const daysBefore = (date: string, days: number): string =>
  new Date(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

/**
 * Reads "since a date" from the slice's watermark: the newest date its records carried when it
 * last read completely (`datesOf`, the service's own dates), less `overlapDays`. A first read
 * (or one after `--full-refresh`) reads everything; a read a cap, stall or limit cut short does
 * not advance the watermark, so the next read covers the same days again; `fixed` (a date the
 * user gave) replaces the watermark for every read.
 */
export const sinceWatermark = <S, R, E, Ctx>(options: {
  readonly read: (since: string | null) => Pager<S, R, E, Ctx>
  readonly datesOf: (record: R) => Iterable<unknown>
  readonly overlapDays: number
  readonly fixed?: string | undefined
}): Pager<SincePosition<S>, R, E, Ctx> => ({
  incremental: true,
  // a read since a date lists only what changed since: it is no full pull
  partial: (pos) => !wrapped<SincePosition<S>>(pos) || pos.since !== null,
  start: (saved) => {
    // a position written before this wrapper (no `inner`) counts as no previous read
    const previous = wrapped<SincePosition<S>>(saved) ? saved : undefined
    const since =
      options.fixed ??
      (previous === undefined
        ? null
        : previous.complete && previous.mark !== null
          ? daysBefore(previous.mark, options.overlapDays)
          : previous.since)
    return { inner: options.read(since).start(undefined), since, mark: previous?.mark ?? null, complete: false }
  },
  fetch: (saved) => {
    const pos = wrapped<SincePosition<S>>(saved) ? saved : { inner: saved as unknown as S, since: null, mark: null, complete: false }
    return Effect.map(options.read(pos.since).fetch(pos.inner), (step): PagerStep<SincePosition<S>, R> => {
      let mark = pos.mark
      for (const r of step.fetched.records) {
        for (const d of options.datesOf(r)) {
          if (typeof d !== "string" || !DATE.test(d)) continue
          const day = d.slice(0, 10)
          if (mark === null || day > mark) mark = day
        }
      }
      return { ...step, next: { inner: step.next, since: pos.since, mark, complete: step.done && step.end === undefined } }
    })
  }
})
