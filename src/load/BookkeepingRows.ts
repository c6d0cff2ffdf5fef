/**
 * The bookkeeping tables' columns as a landing group writes them (`GroupLanding.ts`), each with
 * its JSON type and, where the table wants another, the expression that makes it, and the insert
 * of many rows as one JSON literal (`JsonRows.ts`). The tables themselves: `Bookkeeping.ts`.
 */
import { TS } from "./Bookkeeping.js"
import { ident } from "./Database.js"
import { type Cell, columnList, type RowColumn, selectRows } from "./JsonRows.js"

const text = (name: string): RowColumn => ({ name, type: "VARCHAR" })
const whole = (name: string): RowColumn => ({ name, type: "BIGINT" })
const real = (name: string): RowColumn => ({ name, type: "DOUBLE" })
const flag = (name: string): RowColumn => ({ name, type: "BOOLEAN" })
/** A timestamp, given as its ISO text (UTC wall time, as `TS` writes it). */
const time = (name: string): RowColumn => ({ name, type: "VARCHAR", as: TS })

/** A run's record as it starts (`_runs`; the counters and the end are the table's defaults, then updates). */
export const RUN_START_COLUMNS = [
  text("run_id"),
  text("pipeline"),
  { name: "params", type: "VARCHAR", as: (f) => `CAST(${f} AS JSON)` },
  time("started_at"),
  text("status"),
  real("units_planned"),
  real("eur"),
  real("units_full")
] satisfies Array<RowColumn>
export const CHECKPOINT_COLUMNS = [
  text("pipeline"),
  text("run_id"),
  text("key"),
  { name: "value", type: "VARCHAR", as: (f) => `CAST(${f} AS JSON)` },
  flag("done"),
  time("updated_at")
] satisfies Array<RowColumn>
export const LEDGER_COLUMNS = [
  text("request_id"),
  text("run_id"),
  text("pipeline"),
  text("operation"),
  real("units"),
  time("at"),
  real("units_remaining")
]
export const REJECT_COLUMNS = [text("run_id"), text("pipeline"), text("table_name"), text("reason"), text("raw"), time("at")]
export const RAW_PAGE_COLUMNS = [
  text("run_id"),
  text("pipeline"),
  whole("seq"),
  text("page_key"),
  text("path"),
  whole("bytes"),
  time("at"),
  text("operation"),
  text("request_key"),
  time("bought_at"),
  real("units")
]
export const SLICE_COLUMNS = [
  text("run_id"),
  text("pipeline"),
  text("slice"),
  whole("declared"),
  whole("received"),
  whole("landed"),
  whole("rejected"),
  whole("pages"),
  text("ended_by"),
  text("end_detail"),
  flag("done"),
  time("updated_at"),
  whole("distinct_keys")
]
export const CALL_COLUMNS = [
  text("run_id"),
  text("pipeline"),
  whole("seq"),
  text("slice"),
  whole("slice_seq"),
  text("operation"),
  text("request_id"),
  whole("requests"),
  whole("retries"),
  real("units"),
  time("started_at"),
  real("ms")
]
/** The key hashes as hex (`hashesHex`), stored as their bytes. */
export const SLICE_KEY_COLUMNS = [
  text("run_id"),
  text("slice"),
  { name: "keys", type: "VARCHAR", as: (f) => `from_hex(${f})` }
] satisfies Array<RowColumn>
export const MISSING_COLUMNS = [
  text("run_id"),
  text("pipeline"),
  text("key"),
  whole("status"),
  text("request_id"),
  text("detail"),
  time("at")
]

/** An insert of `rows` into a bookkeeping table (`JsonRows.ts`: one JSON literal, not a `VALUES` list). */
export const insertInto = (table: string, columns: ReadonlyArray<RowColumn>, rows: ReadonlyArray<ReadonlyArray<Cell>>) =>
  `INSERT INTO ${table} ${columnList(columns)} ${selectRows(columns, rows)}`

/**
 * An upsert of `rows` into a bookkeeping table by its primary key `key`, as DuckDB's `MERGE`: a
 * row whose key is there gets `update` (column -> expression over the target, named by the table,
 * and the new row, `_s`; none: left as it is), any other is inserted; `returning` names what the
 * rows it writes give back (without `update`: only the inserted ones). Not `INSERT ... ON
 * CONFLICT`: on a freshly opened file (a run's first group) a one-row `ON CONFLICT` took 11.4 ms
 * of CPU a table, the same `MERGE` 5.5 ms, and 5.2 against 2.5 ms after (DuckDB 1.5.5, 8 keyed tables, `.scratch/first.mjs`, not kept); a group
 * writes up to six of these. The rows' keys must be distinct (`MERGE` refuses a second row of a
 * key, where `ON CONFLICT DO NOTHING` kept the first): the callers merge them first.
 */
export const mergeInto = (
  table: string,
  columns: ReadonlyArray<RowColumn>,
  rows: ReadonlyArray<ReadonlyArray<Cell>>,
  key: ReadonlyArray<string>,
  options: { readonly update?: Readonly<Record<string, string>> | "all"; readonly returning?: string } = {}
) => {
  const names = columns.map((c) => ident(c.name))
  const update =
    options.update === "all"
      ? Object.fromEntries(columns.filter((c) => !key.includes(c.name)).map((c) => [c.name, `_s.${ident(c.name)}`]))
      : options.update
  return `MERGE INTO ${table} USING (${selectRows(columns, rows)}) AS _s(${names.join(", ")})
    ON ${key.map((k) => `${table}.${ident(k)} = _s.${ident(k)}`).join(" AND ")}
    ${
      update
        ? `WHEN MATCHED THEN UPDATE SET ${Object.entries(update)
            .map(([c, e]) => `${ident(c)} = ${e}`)
            .join(", ")}`
        : ""
    }
    WHEN NOT MATCHED THEN INSERT ${columnList(columns)} VALUES (${names.map((n) => `_s.${n}`).join(", ")})${options.returning ? ` RETURNING ${options.returning}` : ""}`
}
