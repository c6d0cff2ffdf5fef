/**
 * `query --parquet`: SQL over the Parquet the warehouse last exported (`<output>/parquet/<table>/`),
 * for when a run holds the warehouse (nothing else can open it then). Each table's folder is a view
 * of its files in an in-memory DuckDB (hive partitions read back as columns); a history table's
 * folder holds its current rows, so it is also `<table>_current`, as in the warehouse.
 *
 * Read-only as `query` is: once the views exist, DuckDB may touch only those files
 * (`allowed_paths`, `enable_external_access=false`, then `lock_configuration`), and only statements
 * that read (SELECT, and EXPLAIN of one) run: `COPY ... TO` one of the export's own files is refused
 * before it runs.
 */
import type { DuckDBConnection } from "@duckdb/node-api"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { duckdb } from "../load/DuckDbApi.js"
import { ident, literal, rowsOf } from "../load/Database.js"
import { jsValue } from "../load/Warehouse.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { sealedRefusal } from "./WarehouseAccess.js"

/** Statement types that read: SELECT (FROM, WITH, VALUES, SHOW, DESCRIBE, SUMMARIZE, PRAGMA reads) and EXPLAIN. */
/** The statements `query` runs (read when a statement is checked: reading DuckDB's enum at import would load DuckDB in every command). */
const isRead = (type: number) => type === duckdb.StatementType.SELECT || type === duckdb.StatementType.EXPLAIN

/** The Parquet files under `dir` (following the export's links), absolute. */
const parquetFiles = (dir: string): Array<string> => {
  const out: Array<string> = []
  const visit = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = nodePath.join(d, e.name)
      if (e.isDirectory()) visit(p)
      else if (e.isFile() && e.name.endsWith(".parquet")) out.push(p)
    }
  }
  visit(fs.realpathSync(dir))
  return out.sort()
}

/** The exported datasets: folder name -> its files (folders without files, an empty table, are left out). */
export const exportedDatasets = (output: string): Map<string, Array<string>> => {
  const root = nodePath.resolve(output, "parquet")
  const sets = new Map<string, Array<string>>()
  if (!fs.existsSync(root)) return sets
  for (const name of fs.readdirSync(root).sort()) {
    if (name.startsWith(".")) continue
    const dir = nodePath.join(root, name)
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue
    const files = parquetFiles(dir)
    if (files.length > 0) sets.set(name, files)
  }
  return sets
}

/** When the Parquet under `output` was last written (its newest file), ISO. */
export const exportedAt = (sets: ReadonlyMap<string, ReadonlyArray<string>>): string | undefined => {
  let newest = 0
  for (const files of sets.values()) for (const f of files) newest = Math.max(newest, fs.statSync(f).mtimeMs)
  return newest === 0 ? undefined : new Date(newest).toISOString()
}

const refused = (detail: string) => new InvalidInput({ field: "query", detail })

/** Rows of `sql` over the Parquet export under `output`; `historyTables` also get a `<table>_current` view. */
export const queryParquet = (output: string, sql: string, historyTables: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const sets = exportedDatasets(output)
    if (sets.size === 0) {
      return yield* refused(
        `no Parquet export under ${nodePath.resolve(output, "parquet")}: \`export\` (or \`run --export parquet\`) writes one`
      )
    }
    return yield* Effect.acquireUseRelease(
      Effect.promise(async () => {
        const instance = await duckdb.DuckDBInstance.create(":memory:", {
          autoinstall_known_extensions: "false",
          autoload_known_extensions: "true"
        })
        const conn = await instance.connect()
        await conn.run("SET TimeZone = 'UTC'")
        for (const [name, files] of sets) {
          const from = `read_parquet([${files.map(literal).join(", ")}], hive_partitioning = true, union_by_name = true)`
          await conn.run(`CREATE VIEW ${ident(name)} AS SELECT * FROM ${from}`)
          if (historyTables.has(name) && !sets.has(`${name}_current`))
            await conn.run(`CREATE VIEW ${ident(`${name}_current`)} AS SELECT * FROM ${ident(name)}`)
        }
        // from here on, DuckDB may open these files and nothing else, and cannot be told otherwise
        await conn.run(`SET allowed_paths = [${[...sets.values()].flat().map(literal).join(", ")}]`)
        await conn.run("SET enable_external_access = false")
        await conn.run("SET lock_configuration = true")
        return { instance, conn }
      }),
      ({ conn }) =>
        Effect.tryPromise({
          try: async () => {
            await checkReads(conn, sql)
            return (await rowsOf(conn, sql)).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsValue(v)])))
          },
          catch: (e) => (e instanceof InvalidInput ? e : sealedRefusal(refused(oneLine(e))))
        }),
      ({ conn, instance }) =>
        Effect.sync(() => {
          conn.closeSync()
          instance.closeSync()
        })
    )
  })

/** Refuses any statement of `sql` that does not only read. */
const checkReads = async (conn: DuckDBConnection, sql: string) => {
  const statements = await conn.extractStatements(sql)
  for (let i = 0; i < statements.count; i++) {
    const prepared = await statements.prepare(i)
    const type = prepared.statementType
    if (!isRead(type)) {
      throw refused(
        `reads only: a ${String(duckdb.StatementType[type] ?? type).replace(/_/g, " ")} statement is refused (COPY ... TO: use \`export\`)`
      )
    }
  }
}

const oneLine = (e: unknown) =>
  (e instanceof Error ? e.message : String(e))
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^LINE \d+:/.test(l) && !/^\^+$/.test(l))
    .join(" ")
