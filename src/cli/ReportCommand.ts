/**
 * `report --out report.html`: the spend report (units and EUR per day, pipeline and run against
 * the settings' caps, rows, durations, statuses, rejects, missing keys, shortfalls) as one
 * self-contained HTML page. Reads the warehouse read-only, as `status` does; the charts' library
 * (Observable Plot on linkedom) is loaded only here (`report/PlotSvg.ts`).
 */
import { configOption, warehouseOption } from "./CommonOptions.js"
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { readReportData } from "../report/ReportData.js"
import { readOnlyWarehouse } from "./WarehouseAccess.js"

const config = configOption
const warehouse = warehouseOption
const out = Options.text("out").pipe(
  Options.withAlias("o"),
  Options.withDefault("report.html"),
  Options.withDescription("HTML file to write (default report.html; its folder is created)")
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

export const reportCommand = Command.make("report", { config, warehouse, out }, (o) =>
  Effect.gen(function* () {
    const { settings } = yield* loadCliSettingsAndCatalogue(o.config)
    const path = yield* checkOut(nodePath.resolve(o.out))
    const data = yield* readReportData({ runUnits: settings.budget.maxUnits, dailyUnits: settings.budget.dailyMaxUnits }).pipe(
      Effect.provide(readOnlyWarehouse(Option.getOrElse(o.warehouse, () => settings.warehouse)))
    )
    const { reportPage } = yield* Effect.promise(() => import("../report/ReportPage.js"))
    yield* writeWhole(path, yield* Effect.promise(() => reportPage(data)))
    const t = data.totals
    process.stdout.write(
      `wrote ${path}: ${t.runs} runs, ${t.units} units (EUR ${t.eur.toFixed(2)}), ${t.rejects} rejects, ${t.missing} missing keys\n`
    )
  })
).pipe(
  Command.withDescription(
    "Write the spend report, one HTML page that opens offline: units and EUR per day, pipeline and run against the caps, rows, durations, statuses, rejects, missing keys, shortfalls; reads only. Example: estate-etl report --out data/report.html"
  )
)
