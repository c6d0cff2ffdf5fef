/**
 * Checks done before the first request, so a bad setting costs nothing: the warehouse path is a
 * file (or can be one) in a writable folder, and the output folder (and the metrics file's) can be written. Folders are
 * created one level at a time (a recursive mkdir can spin on special file systems such as /proc).
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { InvalidInput } from "../pipeline/RunError.js"

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message

/** Creates `dir` if missing and proves it writable with a probe file. */
const writableDir = (dir: string, field: string): InvalidInput | undefined => {
  const absolute = nodePath.resolve(dir)
  const missing: Array<string> = []
  let existing = absolute
  while (!fs.existsSync(existing)) {
    missing.unshift(existing)
    existing = nodePath.dirname(existing)
  }
  if (!fs.statSync(existing).isDirectory()) {
    return new InvalidInput({ field, detail: `${existing} is a file, not a folder; give a writable folder` })
  }
  try {
    for (const m of missing) fs.mkdirSync(m)
    const probe = nodePath.join(absolute, `.estate-etl-probe-${process.pid}`)
    fs.writeFileSync(probe, "")
    fs.unlinkSync(probe)
    return undefined
  } catch (e) {
    return new InvalidInput({ field, detail: `cannot write to ${absolute} (${codeOf(e)}); give a writable folder` })
  }
}

export const preflight = (options: { readonly warehouse: string; readonly output: string; readonly metricsFile?: string | undefined }) =>
  Effect.suspend(() => {
    const { warehouse, output, metricsFile } = options
    if (metricsFile !== undefined) {
      if (fs.existsSync(metricsFile) && fs.statSync(metricsFile).isDirectory()) {
        return Effect.fail(
          new InvalidInput({
            field: "--metrics-file",
            detail: `${metricsFile} is a folder; give a file path such as metrics/estate_etl.prom`
          })
        )
      }
      const bad = writableDir(nodePath.dirname(metricsFile), "--metrics-file")
      if (bad) return Effect.fail(bad)
    }
    if (warehouse !== ":memory:") {
      if (fs.existsSync(warehouse) && fs.statSync(warehouse).isDirectory()) {
        return Effect.fail(
          new InvalidInput({
            field: "warehouse",
            detail: `${warehouse} is a folder; give a DuckDB file path such as data/warehouse.duckdb`
          })
        )
      }
      const bad = writableDir(nodePath.dirname(warehouse), "warehouse")
      if (bad) return Effect.fail(bad)
    }
    const badOutput = writableDir(output, "output")
    return badOutput ? Effect.fail(badOutput) : Effect.void
  })

/** `--max-units`: a whole number of units, 0 or more. */
export const parseUnits = (text: string, field = "--max-units") => {
  const n = Number(text)
  return /^\d+$/.test(text.trim()) && Number.isSafeInteger(n)
    ? Effect.succeed(n)
    : Effect.fail(new InvalidInput({ field, detail: `a whole number of units, 0 or more (got "${text}")` }))
}

/** A choice among `allowed`, named in the error. */
export const parseChoice = <const A extends string>(text: string, allowed: ReadonlyArray<A>, field: string) =>
  (allowed as ReadonlyArray<string>).includes(text)
    ? Effect.succeed(text as A)
    : Effect.fail(new InvalidInput({ field, detail: `one of ${allowed.join(", ")} (got "${text}")` }))
