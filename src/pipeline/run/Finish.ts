/**
 * Step 4 of a run: finish. A paid page of an unexpected shape is kept (its charge in the ledger,
 * its body in the raw archive), and so is the charge of any other paid answer the run ended on (a
 * body cut off after its headers, a wrong content type), written alone, not as a page, also when a
 * failed landing ended the run after it: the ledger holds what the service charged, not only what
 * landed; completeness is read from `_slices`; the run record gets its
 * status, EUR and error line; a `run_finished` event and the summary close the run.
 */
import { Effect, Either, Predicate, Ref } from "effect"
import { randomUUID } from "node:crypto"
import { Warehouse } from "../../load/Warehouse.js"
import { eurOf } from "../../service/CostGuard.js"
import { UnexpectedShape } from "../../service/ServiceError.js"
import { ExitCode, exitCodeOf, messageOf, rerunHint, statusOf } from "../../shared/ErrorClass.js"
import type { Completeness, RunSummary } from "../Runner.js"
import type { RunContext, RunState } from "./RunContext.js"
import { journalIo } from "../../load/PageJournal.js"
import { encodeParams } from "../Params.js"
import { scopeOf } from "../CloseScope.js"

const isTagged = Predicate.isTagged

/** The charge an error carries from the answer that ended the run (the service's headers said it). */
const chargeOf = (error: unknown): { operation: string; units: number; requestId: string | undefined } | undefined => {
  const e = error as { unitsCharged?: unknown; operation?: unknown; requestId?: unknown } | null
  if (typeof e?.unitsCharged !== "number" || !(e.unitsCharged > 0)) return undefined
  return {
    operation: typeof e.operation === "string" ? e.operation : "unknown",
    units: e.unitsCharged,
    requestId: typeof e.requestId === "string" ? e.requestId : undefined
  }
}

