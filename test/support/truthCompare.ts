/**
 * A warehouse against the sandbox's ground truth (`groundTruth.ts`): every table's keys as a
 * multiset, the exact row counts, the exact `_missing` keys. Used by the dialect matrix and the
 * probe's dialect runs.
 */
import type { Truth } from "./groundTruth.js"
import { queryWarehouse } from "./queryWarehouse.js"

/** A row as `groundTruth` writes keys: the select list's values joined by `|`. */
const keyOf = (row: Record<string, unknown>) =>
  Object.values(row)
    .map((v) => (v === null || v === undefined ? "null" : String(v)))
    .join("|")

/** Multiset difference: what the truth has that the table lacks, and what the table has beyond it. */
const diff = (got: ReadonlyArray<string>, want: ReadonlyArray<string>) => {
  const left = new Map<string, number>()
  for (const k of want) left.set(k, (left.get(k) ?? 0) + 1)
  const extra: Array<string> = []
  for (const k of got) {
    const n = left.get(k) ?? 0
    if (n > 0) left.set(k, n - 1)
    else extra.push(k)
  }
  const missing = [...left].flatMap(([k, n]) => Array.from({ length: n }, () => k))
  return { missing, extra }
}

export interface Comparison {
  readonly exact: boolean
  /** One line per table or count that differs: expected vs got, with a few keys. */
  readonly problems: ReadonlyArray<string>
  /** Keys landed that the truth does not have (wrong rows, whatever the status). */
  readonly foreign: ReadonlyArray<string>
}

/**
 * The warehouse against the truth; keys in `optional` (records that left a list while it was
 * read) may be there or not, and child-table counts are then not compared.
 */
export const compare = async (
  warehouse: string,
  pipeline: string,
  truth: Truth,
  optional: ReadonlySet<string> = new Set()
): Promise<Comparison> => {
  const problems: Array<string> = []
  const foreign: Array<string> = []
  const results = await queryWarehouse(warehouse, [
    ...truth.tables.map((t) => `SELECT ${t.select} FROM ${t.table}`),
    ...truth.counts.map((c) => c.sql),
    `SELECT "key" FROM _missing WHERE pipeline = '${pipeline}'`
  ])
  for (const [i, t] of truth.tables.entries()) {
    const got = results[i]!.map(keyOf)
    const d0 = diff(got, t.keys)
    const d = { missing: d0.missing.filter((k) => !optional.has(k)), extra: d0.extra }
    if (d.missing.length > 0 || d.extra.length > 0) {
      problems.push(
        `${t.table}: expected ${t.keys.length} rows, got ${got.length} (${d.missing.length} missing, e.g. ${JSON.stringify(d.missing.slice(0, 3))}; ${d.extra.length} extra, e.g. ${JSON.stringify(d.extra.slice(0, 3))})`
      )
    }
    foreign.push(...d.extra.map((k) => `${t.table}:${k}`))
  }
  for (const [i, c] of truth.counts.entries()) {
    if (optional.size > 0) continue
    const n = results[truth.tables.length + i]![0]!.n
    if (n !== c.expected) problems.push(`${c.label}: expected ${c.expected} rows, got ${n}`)
  }
  const missing = results[results.length - 1]!.map((r) => String(r.key))
  const dm = diff(missing, truth.missing)
  if (dm.missing.length > 0 || dm.extra.length > 0) {
    problems.push(`_missing: expected ${JSON.stringify([...truth.missing].sort())}, got ${JSON.stringify(missing.sort())}`)
  }
  return { exact: problems.length === 0, problems, foreign }
}
