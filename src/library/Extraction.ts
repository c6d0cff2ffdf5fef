/**
 * What a library run returns: the run's summary and the pipeline's tables as read after the
 * run, as Arrow tables or plain objects. In a memory session a table holds exactly what the
 * session landed; in a warehouse session it is the table's whole content after the run. A
 * history table is read as its current rows (the `<table>_current` view: one row per key).
 */
import type * as arrow from "apache-arrow"
import type { BigintMode, RowOf } from "../normalize/RowType.js"
import type { TableSpec } from "../normalize/Table.js"
import type { RunSummary } from "../pipeline/Runner.js"
import { rowsOfArrow } from "./Arrow.js"
import { LibraryError } from "./LibraryError.js"

/** The spec named `N` among `T` (an untyped list: any spec). */
type SpecNamed<T extends ReadonlyArray<TableSpec>, N> = [Extract<T[number], { readonly name: N }>] extends [never]
  ? T[number]
  : Extract<T[number], { readonly name: N }>

/**
 * `T`: the pipeline's table specs, `M`: its main table. For a built-in or a declaration made with
 * `flatTable.of`, names and rows are typed; otherwise names are strings and rows
 * `Record<string, unknown>`.
 */
export interface Extraction<T extends ReadonlyArray<TableSpec> = ReadonlyArray<TableSpec>, M extends string = string> {
  readonly summary: RunSummary
  /** The tables read back (all of the pipeline's unless `read` said otherwise), the main table first. */
  readonly tableNames: ReadonlyArray<T[number]["name"]>
  /** A table as Arrow; default the pipeline's main table. Throws `LibraryError` (UnknownTable) for a table not read. */
  readonly table: (name?: T[number]["name"]) => arrow.Table
  /**
   * A table as plain objects; default the main table. BIGINT as `number` when exact, else
   * `bigint` (`{ bigint: "keep" }`: always `bigint`); DATE and TIMESTAMP as `Date`; JSON as text.
   */
  readonly rows: <N extends T[number]["name"] = M, B extends BigintMode = "auto">(
    name?: N,
    options?: { readonly bigint?: B }
  ) => Array<RowOf<SpecNamed<T, N>, B>>
}

export const makeExtraction = <T extends ReadonlyArray<TableSpec>, M extends string>(
  summary: RunSummary,
  mainTable: M,
  tables: Readonly<Record<string, arrow.Table>>
): Extraction<T, M> => {
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
  const rows = (name?: string, options?: { readonly bigint?: BigintMode }) => rowsOfArrow(table(name), options)
  return { summary, tableNames, table, rows: rows as Extraction<T, M>["rows"] }
}