/** `errors` with one error per answer (by its request id, or the same error), in order. */
const oncePerAnswer = <E>(errors: ReadonlyArray<E>): Array<E> => {
  const seen = new Set<unknown>()
  return errors.filter((e) => {
    const id = (e as { requestId?: unknown } | null)?.requestId
    const key = typeof id === "string" ? id : e
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** The answers of an unexpected shape among `errors` that carry their body, one per answer. */
const shapedAnswers = (errors: ReadonlyArray<unknown>): Array<UnexpectedShape> =>
  oncePerAnswer(errors.filter((e): e is UnexpectedShape => e instanceof UnexpectedShape && e.raw !== undefined))

/** The charges of `errors`, one per answer, in order. */
const chargesOf = (errors: ReadonlyArray<unknown>) =>
  oncePerAnswer(errors.filter((e) => chargeOf(e) !== undefined)).map((e) => chargeOf(e)!)

/**
 * The run's completeness from `_slices`: a slice falls short when the distinct keys it read (its
 * records, where a pipeline names no key) fall short of what the service declared and no
 * incremental read caught up with what earlier runs landed, or when it stalled, hit a service
 * limit or shifted beyond repair. A slice cut by a cap the user set (`maxPages`) falls short too,
 * unless the run is a sample (`sample`): then the cap is reported, not a shortfall.
 */
export const completenessOf = (pipeline: string, runId: string, sample = false) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    const slices = yield* warehouse.slices(runId)
    const shortfalls: Array<string> = []
    const caps: Array<string> = []
    const caughtUp: Array<string> = []
    let declared = 0,
      received = 0,
      landed = 0,
      rejected = 0
    for (const s of slices) {
      declared += s.declared ?? 0
      received += s.received
      landed += s.landed
      rejected += s.rejected
      // runs recorded before distinct keys were counted: landed plus rejected records
      const distinct = s.distinct ?? s.landed + s.rejected
      const keys = distinct !== s.received ? `, distinct keys ${distinct}` : ""
      const numbers = `declared ${s.declared ?? "no count"}, received ${s.received}${keys}, landed ${s.landed}, rejected ${s.rejected}`
      const name = `${pipeline} slice ${s.slice}`
      if (s.endedBy === "cap") {
        if (sample) caps.push(`${name} capped by ${s.endDetail} (a sample): ${numbers}`)
        else
          shortfalls.push(
            `${name} cut by ${s.endDetail} before the service's end: ${numbers}; drop the cap to read everything (bound the spend with --max-units), or pass --sample`
          )
      } else if (s.endedBy === "caught-up") caughtUp.push(`${name} (${s.endDetail}): ${numbers}`)
      else if (s.endedBy === "stalled" || s.endedBy === "limit" || s.endedBy === "shifted")
        shortfalls.push(`${name} stopped (${s.endDetail}): ${numbers}`)
      else if (s.done && s.declared !== null && distinct < s.declared) shortfalls.push(`${name}: ${numbers}`)
    }
    const missing = yield* warehouse.missingCount(runId)
    return { declared, received, landed, rejected, missing, shortfalls, caps, caughtUp } satisfies Completeness
  })

/**
 * Whether a run that ended `done` is a complete full pull: every slice it read (all of them, or
 * all of its shard's) reached the service's end (no cap, no stall, no limit, no incremental stop)
 * and none read only part by design (`Pager.partial`: a read since a date; an incremental pager
 * that does not say counts as partial). Only such a pull closes what it no longer sees, and only
 * its pages price the next full pull in `plan`.
 */
export const isFullPull = (run: RunContext, status: string, completeness: Completeness) =>
  Effect.gen(function* () {
    if (status !== "done" || run.request.sample === true) return false
    if (completeness.shortfalls.length > 0 || completeness.caps.length > 0 || completeness.caughtUp.length > 0) return false
    const slices = yield* run.warehouse.slices(run.runId)
    if (slices.length === 0 || !slices.every((s) => s.done && s.endedBy === null)) return false
    const sharded = run.request.shard !== undefined && run.request.shard.count > 1
    if (!sharded && slices.length !== run.plan.slices) return false
    const declared = yield* Effect.either(run.pipeline.source.slices(run.params))
    if (Either.isLeft(declared)) return false
    const pagers = new Map(declared.right.map((s) => [s.key, s.pager] as const))
    const positions = new Map((yield* run.warehouse.checkpoints(run.pipeline.name)).map((c) => [c.key, c] as const))
    for (const s of slices) {
      const pager = pagers.get(s.slice)
      const position = positions.get(s.slice)
      if (pager === undefined || position === undefined || position.runId !== run.runId) return false
      if (pager.partial ? pager.partial(position.value) : pager.incremental === true) return false
    }
    return true
  })

export const finishRun = (run: RunContext, state: RunState, error: unknown) =>
  Effect.gen(function* () {
    const { pipeline, runId, warehouse } = run
    const { drained, fetchFailures = [] } = yield* Ref.get(state)
    // once landing has drained the queue every journaled page is in the warehouse; otherwise the
    // journal keeps them for the resume
    if (run.writer && drained) yield* journalIo(() => run.writer!.finish())
    // every answer of an unexpected shape with its body: the one that ended the run and those of
    // slices whose calls were out beside it (charged too: a rerun must reuse them, not buy them again)
    const shaped = shapedAnswers([error, ...fetchFailures])
    // the answer that ended the run, and those that ended the fetching (every slice's: paid calls
    // in flight side by side may fail charged together; a failed landing may end the run after them)
    const charges = chargesOf([error, ...fetchFailures])
    const at = new Date().toISOString()
    const ledger = charges.map((charge) => ({
      // an answer without an id gets one of its own (as a page's: `extract/Responses.ts`), so a
      // resume's does not merge into an earlier run's under the same run id
      requestId: charge.requestId ?? `unknown-${randomUUID()}`,
      operation: charge.operation,
      units: charge.units,
      at
    }))
    const charged = ledger.reduce((sum, l) => sum + l.units, 0)
    let took = 0
    if (shaped.length > 0 && run.archive && drained) {
      // paid pages whose bodies had an unexpected shape: each body in the raw archive as a page of
      // the run (the charges with the first), so a rerun reuses them and `reload` after a settings
      // fix lands them at 0 units (only once every queued page landed: the journal's page numbers
      // must stay in step with `_runs.pages`)
      yield* warehouse.commitPages(
        shaped.map((s, i) => ({
          runId,
          pipeline: pipeline.name,
          rows: new Map(),
          ledger: i === 0 ? ledger : [],
          rejects: [],
          requests: 0,
          retries: 0,
          raw: { pageKey: "unexpected-shape", body: s.raw!, ...(s.request ? { request: s.request } : {}) }
        }))
      )
      took = charged
    } else if (ledger.length > 0) {
      // any other charged answer goes in alone, not as a page (`_runs.pages` counts pages; those a
      // failed landing left wait in the journal for the resume); a warehouse that takes nothing
      // more (the landing's failure) leaves it named in the log
      took = yield* warehouse
        .recordCharges(runId, pipeline.name, ledger)
        .pipe(
          Effect.catchAll((e) =>
            Effect.as(
              Effect.logWarning(
                `${pipeline.name}: the service charged ${charged} unit(s) for ${ledger.map((l) => `request ${l.requestId} (${l.operation})`).join(", ")}, whose answer failed; not in the ledger: ${e.detail}`
              ),
              0
            )
          )
        )
    }
    if (took > 0) yield* Ref.update(state, (s) => ({ ...s, totals: { ...s.totals, units: s.totals.units + took } }))
    const found = yield* completenessOf(pipeline.name, runId, run.request.sample === true)
    // a cap the user set that stopped the run (`--max-units`, the daily cap) is reported as a cap
    const unitCap =
      isTagged(error, "BudgetExhausted") && (error as { reason?: string }).reason !== "RetryBudget"
        ? [
            `${pipeline.name} stopped by the ${(error as { reason?: string }).reason === "DailyCap" ? "daily unit cap" : "unit cap (--max-units)"}: ${found.landed} records landed so far; resume to go on`
          ]
        : []
    const completeness: Completeness = { ...found, caps: [...found.caps, ...unitCap] }
    const status = error !== undefined ? statusOf(error) : completeness.shortfalls.length > 0 ? "incomplete" : "done"
    const message =
      error !== undefined
        ? messageOf(error) + rerunHint(error)
        : completeness.shortfalls.length > 0
          ? `incomplete: ${completeness.shortfalls[0]}${completeness.shortfalls.length > 1 ? ` (and ${completeness.shortfalls.length - 1} more slices; see _slices)` : ""}`
          : undefined
    const { totals, rowsPerTable } = yield* Ref.updateAndGet(state, (s) => ({
      ...s,
      totals: { ...s.totals, elapsedMs: Date.now() - run.started }
    }))
    const eur = eurOf(totals.units)
    const { unlanded } = yield* Ref.get(state)
    yield* warehouse.updateRun(runId, { eur, ...(unlanded ? { addRequests: unlanded.requests, addRetries: unlanded.retries } : {}) })
    const full = error === undefined && (yield* isFullPull(run, status, completeness))
    const shard = run.request.shard !== undefined && run.request.shard.count > 1 ? run.request.shard : undefined
    const closed = yield* warehouse.finishRun(runId, status, message, {
      pipeline: pipeline.name,
      scope: scopeOf(pipeline, encodeParams(pipeline, run.params)),
      full,
      shard: shard ? `${shard.index}/${shard.count}` : undefined,
      closeAt: run.extractedAt,
      scopeOfRun: (params) => scopeOf(pipeline, params),
      tables: pipeline.tables
    })
    yield* run.progress.emit({
      type: "run_finished",
      pipeline: pipeline.name,
      runId,
      status,
      totals,
      expected: run.refine.expected(),
      error: message
    })
    const summary: RunSummary = {
      pipeline: pipeline.name,
      runId,
      status,
      resumed: run.resumed,
      plan: run.plan,
      expected: run.refine.expected(),
      totals,
      rowsPerTable: { ...rowsPerTable },
      eur,
      error: message,
      exitCode: error !== undefined ? exitCodeOf(error) : status === "incomplete" ? ExitCode.Incomplete : ExitCode.Done,
      completeness,
      fullPull: full,
      closed
    }
    return summary
  })
