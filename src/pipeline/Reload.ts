/**
 * `reload`: re-normalises a run's archived raw pages into the tables, after a schema, mapping or
 * response-shape fix, without calling the service: zero requests, zero units. It is recorded as a
 * run of its own and moves no checkpoint.
 *
 * Each page is read as the operation that answered it (`_raw_pages.operation`; the pipeline's
 * own operation for pages archived without one), through that operation's response shape as the
 * settings say now (`service.shapes`), so the body that stopped a run with `UnexpectedShape`
 * (page key `unexpected-shape`) lands once the setting is fixed. Every page is read before
 * anything is written: a body that still does not fit stops the reload with `UnexpectedShape`
 * (exit 7) and the warehouse as it was, never as a reject of the whole body.
 */
import { Effect, Either, Option } from "effect"
import { makeRawArchive } from "../load/RawArchive.js"
import { Warehouse } from "../load/Warehouse.js"
import type { RawPageRecord } from "../load/PageCommit.js"
import { lastArchivedRun } from "../load/PipelineState.js"
import { makeNormalizer } from "../normalize/Normalizer.js"
import type { PageContext, Pipeline } from "./Pipeline.js"
import { InvalidInput } from "./RunError.js"
import { bodyStart, readList, type ShapeOverride } from "../service/ResponseShape.js"
import { UnexpectedShape } from "../service/ServiceError.js"
import { ServiceSettings } from "../service/ServiceSettings.js"
import { DEFAULT_SHAPES, shapeOf } from "../service/Shapes.js"
import { newRunId } from "./RunId.js"
import { parseJson } from "../shared/ExactJson.js"
import { redactText } from "../shared/Redaction.js"

/** Response shape overrides by operation (`service.shapes`). */
export type Shapes = Readonly<Record<string, ShapeOverride | undefined>>

const describe = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`)

/**
 * The records of an archived body that `operation` answered. A list operation's body is read
 * through its response shape (`shapes` over its default, `service/Shapes.ts`); any other
 * operation answers one record (an object; a list of them, or a `results` envelope, is read as
 * such). `Left`: what was expected and what the body holds.
 */
export const recordsOfRaw = (raw: string, operation: string, shapes: Shapes = {}): Either.Either<ReadonlyArray<unknown>, string> => {
  if (raw.trim() === "") return Either.right([])
  const body = parseJson(raw)
  if (operation in DEFAULT_SHAPES) return Either.map(readList(body, shapeOf(operation, shapes)), (page) => page.records)
  if (Array.isArray(body)) return Either.right(body)
  if (typeof body !== "object" || body === null) return Either.left(`expected a record (an object), found ${describe(body)}`)
  const results = (body as { results?: unknown }).results
  if (Array.isArray(results)) return Either.right(results)
  return Either.right(results !== undefined && results !== null && typeof results === "object" ? [results] : [body])
}

export interface ReloadSummary {
  readonly pipeline: string
  readonly runId: string
  readonly from: string
  readonly pages: number
  readonly records: number
  readonly rows: number
  readonly rejects: number
}

/**
 * Reloads `fromRunId` (default: the pipeline's last run with archived pages). `shapes`: the
 * settings' `service.shapes`; without them, those of the `ServiceSettings` in context, if any.
 */
export const reloadPipeline = (pipeline: Pipeline, fromRunId?: string, shapes?: Shapes) =>
  Effect.gen(function* () {
    const warehouse = yield* Warehouse
    if (pipeline.notReloadable !== undefined) {
      return yield* new InvalidInput({
        field: "reload",
        detail: `${pipeline.name} cannot be reloaded from its raw pages: ${pipeline.notReloadable}; run it again instead`
      })
    }
    if (warehouse.rawRoot === undefined) {
      return yield* new InvalidInput({ field: "reload", detail: "this warehouse keeps no raw archive (in-memory or archiving off)" })
    }
    const from = fromRunId ?? (yield* lastArchivedRun(warehouse, pipeline.name))?.runId
    if (from === undefined) {
      return yield* new InvalidInput({
        field: "reload",
        detail: `${pipeline.name} has no archived pages; raw bodies are kept for platform pipelines (or archiveRaw: true)`
      })
    }
    const pages = yield* warehouse.rawPages(from)
    if (pages.length === 0) return yield* new InvalidInput({ field: "--run", detail: `run ${from} kept no raw pages` })

    const overrides: Shapes =
      shapes ??
      Option.match(yield* Effect.serviceOption(ServiceSettings), {
        onNone: () => ({}),
        onSome: (s) => s.shapes
      })
    const archive = makeRawArchive(warehouse.rawRoot)
    /** A page's records, or the `UnexpectedShape` its body is under the current shapes. */
    const recordsOf = (page: RawPageRecord) =>
      Effect.flatMap(archive.read(page.path), (body) => {
        if (pipeline.fromRaw) return Effect.succeed(pipeline.fromRaw(body))
        const operation = page.operation ?? pipeline.cost.operation
        return Either.match(recordsOfRaw(body, operation, overrides), {
          onRight: (records) => Effect.succeed(records),
          onLeft: (detail) =>
            Effect.fail(
              new UnexpectedShape({
                operation,
                host: pipeline.host,
                detail,
                bodyStart: redactText(bodyStart(body)),
                archived: { runId: from, pageKey: page.pageKey, pipeline: pipeline.name }
              })
            )
        })
      })
    // every body is read before anything is written: one that does not fit leaves the warehouse as it was
    for (const page of pages) yield* recordsOf(page)

    yield* warehouse.ensureTables(pipeline.tables)
    const runId = newRunId(pipeline.name, "reload")
    yield* warehouse.startRun({ runId, pipeline: pipeline.name, params: { reloadOf: from }, unitsPlanned: 0 })
    const normalize = makeNormalizer(pipeline.records)
    const extractedAt = new Date().toISOString()
    let records = 0
    let rows = 0
    let rejects = 0
    for (const page of pages) {
      const ctx: PageContext = { runId, slice: page.pageKey, extractedAt }
      const normalized = normalize(yield* recordsOf(page), ctx)
      yield* warehouse.commitPage({
        runId,
        pipeline: pipeline.name,
        extractedAt,
        rows: normalized.rows,
        ledger: [],
        rejects: normalized.rejects,
        requests: 0,
        retries: 0
      })
      records += normalized.records
      rejects += normalized.rejects.length
      for (const list of normalized.rows.values()) rows += list.length
    }
    yield* warehouse.finishRun(runId, "done")
    const summary: ReloadSummary = { pipeline: pipeline.name, runId, from, pages: pages.length, records, rows, rejects }
    return summary
  })
