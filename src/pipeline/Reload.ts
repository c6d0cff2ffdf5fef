/**
 * `reload`: re-normalises a run's archived raw pages into the tables, after a schema or mapping
 * fix, without calling the service: zero requests, zero units. It is recorded as a run of its own
 * and moves no checkpoint.
 */
import { Effect, Either, Option } from "effect"
import { makeRawArchive } from "../load/RawArchive.js"
import { Warehouse } from "../load/Warehouse.js"
import { makeNormalizer } from "../normalize/Normalizer.js"
import type { PageContext, Pipeline } from "./Pipeline.js"
import { InvalidInput } from "./RunError.js"
import { readList, type ResponseShape } from "../service/ResponseShape.js"
import { ServiceSettings } from "../service/ServiceSettings.js"
import { shapeOf } from "../service/Shapes.js"
import { newRunId } from "./RunId.js"
import { parseJson } from "../shared/ExactJson.js"

/**
 * The default reading of a raw body: the records list where the operation's response shape says
 * (with the settings' `service.shapes` override, so a page archived as an unexpected shape lands
 * once the setting is fixed); a body that is a single object is the one record.
 */
export const recordsOfRaw = (raw: string, shape: ResponseShape = shapeOf("")): ReadonlyArray<unknown> => {
  if (raw.trim() === "") return []
  const body = parseJson(raw)
  if (Array.isArray(body)) return body
  return Either.match(readList(body, shape), {
    onRight: (page) => page.records,
    onLeft: () => {
      const results = (body as { results?: unknown } | null)?.results
      return results !== undefined && results !== null && !Array.isArray(results) ? [results] : [body]
    }
  })
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

export const reloadPipeline = (pipeline: Pipeline, fromRunId?: string) =>
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
    const latest = yield* warehouse.query(
      `SELECT run_id FROM _raw_pages WHERE pipeline = ? GROUP BY run_id ORDER BY max("at") DESC LIMIT 1`,
      [pipeline.name]
    )
    const from = fromRunId ?? Option.getOrUndefined(Option.fromNullable(latest[0]?.run_id as string | undefined))
    if (from === undefined) {
      return yield* new InvalidInput({
        field: "reload",
        detail: `${pipeline.name} has no archived pages; raw bodies are kept for platform pipelines (or archiveRaw: true)`
      })
    }
    const pages = yield* warehouse.rawPages(from)
    if (pages.length === 0) return yield* new InvalidInput({ field: "--run", detail: `run ${from} kept no raw pages` })

    yield* warehouse.ensureTables(pipeline.tables)
    const runId = newRunId(pipeline.name, "reload")
    yield* warehouse.startRun({ runId, pipeline: pipeline.name, params: { reloadOf: from }, unitsPlanned: 0 })
    const archive = makeRawArchive(warehouse.rawRoot)
    const normalize = makeNormalizer(pipeline.records)
    const settings = yield* Effect.serviceOption(ServiceSettings)
    const shape = shapeOf(pipeline.cost.operation, Option.match(settings, { onNone: () => ({}), onSome: (s) => s.shapes }))
    const readRecords = pipeline.fromRaw ?? ((raw: string) => recordsOfRaw(raw, shape))
    const extractedAt = new Date().toISOString()
    let records = 0
    let rows = 0
    let rejects = 0
    for (const page of pages) {
      const body = yield* archive.read(page.path)
      const ctx: PageContext = { runId, slice: page.pageKey, extractedAt }
      const normalized = normalize(readRecords(body), ctx)
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
