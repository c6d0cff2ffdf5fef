/**
 * What identifies a record of a pipeline's answers, for progress by content: the declaration's
 * own `records.key`, else the main table's single primary-key column read from the raw record.
 * A pipeline without either is not judged by content (its pages count their records).
 */
import type { Pipeline } from "./Pipeline.js"

const text = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" || typeof v === "bigint" ? String(v) : undefined

/** `identity(record, slice)`: the record's key as text, or undefined when it has none. */
export const identityOf = (pipeline: Pipeline): ((record: unknown, slice: string) => string | undefined) | undefined => {
  const own = pipeline.records.key
  if (own) return (record) => text(own(record))
  const main = pipeline.tables.find((t) => t.name === pipeline.records.table)
  if (main === undefined || main.primaryKey.length !== 1) return undefined
  const column = main.primaryKey[0]!
  return (record) => (typeof record === "object" && record !== null ? text((record as Record<string, unknown>)[column]) : undefined)
}
