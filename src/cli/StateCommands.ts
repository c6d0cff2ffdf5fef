/**
 * What the warehouse remembers about pipelines, and how to make it forget (the SQL is in
 * `load/PipelineState.ts`):
 * - `state show [pipeline]`: checkpoints (slice, position or watermark, finished), the last run,
 *   rows of the tables the pipeline lands; reads only.
 * - `state reset <pipeline> [--slice key...]`: forgets checkpoints so the next run starts afresh
 *   (or those slices do); landed rows stay.
 * - `drop <pipeline> --yes`: drops the tables it lands, except those another pipeline's runs
 *   landed rows into, and forgets its state; without `--yes` it prints what it would drop (a
 *   preview, exit 0). Either says how the rows come back, naming only a command that works for
 *   this pipeline: `reload` when its raw archive holds pages it can be rebuilt from, else a run.
 * - `state copy` and `state set` (moving positions between warehouses, setting one by hand) are in
 *   `StateTransferCommands.ts`; what these commands share is in `StateAccess.ts`.
 *
 * A run holds the warehouse (DuckDB's lock on the file, for the run's lifetime): meanwhile each
 * of these is refused with exit 2 and one line, before anything is read or changed.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { closest } from "../config/Suggest.js"
import {
  type ArchivedRun,
  droppable,
  dropPipeline,
  lastArchivedRun,
  type PipelineState,
  pipelinesWithState,
  readPipelineState,
  resetPipelineState,
  type SliceState
} from "../load/PipelineState.js"
import { Warehouse } from "../load/Warehouse.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { grouped, jsonSafe, outputWidth, table, wrap } from "./Format.js"
import { config, knownPipeline, pipelineArg, tablesOf, warehouse, withWarehouse } from "./StateAccess.js"
import { copyCommand, setCommand } from "./StateTransferCommands.js"

/** Slices `state show` lists per pipeline when it shows every pipeline. */
const SLICES_SHOWN = 10

const rowsText = (rows: number | null) => (rows === null ? "not created" : `${grouped(rows)} row${rows === 1 ? "" : "s"}`)

const positionText = (s: SliceState) =>
  s.watermark !== undefined ? `watermark ${s.watermark}` : (JSON.stringify(s.value, (_k, v) => jsonSafe(v)) ?? "")

const printState = (state: PipelineState, allSlices: boolean) => {
  const width = outputWidth()
  const run = state.lastRun
  const lines = [
    `${state.pipeline}: ${run ? `last run ${run.runId} ${run.status}, started ${run.startedAt}${run.error ? ` (${run.error})` : ""}` : "no run recorded"}`
  ]
  const done = state.slices.filter((s) => s.done).length
  lines.push(`  checkpoints: ${state.slices.length} slice${state.slices.length === 1 ? "" : "s"}, ${done} finished`)
  const shown = allSlices ? state.slices : state.slices.slice(0, SLICES_SHOWN)
  if (shown.length > 0) {
    const rows = shown.map((s) => ({ slice: s.key, finished: s.done ? "yes" : "no", updated: s.updatedAt, position: positionText(s) }))
    lines.push(
      ...table(rows, undefined, { width: width - 4, shrink: ["position", "slice"] })
        .split("\n")
        .map((l) => `    ${l}`)
    )
    if (shown.length < state.slices.length) {
      lines.push(`    ... ${state.slices.length - shown.length} more (estate-etl state show ${state.pipeline} lists every slice)`)
    }
  }
  const tables = state.tables.map(
    (t) => `${t.name} (${[rowsText(t.rows), ...(t.sharedWith.length > 0 ? [`also landed by ${t.sharedWith.join(", ")}`] : [])].join(", ")})`
  )
  lines.push(
    ...wrap(`tables: ${tables.length > 0 ? tables.join("; ") : "none"}`, width - 4).map((l, i) => (i === 0 ? `  ${l}` : `    ${l}`))
  )
  process.stdout.write(lines.join("\n") + "\n")
}

const show = Command.make(
  "show",
  { config, warehouse, json: Options.boolean("json").pipe(Options.withDescription("Print JSON")), pipeline: Args.optional(pipelineArg) },
  (o) =>
    withWarehouse("state show", o, false, (pipelines) =>
      Effect.gen(function* () {
        const w = yield* Warehouse
        const present = yield* pipelinesWithState(w)
        const names = Option.isSome(o.pipeline) ? [yield* knownPipeline(pipelines, o.pipeline.value, present)] : present
        const states: Array<PipelineState> = []
        for (const name of names) states.push(yield* readPipelineState(w, name, tablesOf(pipelines, name)))
        if (o.json) return process.stdout.write(JSON.stringify({ warehouse: w.path, pipelines: states }, (_k, v) => jsonSafe(v), 2) + "\n")
        if (states.length === 0) return process.stdout.write(`no pipeline has run against ${w.path} yet\n`)
        states.forEach((s, i) => {
          if (i > 0) process.stdout.write("\n")
          printState(s, Option.isSome(o.pipeline))
        })
      })
    )
).pipe(
  Command.withDescription(
    "Per pipeline: its checkpoints (slices, positions or watermarks, finished or not), its last run and the rows of the tables it lands; reads only. Examples: estate-etl state show; estate-etl state show alerts --json"
  )
)

