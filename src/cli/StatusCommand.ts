/**
 * `status`: the last runs, checkpoints per pipeline, the units spent today and the bill in three
 * lines (balance, month to date, forecast: `BillLines.ts`), read from the
 * warehouse read-only; while a run holds the warehouse (DuckDB's lock is per process, so nothing
 * else can open it), what that run is doing, read from its run-state file without opening DuckDB:
 * "running since ..., PID ...". `--watch` follows the run until it ends, then prints the status.
 * A run-state file whose process is gone (killed, crashed) is named as such. Another holder (the
 * webhook receiver's load, another command) is waited for (`--lock-wait`).
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { RunLog, TableReads } from "../load/Warehouse.js"
import { type RunStateView, viewRunState } from "../monitor/RunStateFile.js"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { configOption, warehouseOption } from "./CommonOptions.js"
import { eur, jsonSafe, table } from "./Format.js"
import { endedLine, liveText, watchLine } from "./LiveStatus.js"
import { type LiveView, readOrShowLive } from "./ReadOrLive.js"
import { lockWaitOption, parseLockWait } from "./LockWait.js"
import { readBill } from "../report/Bill.js"
import { billLines } from "./BillLines.js"

const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table"))

/** The run holding the warehouse, as text or JSON. */
const printLive = (view: LiveView, asJson: boolean) =>
  Effect.sync(() =>
    process.stdout.write(asJson ? JSON.stringify({ running: true, run: view.state }, null, 2) + "\n" : liveText(view.state))
  )

/**
 * Follows the run-state file once a second while its run is live: a line (or a JSON object) each
 * time it changes; then the line that says how it ended. Nothing when no run is live.
 */
const watch = (path: string, asJson: boolean) =>
  Effect.gen(function* () {
    let last = ""
    let view = viewRunState(path)
    if (view.kind !== "live") {
      if (!asJson) process.stderr.write("no run is in progress on this warehouse\n")
      return
    }
    while (view.kind === "live") {
      if (view.state.updatedAt !== last) {
        last = view.state.updatedAt
        process.stdout.write(asJson ? JSON.stringify(view.state) + "\n" : `${watchLine(view.state)}\n`)
      }
      yield* Effect.sleep("1 second")
      view = viewRunState(path)
    }
    if (view.kind === "finished" || view.kind === "stale") {
      if (asJson) process.stdout.write(JSON.stringify({ ...view.state, stale: view.kind === "stale" }) + "\n")
      else process.stdout.write(`${endedLine(view.state, view.kind === "stale")}\n\n`)
    }
  })

/** The warehouse's status (runs, checkpoints, units today), and a note on a run command that is gone. */
const printStatus = (o: { readonly json: boolean; readonly verbose: boolean }, view: RunStateView, dailyCap: number | undefined) =>
  Effect.gen(function* () {
    const w = yield* TableReads
    const log = yield* RunLog
    const runs = yield* log.runs(20)
    // one line per pipeline: slices done / slices with a checkpoint, last update
    const perPipeline = (yield* w.query(
      `SELECT pipeline, CAST(count(*) FILTER (WHERE done) AS INTEGER) AS done, CAST(count(*) AS INTEGER) AS total,
       strftime(max(updated_at), '%Y-%m-%dT%H:%M:%SZ') AS last_update FROM _checkpoints GROUP BY pipeline ORDER BY pipeline`
    )).map((r) => ({ pipeline: String(r.pipeline), done: Number(r.done), total: Number(r.total), lastUpdate: String(r.last_update) }))
    const slices = o.verbose
      ? yield* w.query(`SELECT pipeline, key, done, CAST(updated_at AS VARCHAR) AS updated_at FROM _checkpoints ORDER BY pipeline, key`)
      : undefined
    const since = `${new Date().toISOString().slice(0, 10)}T00:00:00Z`
    // the ledger counts every charge; today's runs should record the same units
    const today = yield* log.unitsSpentSince(since)
    const runsToday = Number(
      (yield* w.query(
        `SELECT coalesce(sum(units_charged), 0) AS u FROM _runs WHERE started_at >= CAST(CAST(? AS TIMESTAMPTZ) AS TIMESTAMP)`,
        [since]
      ))[0]?.u ?? 0
    )
    const bill = yield* readBill({ now: new Date(), dailyCap })
    const stale = view.kind === "stale" ? view.state : undefined
    if (o.json) {
      return process.stdout.write(
        JSON.stringify(
          {
            runs,
            checkpoints: perPipeline,
            ...(slices ? { slices } : {}),
            unitsToday: today,
            unitsOfTodaysRuns: runsToday,
            bill,
            ...(view.kind === "finished" || view.kind === "stale"
              ? { lastRunCommand: { ...view.state, stale: view.kind === "stale" } }
              : {})
          },
          (_k, v) => jsonSafe(v),
          2
        ) + "\n"
      )
    }
    process.stdout.write(
      table(
        runs.map((r) => ({
          run_id: r.runId,
          pipeline: r.pipeline,
          status: r.status,
          started: r.startedAt,
          pages: r.pages,
          requests: r.requests,
          retries: r.retries,
          planned: r.unitsPlanned,
          units: r.unitsCharged,
          error: r.error ?? ""
        }))
      ) + "\n\n"
    )
    process.stdout.write(
      table(perPipeline.map((c) => ({ pipeline: c.pipeline, "slices done": `${c.done} / ${c.total}`, "last update": c.lastUpdate }))) + "\n"
    )
    if (slices) process.stdout.write("\n" + table(slices) + "\n")
    else if (perPipeline.some((c) => c.total > 1)) process.stdout.write("(--verbose lists every slice)\n")
    process.stdout.write(`\nunits spent today: ${today} (${eur(today)})\n`)
    if (Math.abs(today - runsToday) > 1e-9) {
      process.stdout.write(
        `note: runs started today record ${runsToday} units; the ledger counts ${today} since ${since} (runs across midnight, or charges an older warehouse format dropped)\n`
      )
    }
    process.stdout.write(billLines(bill).join("\n") + "\n")
    if (stale) process.stdout.write(`note: ${endedLine(stale, true)}\n`)
  })

export const statusCommand = Command.make(
  "status",
  {
    config: configOption,
    warehouse: warehouseOption,
    json,
    verbose: Options.boolean("verbose").pipe(
      Options.withAlias("v"),
      Options.withDescription("List every slice's checkpoint, not one line per pipeline")
    ),
    watch: Options.boolean("watch").pipe(
      Options.withDescription("Follow a run in progress (a line a change) until it ends, then the status")
    ),
    lockWait: lockWaitOption
  },
  (o) =>
    Effect.gen(function* () {
      const { settings } = yield* loadCliSettingsAndCatalogue(o.config)
      const path = Option.getOrElse(o.warehouse, () => settings.warehouse)
      const waitMs = yield* parseLockWait(o.lockWait)
      if (o.watch) yield* watch(path, o.json)
      // a run holds the warehouse: what it does, from its state file (DuckDB cannot be opened)
      return yield* readOrShowLive(
        path,
        waitMs,
        Effect.suspend(() => printStatus(o, viewRunState(path), settings.budget.dailyMaxUnits)),
        (view) => printLive(view, o.json)
      )
    })
).pipe(
  Command.withDescription(
    "Last runs, checkpoints (one line per pipeline; --verbose: every slice), units spent today and the bill (balance, month to date, when the balance runs out); while a run holds the warehouse, what it is doing (--watch follows it); reads only. Examples: estate-etl status; estate-etl status --watch"
  )
)
