/**
 * The extract interpreter: a source declaration and the checkpoints of the warehouse become the
 * run's pages, each handed to the caller's `accept` inside its slice (`extractInto`): one loop
 * per slice, slices side by side up to the source's concurrency. A page carries its records, its
 * slice's new position (the checkpoint) and what it cost.
 */
import { Cause, Deferred, Duration, Effect, Option } from "effect"
import { type CallGate, CurrentCallGate } from "../service/CallGate.js"
import { type Attempts, countAttempts } from "../service/RetryBudget.js"
import { isNotFound, serviceLimitOf } from "../service/ServiceError.js"
import { keyHash, SeenKeys } from "./SeenKeys.js"
import type { Checkpoint, Missing, Page } from "./Page.js"
import type { Fetched, PagerStep, Slice, Source } from "./Source.js"
import { fnv1a } from "../shared/Fnv.js"
import { firstLine } from "../shared/ErrorClass.js"

export type { Checkpoint, Missing, Page }

/** How a run starts its slices. */
export interface ExtractPlan {
  /** `resume`: continue the unfinished run; `fresh`: a new run (incremental slices keep their watermark). */
  readonly mode: "resume" | "fresh"
  /**
   * Saved positions by slice key, each with the run that saved it. A resumed run goes on only from
   * its own: a slice an earlier run finished is read again, as a fresh run would (else a run
   * paused before it reached a slice would end `done` without reading it).
   */
  readonly positions: ReadonlyMap<string, { readonly value: unknown; readonly done: boolean; readonly runId?: string | undefined }>
  /** The run walking the slices (a resumed run's own id). */
  readonly runId?: string | undefined
  /** This machine's share of the slices: index in 0..count-1. */
  readonly shard?: { readonly index: number; readonly count: number } | undefined
  /**
   * A record's key as text (its main table's primary key), for progress by content: a page
   * whose records are all keys its slice read before is a repeat, and the slice stops at once.
   * Undefined for a record without a readable key (it never makes a page a repeat).
   */
  readonly identity?: ((record: unknown, slice: string) => string | undefined) | undefined
  /** The key hashes a slice read earlier in this run (a resumed run's slices go on from them). */
  readonly seen?: ((slice: string) => Iterable<number>) | undefined
  /**
   * How long, once a slice failed, the requests in flight on the other slices may take to be read
   * and handed on, ms (`extractInto`): the request timeout. Default 30,000.
   */
  readonly settleMs?: number | undefined
  /** Told each slice's failure as it happens (the run records each one's charge). */
  readonly failed?: ((cause: Cause.Cause<unknown>) => Effect.Effect<void>) | undefined
  /** Told the requests, retries and 429s of a page that failed or was interrupted (no page counts them). */
  readonly failedAttempts?: ((attempts: Attempts) => Effect.Effect<void>) | undefined
}

/** FNV-1a of a slice key: the shard a slice belongs to, the same on every machine. */
export const shardOf = (key: string, count: number): number => fnv1a(key) % count

/** The position a slice starts from, or none when it has nothing left in this run. */
const startOf = (slice: Slice<any, any, any>, plan: ExtractPlan): Option.Option<unknown> => {
  const saved = plan.positions.get(slice.key)
  if (plan.mode === "resume" && saved && (saved.runId === undefined || saved.runId === plan.runId))
    return saved.done ? Option.none() : Option.some(saved.value)
  return Option.some(slice.pager.start(slice.pager.incremental ? (saved?.value as any) : undefined))
}

/** The slices of `source` for `params` that this run (and this shard) must walk, with their start. */
export const activeSlices = <P, R, E, Ctx>(source: Source<P, R, E, Ctx>, params: P, plan: ExtractPlan) =>
  Effect.map(source.slices(params), (slices) =>
    slices.flatMap((slice) => {
      if (plan.shard && shardOf(slice.key, plan.shard.count) !== plan.shard.index) return []
      return Option.match(startOf(slice, plan), { onNone: () => [], onSome: (start) => [{ slice, start }] })
    })
  )

const nothing: Fetched<never> = { records: [], raw: "", units: 0, charges: [] }

/** A 404 of a slice that treats missing keys as data: an empty last page that names the key. */
const missingStep = <R>(
  slice: Slice<R, any, any>,
  position: unknown,
  error: { status?: number; requestId?: string | undefined; message: string }
) => ({
  fetched: { ...nothing, records: slice.missing?.records?.() ?? [] } as Fetched<R>,
  next: position,
  done: true,
  missing: { key: slice.key, status: error.status ?? 404, requestId: error.requestId, detail: firstLine(error.message) } satisfies Missing
})

