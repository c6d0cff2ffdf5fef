/**
 * `query`: read-only SQL over the warehouse. It opens the file read-only and sealed (nothing
 * outside the warehouse: `COPY ... TO`, `ATTACH`, `INSTALL`/`LOAD` and other files are refused,
 * exit 2, one line); an empty statement is bad input too. SQL DuckDB refuses is exit 2 with its
 * message on one line.
 *
 * While a run holds the warehouse (nothing else can open it then) it says so in one line and
 * offers `--wait` (wait until the run lets go; `--lock-wait` bounds it) or `--parquet` (the Parquet
 * the warehouse last exported). Another holder, such as the webhook receiver's short spool load, is
 * waited for up to `--lock-wait`.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { Warehouse } from "../load/Warehouse.js"
import { WarehouseError } from "../load/WarehouseError.js"
import type { RunState } from "../monitor/RunStateFile.js"
import { viewRunState } from "../monitor/RunStateFile.js"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { configOption, warehouseOption } from "./CommonOptions.js"
import { jsonSafe, table } from "./Format.js"
import { currentLine } from "./LiveStatus.js"
import { lockWait, lockWaitOption, parseLockWait, runText } from "./LockWait.js"
import { exportedAt, exportedDatasets, queryParquet } from "./ParquetQuery.js"
import { readOnlyWarehouse, sealedRefusal, sqlAsInput } from "./WarehouseAccess.js"

/** Whether `sql` holds no statement: only spaces, comments and semicolons. */
export const isEmptySql = (sql: string) =>
  sql
    .replace(/--[^\n]*/g, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/[;\s]/g, "") === ""

/** The one line `query` says while a run holds the warehouse. */
const heldByRun = (path: string, run: RunState, output: string) => {
  const now = currentLine(run)
  const at = exportedAt(exportedDatasets(output))
  return new WarehouseError({
    reason: "Locked",
    path,
    holderPid: run.pid,
    detail:
      `query: ${runText(run)} holds the warehouse ${path}${now ? ` (${now})` : ""}; ` +
      `--wait waits until it ends, --parquet reads ${at ? `the Parquet exported ${at.replace(/\.\d+Z$/, "Z")}` : "the Parquet export (none yet)"}`
  })
}

export const queryCommand = Command.make(
  "query",
  {
    config: configOption,
    warehouse: warehouseOption,
    sql: Args.text({ name: "sql" }),
    json: Options.boolean("json").pipe(Options.withDescription("Print one JSON object per row, a line each (NDJSON), instead of a table")),
    wait: Options.boolean("wait").pipe(
      Options.withDescription("While a run holds the warehouse, wait until it ends (--lock-wait bounds it)")
    ),
    parquet: Options.boolean("parquet").pipe(
      Options.withDescription("Read the Parquet the warehouse last exported (<output>/parquet) instead of the warehouse")
    ),
    lockWait: lockWaitOption
  },
  (o) =>
    Effect.gen(function* () {
      if (isEmptySql(o.sql))
        return yield* new InvalidInput({ field: "query", detail: "no SQL statement given (only spaces, comments or semicolons)" })
      const { settings, catalogue } = yield* loadCliSettingsAndCatalogue(o.config)
      const print = (rows: ReadonlyArray<Record<string, unknown>>) =>
        Effect.sync(() =>
          process.stdout.write((o.json ? rows.map((r) => JSON.stringify(r, (_k, v) => jsonSafe(v))).join("\n") : table(rows)) + "\n")
        )
      if (o.parquet) {
        const history = new Set(catalogue.all.flatMap((p) => p.tables.filter((t) => t.disposition === "history").map((t) => t.name)))
        return yield* Effect.flatMap(queryParquet(settings.output, o.sql, history), print)
      }
      const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
      // --wait: as long as the run takes, unless --lock-wait bounds it
      const waitMs = o.wait && Option.isNone(o.lockWait) ? Number.POSITIVE_INFINITY : yield* parseLockWait(o.lockWait)
      const view = viewRunState(path)
      if (view.kind === "live" && !o.wait) return yield* heldByRun(path, view.state, settings.output)
      return yield* Effect.flatMap(Warehouse, (w) => w.query(o.sql)).pipe(
        Effect.mapError((e) => sealedRefusal(sqlAsInput(e))),
        Effect.flatMap(print),
        Effect.provide(
          readOnlyWarehouse(path, {
            sealed: true,
            ...lockWait(path, waitMs, {
              // a run that took the warehouse meanwhile is not waited for without --wait
              onHeld: (holder) => (holder.run && !o.wait ? Effect.fail(heldByRun(path, holder.run, settings.output)) : Effect.void)
            })
          })
        )
      )
    })
).pipe(
  Command.withDescription(
    `Run read-only SQL over the warehouse (SQL DuckDB refuses, files and extensions are bad input, exit 2); while a run holds it, --wait or --parquet (the last export). Example: estate-etl query "SELECT region, count(*) FROM plots_current GROUP BY 1"`
  )
)
