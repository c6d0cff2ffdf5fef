/**
 * `report --out report.html`: the spend report (the balance, this month, when the balance runs
 * out at the last 7 days' rate; units and EUR per day, pipeline and run against the settings'
 * caps, planned against charged, units per 1,000 rows, what refresh saved; rows, durations,
 * statuses, rejects, missing keys, shortfalls) as one self-contained HTML page. `--since` /
 * `--month` bound it to a period. Reads the warehouse read-only, as `status` does; the charts' library
 * (Observable Plot on linkedom) is loaded only here (`report/PlotSvg.ts`).
 */
import { configOption, warehouseOption } from "./CommonOptions.js"
import { Command, Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { readReportData } from "../report/ReportData.js"
import { reportPeriod } from "../report/ReportPeriod.js"
import { readOnlyWarehouse } from "./WarehouseAccess.js"
import { billLines } from "./BillLines.js"

const config = configOption
const warehouse = warehouseOption
const out = Options.text("out").pipe(
  Options.withAlias("o"),
  Options.withDefault("report.html"),
  Options.withDescription("HTML file to write (default report.html; its folder is created)")
)

const since = Options.text("since").pipe(
  Options.optional,
  Options.withDescription("Runs and charges from this UTC day on, YYYY-MM-DD (default: every run)")
)
const month = Options.text("month").pipe(
  Options.optional,
  Options.withDescription("One UTC month, YYYY-MM: its runs, charges and total (default: every run; the total of this month)")
)

/** Writes `text` to `path` whole or not at all (a reader never sees half a page). */
const writeWhole = (path: string, text: string) =>
  Effect.try({
    try: () => {
      fs.mkdirSync(nodePath.dirname(path), { recursive: true })
      const tmp = `${path}.${process.pid}.tmp`
      fs.writeFileSync(tmp, text)
      fs.renameSync(tmp, path)
    },
    catch: (e) => new InvalidInput({ field: "--out", detail: `cannot write ${path}: ${(e as Error).message}` })
  })

const checkOut = (path: string) =>
  fs.existsSync(path) && fs.statSync(path).isDirectory()
    ? Effect.fail(new InvalidInput({ field: "--out", detail: `${path} is a folder; give a file name such as data/report.html` }))
    : Effect.succeed(path)

export const reportCommand = Command.make("report", { config, warehouse, out, since, month }, (o) =>
  Effect.gen(function* () {
    const now = new Date()
    const period = yield* Either.match(reportPeriod({ since: o.since, month: o.month }, now), {
      onLeft: (e) => Effect.fail(e),
      onRight: (p) => Effect.succeed(p)
    })
    const { settings } = yield* loadCliSettingsAndCatalogue(o.config)
    const path = yield* checkOut(nodePath.resolve(o.out))
    const caps = { runUnits: settings.budget.maxUnits, dailyUnits: settings.budget.dailyMaxUnits }
    const data = yield* readReportData(caps, period, now).pipe(
      Effect.provide(readOnlyWarehouse(Option.getOrElse(o.warehouse, () => settings.warehouse)))
    )
    const { reportPage } = yield* Effect.promise(() => import("../report/ReportPage.js"))
    yield* writeWhole(path, yield* Effect.promise(() => reportPage(data)))
    const t = data.totals
    process.stdout.write(
      `wrote ${path} (${period.label}): ${t.runs} runs, ${t.units} units (EUR ${t.eur.toFixed(2)}), ${t.rejects} rejects, ${t.missing} missing keys\n` +
        billLines(data.bill).join("\n") +
        "\n"
    )
  })
).pipe(
  Command.withDescription(
    "Write the spend report, one HTML page that opens offline: the balance and when it runs out at the last 7 days' rate, this month's units and EUR, units per day, pipeline and run against the caps, planned against charged, units per 1,000 rows, what refresh saved; reads only. Examples: estate-etl report --out data/report.html; estate-etl report --month 2026-11 --out data/november.html"
  )
)