type Step<R> = PagerStep<unknown, R> & { readonly missing?: Missing }

/** A limit the service named (`page_depth_exceeded`): the slice ends there, with what it read. */
const limitStep = <R>(position: unknown, detail: string): Step<R> => ({
  fetched: nothing as Fetched<R>,
  next: position,
  done: true,
  end: { kind: "limit", detail: `${detail}; what was reachable landed; narrow the query (by place, price, type or date) to read the rest` }
})

/** Fetches the page of `slice` at `position` (its `seq`-th in this run) and what follows it. */
const fetchStep = <R, E, Ctx>(slice: Slice<R, E, Ctx>, position: unknown, seq: number, failedAttempts: ExtractPlan["failedAttempts"]) => {
  const limited = Effect.catchIf(
    slice.pager.fetch(position) as Effect.Effect<Step<R>, E, Ctx>,
    (e) => serviceLimitOf(e) !== undefined,
    (e) => Effect.succeed(limitStep<R>(position, serviceLimitOf(e)!))
  )
  const fetch = slice.missing
    ? Effect.catchIf(limited, isNotFound, (e) => Effect.succeed(missingStep(slice, position, e as never) as Step<R>))
    : limited
  return countAttempts(fetch, failedAttempts).pipe(
    Effect.withSpan("Extract.page", { attributes: { slice: slice.key, seq }, captureStackTrace: false })
  )
}

/** The first keys of a page for a line about it. */
const someKeys = (keys: ReadonlyArray<string>) =>
  `${keys
    .slice(0, 3)
    .map((k) => JSON.stringify(k))
    .join(", ")}${keys.length > 3 ? `, ... (${keys.length} in all)` : ""}`

/**
 * Judges a page by its content: how many keys it brings that its slice had not read. A page of
 * records whose keys were all read before (and not read again on purpose) is a repeat: the slice
 * stops at once as `stalled`, before any further call, naming the operation, the page and keys.
 */
const judge = <R>(
  step: Step<R>,
  seen: SeenKeys,
  identity: ((record: unknown, slice: string) => string | undefined) | undefined,
  slice: string,
  seq: number
): { readonly step: Step<R>; readonly fresh: number; readonly freshKeys?: Float64Array | undefined } => {
  const records = step.fetched.records
  if (records.length === 0 || step.missing) return { step, fresh: 0 }
  if (identity === undefined) return { step, fresh: records.length }
  const hashes: Array<number> = []
  const repeated: Array<string> = []
  let unkeyed = 0
  for (const r of records) {
    let key: string | undefined
    try {
      key = identity(r, slice)
    } catch {
      key = undefined
    }
    if (key === undefined) {
      unkeyed++
      continue
    }
    const h = keyHash(key)
    if (seen.add(h)) hashes.push(h)
    else if (repeated.length < 4) repeated.push(key)
  }
  const fresh = hashes.length + unkeyed
  const freshKeys = hashes.length > 0 ? Float64Array.from(hashes) : undefined
  if (fresh > 0 || step.reread) return { step, fresh, freshKeys }
  const operation = step.fetched.operation ?? "the operation"
  return {
    step: {
      ...step,
      next: step.next,
      done: true,
      end: {
        kind: "stalled",
        detail: `${operation} page ${seq + 1} brought no new key: its ${records.length} record(s) were read before in this slice (${someKeys(repeated)}); the service did not page as asked`
      }
    },
    fresh: 0
  }
}

/** Runs `effect`, noting when it began (ISO) and its wall time, ms. */
const timed = <A, E, Ctx>(effect: Effect.Effect<A, E, Ctx>) =>
  Effect.suspend(() => {
    const startedAt = new Date().toISOString()
    const t0 = performance.now()
    return Effect.map(effect, (a) => [a, { startedAt, ms: Math.round((performance.now() - t0) * 10) / 10 }] as const)
  })

