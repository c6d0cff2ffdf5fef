/**
 * Arrow tables for people: as plain objects, and as Arrow IPC files that pyarrow, polars and R's
 * arrow read. Query results become Arrow tables in `src/export/ArrowExport.ts` (`queryArrowWith`,
 * which also documents the DuckDB -> Arrow type mapping).
 */
import * as arrow from "apache-arrow"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { exactNumber, type ReadOptions } from "./PlainRows.js"

const isDateType = (t: arrow.DataType) => arrow.DataType.isDate(t) || arrow.DataType.isTimestamp(t)

/** A Decimal128 value (four little-endian words, unscaled) as a number. */
const decimalNumber = (words: Uint32Array, scale: number) => {
  let v = 0n
  for (let w = 3; w >= 0; w--) v = (v << 32n) | BigInt(words[w]!)
  return Number(BigInt.asIntN(128, v)) / 10 ** scale
}

/** Nested values (lists, structs, maps) as plain arrays and objects, all the way down. */
const plain = (v: unknown, keep: boolean): unknown => {
  if (v === null || v === undefined) return null
  if (typeof v === "bigint") return keep ? v : exactNumber(v)
  if (typeof v !== "object" || v instanceof Date) return v
  if (v instanceof arrow.MapRow) return Object.fromEntries([...(v as Iterable<[string, unknown]>)].map(([k, x]) => [k, plain(x, keep)]))
  if (v instanceof arrow.Vector) return [...v].map((x) => plain(x, keep))
  if (v instanceof arrow.StructRow) return Object.fromEntries(Object.entries(v.toJSON()).map(([k, x]) => [k, plain(x, keep)]))
  return v
}

/**
 * An Arrow table as plain objects: Int64 as `number` when it fits exactly (else `bigint`; with
 * `bigint: "keep"` always `bigint`), dates and timestamps as `Date`, DECIMAL as `number`, lists,
 * structs and maps as plain arrays and objects, the rest as Arrow gives it (strings, numbers,
 * booleans, null). The same conventions as `query` (`PlainRows.ts`).
 */
export const rowsOfArrow = (table: arrow.Table, options: ReadOptions = {}): Array<Record<string, unknown>> => {
  const keep = options.bigint === "keep"
  const fields = table.schema.fields
  const columns = fields.map((f) => ({
    name: f.name,
    vector: table.getChild(f.name)!,
    date: isDateType(f.type),
    scale: arrow.DataType.isDecimal(f.type) ? f.type.scale : undefined,
    nested: arrow.DataType.isList(f.type) || arrow.DataType.isStruct(f.type) || arrow.DataType.isMap(f.type)
  }))
  const out: Array<Record<string, unknown>> = new Array(table.numRows)
  for (let r = 0; r < table.numRows; r++) {
    const row: Record<string, unknown> = {}
    for (const c of columns) {
      const v: unknown = c.vector.get(r)
      row[c.name] =
        v === null || v === undefined
          ? null
          : c.date
            ? new Date(Number(v))
            : c.scale !== undefined
              ? decimalNumber(v as Uint32Array, c.scale)
              : c.nested
                ? plain(v, keep)
                : typeof v === "bigint" && !keep
                  ? exactNumber(v)
                  : v
    }
    out[r] = row
  }
  return out
}

/**
 * Writes `table` as an Arrow IPC *file* (the random-access format, `.arrow`; read with
 * `pyarrow.ipc.open_file`, `polars.read_ipc`, R `arrow::read_ipc_file`). The file appears
 * atomically (written beside it, then renamed). Returns the rows and bytes written.
 */
export const writeArrowFile = (
  table: arrow.Table,
  path: string
): { readonly path: string; readonly rows: number; readonly bytes: number } => {
  fs.mkdirSync(nodePath.dirname(nodePath.resolve(path)), { recursive: true })
  const bytes = arrow.tableToIPC(table, "file")
  const tmp = `${path}.${process.pid}.tmp`
  fs.writeFileSync(tmp, bytes)
  fs.renameSync(tmp, path)
  return { path, rows: table.numRows, bytes: bytes.byteLength }
}

/** Reads an Arrow IPC file (or stream) back into a table. */
export const readArrowFile = (path: string): arrow.Table => arrow.tableFromIPC(fs.readFileSync(path))