const reset = Command.make(
  "reset",
  {
    config,
    warehouse,
    slices: Options.text("slice").pipe(
      Options.repeated,
      Options.withDescription("Forget only this slice's checkpoint (repeatable; state show lists them)")
    ),
    pipeline: pipelineArg
  },
  (o) =>
    withWarehouse("state reset", o, true, (pipelines) =>
      Effect.gen(function* () {
        const w = yield* Warehouse
        const name = yield* knownPipeline(pipelines, o.pipeline, yield* pipelinesWithState(w))
        const state = yield* readPipelineState(w, name, tablesOf(pipelines, name))
        const keys = state.slices.map((s) => s.key)
        for (const slice of o.slices) {
          if (keys.includes(slice)) continue
          const best = closest(slice, keys)
          return yield* new InvalidInput({
            field: "--slice",
            detail:
              keys.length === 0
                ? `${name} has no checkpoints, so no slice "${slice}"`
                : `${name} has no slice "${slice}"${best ? `; did you mean ${best}?` : ""}; its slices: ${keys.slice(0, 20).join(", ")}${keys.length > 20 ? `, ... (${keys.length})` : ""}`
          })
        }
        const r = yield* resetPipelineState(w, name, o.slices.length > 0 ? o.slices : undefined)
        const forgot = `forgot ${r.forgotten} checkpoint${r.forgotten === 1 ? "" : "s"}`
        process.stdout.write(
          o.slices.length > 0
            ? `${name}: ${forgot} (${o.slices.join(", ")}); the next run reads ${o.slices.length === 1 ? "it" : "them"} from the start; landed rows kept\n`
            : `${name}: ${forgot}${r.abandonedRun ? `; run ${r.abandonedRun} will not be resumed (marked failed)` : ""}; the next run starts afresh; landed rows kept\n`
        )
      })
    )
).pipe(
  Command.withDescription(
    "Forget a pipeline's checkpoints so its next run starts afresh (an unfinished run is not resumed; incremental slices start again from their beginning); --slice forgets only those slices. Landed rows stay. Examples: estate-etl state reset plots-germany; estate-etl state reset alerts --slice feed=1"
  )
)

export const stateCommand = Command.make("state").pipe(
  Command.withDescription(
    "What the warehouse remembers about each pipeline (checkpoints, watermarks, last run), forgetting it, and moving or setting positions"
  ),
  Command.withSubcommands([show, reset, copyCommand, setCommand])
)

/**
 * How a dropped pipeline's rows come back, naming only what works for it: `reload` when the raw
 * archive holds pages of it and its records can be rebuilt from bodies alone, else a run.
 */
const comingBack = (pipeline: Pipeline | undefined, name: string, archived: ArchivedRun | undefined): string => {
  const run = `\`estate-etl run ${name}\` lands them again`
  if (archived !== undefined && pipeline?.notReloadable === undefined)
    return `\`estate-etl reload ${name}\` re-lands the ${archived.pages} archived page${archived.pages === 1 ? "" : "s"} of run ${archived.runId} (0 units), or ${run}`
  if (pipeline?.host === "token") return `${run} (the token host is not metered)`
  if (archived !== undefined)
    return `${run} (paid answers bought within budget.reuseWithin are reused at 0 units; reload cannot rebuild ${name}: ${pipeline!.notReloadable})`
  return `${run} (paid answers bought within budget.reuseWithin are reused at 0 units)`
}

export const dropCommand = Command.make(
  "drop",
  {
    config,
    warehouse,
    yes: Options.boolean("yes").pipe(Options.withDescription("Drop for real; without it, print what would be dropped (a preview)")),
    pipeline: pipelineArg
  },
  (o) =>
    withWarehouse(
      "drop",
      o,
      o.yes,
      (pipelines) =>
        Effect.gen(function* () {
          const w = yield* Warehouse
          const tables = tablesOf(pipelines, o.pipeline)
          const back = comingBack(
            pipelines.find((p) => p.name === o.pipeline),
            o.pipeline,
            yield* lastArchivedRun(w, o.pipeline)
          )
          const kept = (keep: ReadonlyArray<PipelineState["tables"][number]>) =>
            keep.map((t) => `  keep ${t.name}: other pipelines landed rows into it too (${t.sharedWith.join(", ")})\n`).join("")
          if (!o.yes) {
            const state = yield* readPipelineState(w, o.pipeline, tables)
            const { drop, keep } = droppable(state)
            process.stdout.write(
              `drop ${o.pipeline} would:\n` +
                drop.map((t) => `  drop ${t.name} (${rowsText(t.rows)})\n`).join("") +
                kept(keep) +
                `  forget ${state.slices.length} checkpoint${state.slices.length === 1 ? "" : "s"} (run history and the unit ledger stay)\n` +
                `  afterwards: ${back}\n` +
                `nothing dropped (a preview); estate-etl drop ${o.pipeline} --yes drops what is listed above\n`
            )
            return
          }
          const r = yield* dropPipeline(w, o.pipeline, tables)
          process.stdout.write(
            `${o.pipeline}: dropped ${r.dropped.length > 0 ? r.dropped.join(", ") : "no table (none existed)"}; forgot ${r.forgotten} checkpoint${r.forgotten === 1 ? "" : "s"}` +
              `${r.abandonedRun ? `; run ${r.abandonedRun} will not be resumed` : ""}\n` +
              kept(r.kept) +
              `  left as they are: run history, the unit ledger, exported files and the raw archive\n` +
              `  to land the rows again: ${back}\n`
          )
        }),
      // a pipeline of the catalogue (its declaration says which tables it lands), before any open
      (pipelines) => knownPipeline(pipelines, o.pipeline, [])
    )
).pipe(
  Command.withDescription(
    "Drop the tables a pipeline lands and forget its checkpoints; a table another pipeline also landed rows into is kept. Run history and the unit ledger stay. Without --yes, prints what it would drop (a preview). Example: estate-etl drop plots-germany --yes"
  )
)

/** `state` and `drop`, as the root command lists them. */
export const stateCommands = [stateCommand, dropCommand] as const
