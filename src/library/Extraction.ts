/**
 * What a library run returns: the run's summary and the pipeline's tables as read after the
 * run, as Arrow tables or plain objects. In a memory session a table holds exactly what the
 * session landed; in a warehouse session it is the table's whole content after the run. A
 * history table is read as its current rows (the `<table>_current` view: one row per key).
 */
import type * as arrow from "apache-arrow"
import type { RunSummary } from "../pipeline/Runner.js"
import { rowsOfArrow } from "./Arrow.js"
import { LibraryError } from "./LibraryError.js"

export interface Extraction {
  readonly summary: RunSummary
  /** The tables read back (all of the pipeline's unless `read` said otherwise), the main table first. */
  readonly tableNames: ReadonlyArray<string>
  /** A table as Arrow; default the pipeline's main table. Throws `LibraryError` (UnknownTable) for other names. */
  readonly table: (name?: string) => arrow.Table
  /** A table as plain objects (BIGINT as number when exact, dates as `Date`); default the main table. */
  readonly rows: (name?: string) => Array<Record<string, unknown>>
}

export const makeExtraction = (summary: RunSummary, mainTable: string, tables: Readonly<Record<string, arrow.Table>>): Extraction => {
  const tableNames = Object.keys(tables)
  const table = (name: string = mainTable) => {
    const t = tables[name]
    if (t === undefined) {
      throw new LibraryError({
        reason: "UnknownTable",
        pipeline: summary.pipeline,
        runId: summary.runId,
        detail: `no table ${name} in this extraction (read: ${tableNames.join(", ") || "none"}); query the session for others`
      })
    }
    return t
  }
  return { summary, tableNames, table, rows: (name?: string) => rowsOfArrow(table(name)) }
}
