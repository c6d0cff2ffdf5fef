/**
 * Sources that read their keys from an earlier table (`properties-match` from `alerts`,
 * `sourcing-properties` from `sourcing_properties`, ...) on a warehouse that does not hold that
 * table yet: a plan counts 0 keys "known after the earlier pipeline runs", a run lands nothing,
 * and both say so in one line instead of failing on DuckDB's catalog error.
 */
import type { Pipeline } from "../pipeline/Pipeline.js"

export interface MissingKeyTable {
  readonly table: string
  readonly column: string
}

/** The pipelines of the catalogue (built-ins and the user's: `Catalogue.all`) that write `table`. */
export const writersOf = (table: string, catalogue: ReadonlyArray<Pipeline>): ReadonlyArray<string> =>
  catalogue.filter((p) => p.tables.some((t) => t.name === table)).map((p) => p.name)

/** Collects the missing key tables seen while one pipeline is planned or run. */
export const makeMissingKeyTables = () => {
  let seen: Array<MissingKeyTable> = []
  return {
    /** For `makeEnvironment({ onMissingKeyTable })`. */
    record: (table: string, column: string) => {
      if (!seen.some((s) => s.table === table && s.column === column)) seen.push({ table, column })
    },
    /** What was seen since the last call, and forget it. */
    take: (): ReadonlyArray<MissingKeyTable> => {
      const out = seen
      seen = []
      return out
    }
  }
}

const or = (names: ReadonlyArray<string>) => names.join(" or ")

/** The plan's note: `earlier` are the pipelines planned before this one, in the order they run. */
export const planNote = (missing: MissingKeyTable, earlier: ReadonlyArray<string>, catalogue: ReadonlyArray<Pipeline>): string => {
  const writers = writersOf(missing.table, catalogue)
  const before = writers.filter((w) => earlier.includes(w))
  return before.length > 0
    ? `0 keys yet: ${missing.table}.${missing.column} is written by ${or(before)}, earlier in this plan; known after it runs`
    : writers.length > 0
      ? `0 keys yet: no table ${missing.table} in the warehouse; known after ${or(writers)} runs`
      : `0 keys: no table ${missing.table} in the warehouse`
}

/** The run's note, printed after its summary. */
export const runNote = (pipeline: string, missing: MissingKeyTable, catalogue: ReadonlyArray<Pipeline>): string => {
  const writers = writersOf(missing.table, catalogue)
  return (
    `${pipeline}: 0 keys: no table ${missing.table} in the warehouse yet (its keys come from ${missing.table}.${missing.column})` +
    (writers.length > 0 ? `; run ${or(writers)} first, or give the keys as parameters` : "")
  )
}