/** Fetches and judges the page of `slice` at `position` (its `seq`-th in this run) and what follows it. */
const step = <R, E, Ctx>(slice: Slice<R, E, Ctx>, position: unknown, seq: number, seen: SeenKeys, plan: ExtractPlan) =>
  Effect.map(timed(fetchStep(slice, position, seq, plan.failedAttempts)), ([[fetched, attempts], timing]) => {
    const { step, fresh, freshKeys } = judge(fetched, seen, plan.identity, slice.key, seq)
    // a stalled slice keeps its position unfinished, so a resume asks again from there
    const stalled = step.end?.kind === "stalled"
    const page: Page<R> = {
      slice: slice.key,
      seq,
      fetched: step.fetched,
      checkpoint: { key: slice.key, value: stalled ? position : step.next, done: step.done && !stalled },
      declared: step.declared,
      end: step.end,
      missing: step.missing,
      attempts,
      timing,
      fresh,
      ...(freshKeys ? { freshKeys } : {})
    }
    return { page, next: step.next, done: step.done }
  })

/** The keys a slice starts from: none, or what it read earlier in a resumed run. */
const seenOf = (plan: ExtractPlan, slice: string): SeenKeys => {
  const seen = new SeenKeys()
  if (plan.seen) for (const h of plan.seen(slice)) seen.add(h)
  return seen
}

/**
 * A slice's pages, each handed to `accept` before the next is fetched: a plain loop, no stream per
 * page. It asks for no page once `stopping` says so (another slice failed).
 */
const walkInto = <R, E, Ctx, E2, Ctx2>(
  slice: Slice<R, E, Ctx>,
  start: unknown,
  plan: ExtractPlan,
  accept: (page: Page<R>) => Effect.Effect<void, E2, Ctx2>,
  stopping: () => boolean
): Effect.Effect<void, E | E2, Ctx | Ctx2> =>
  Effect.gen(function* () {
    const seen = seenOf(plan, slice.key)
    let position = start
    for (let seq = 0; !stopping(); seq++) {
      const { page, next, done } = yield* step(slice, position, seq, seen, plan)
      yield* accept(page)
      if (done) return
      position = next
    }
  })

/** How many slices a source walks at once for these parameters. */
export const concurrencyOf = <P>(source: Source<P, any, any, any>, params: P): number => {
  const c = source.concurrency
  return Math.max(1, typeof c === "function" ? c(params) : (c ?? 1))
}

/**
 * Walks the slices and hands every page to `accept` *inside* its slice: a slice fetches its next
 * page only once `accept` has returned, so `accept` decides what must be safe before the next
 * paid call (the runner returns once the page is in its journal and queue; see `run/Fetch.ts`).
 *
 * When a slice fails, the others stop at their next page or request (`CallGate.ts`), not in a
 * request already sent (charged whether its answer is read or not): its page is read and handed to
 * `accept`, never bought again. What still runs after `plan.settleMs` is interrupted. Each slice's
 * failure goes to `plan.failed` as it happens; the extract fails with the first.
 */
export const extractInto = <P, R, E, Ctx, E2, Ctx2>(
  source: Source<P, R, E, Ctx>,
  params: P,
  plan: ExtractPlan,
  accept: (page: Page<R>) => Effect.Effect<void, E2, Ctx2>
): Effect.Effect<void, E | E2, Ctx | Ctx2> =>
  Effect.flatMap(activeSlices(source, params, plan), (active) =>
    Effect.gen(function* () {
      let first: Cause.Cause<E | E2> | undefined
      const stopped = yield* Deferred.make<void>()
      const gate: CallGate = { open: () => first === undefined }
      const walk = ({ slice, start }: (typeof active)[number]) =>
        walkInto(slice, start, plan, accept, () => first !== undefined).pipe(
          Effect.withSpan("Extract.slice", { attributes: { slice: slice.key } }),
          Effect.catchAllCause((cause) =>
            // a slice the closed gate stopped is no failure (an interruption while it is open is one)
            first !== undefined && Cause.isInterruptedOnly(cause)
              ? Effect.void
              : Effect.zipRight(
                  Effect.suspend(() => {
                    first ??= cause
                    return plan.failed ? plan.failed(cause) : Effect.void
                  }),
                  Deferred.succeed(stopped, undefined)
                )
          )
        )
      const settled = Effect.zipRight(Deferred.await(stopped), Effect.sleep(Duration.millis(plan.settleMs ?? 30_000)))
      yield* Effect.locally(
        Effect.raceFirst(Effect.forEach(active, walk, { concurrency: concurrencyOf(source, params), discard: true }), settled),
        CurrentCallGate,
        gate
      )
      if (first !== undefined) yield* Effect.failCause(first)
    })
  )
