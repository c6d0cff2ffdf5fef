/**
 * Normalize stage: each record of a page is decoded with the pipeline's record schema and turned
 * into rows of its table and child tables. A record that fails its schema becomes a `_rejects`
 * row with the reason and the raw JSON; the page goes on.
 */
import { Either, ParseResult, type Schema } from "effect"
import { makeRecordDecoder } from "../service/schema/FastDecode.js"
import type { Row, Rows } from "./Table.js"
import { stringifyJson } from "../shared/ExactJson.js"

export interface Reject {
  readonly table: string
  readonly reason: string
  readonly raw: string
}

export interface Normalized {
  readonly rows: Map<string, Array<Row>>
  readonly rejects: Array<Reject>
  readonly records: number
}

/** How a pipeline turns records into rows. */
export interface RecordMapping<R, Ctx = unknown> {
  /** The table rejects are reported against (the pipeline's main table). */
  readonly table: string
  /** Decodes one record; failures become rejects. */
  readonly schema: Schema.Schema<R, any>
  /** Rows of one decoded record, by table. `ctx` carries the page's context (slice key, run). */
  readonly toRows: (record: R, ctx: Ctx) => Rows
  /**
   * A record's key as the service sent it (before decoding; undefined when it has none), for
   * progress by content (`extract/SeenKeys.ts`): a page of keys its slice read before is a repeat.
   * Default: the main table's one primary-key column read from the record's member of that name.
   */
  readonly key?: ((record: unknown) => string | number | bigint | undefined | null) | undefined
}

/** Schema errors as one short line: `path: message; path: message`. */
export const describeParseError = (error: ParseResult.ParseError): string => {
  const byPath = new Map<string, string>()
  for (const i of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = i.path.length ? i.path.join(".") : "(record)"
    if (!byPath.has(path)) byPath.set(path, i.message) // a union reports each member; the first says it
  }
  return [...byPath]
    .slice(0, 5)
    .map(([path, message]) => `${path}: ${message}`)
    .join("; ")
}

export const makeNormalizer = <R, Ctx>(mapping: RecordMapping<R, Ctx>) => {
  // checks compiled once from the schema; a failing record gets Effect's own ParseError
  const decode = makeRecordDecoder(mapping.schema)
  return (records: ReadonlyArray<unknown>, ctx: Ctx): Normalized => {
    const rows = new Map<string, Array<Row>>()
    const rejects: Array<Reject> = []
    for (const record of records) {
      const decoded = decode(record)
      if (Either.isLeft(decoded)) {
        rejects.push({ table: mapping.table, reason: describeParseError(decoded.left), raw: stringifyJson(record) })
        continue
      }
      let out: Rows
      try {
        out = mapping.toRows(decoded.right, ctx)
      } catch (e) {
        rejects.push({ table: mapping.table, reason: `normalize: ${String(e)}`, raw: stringifyJson(record) })
        continue
      }
      for (const t in out) {
        const list = rows.get(t)
        if (list) for (const r of out[t]!) list.push(r)
        else rows.set(t, out[t]!.slice())
      }
    }
    return { rows, rejects, records: records.length }
  }
}
