/**
 * Moving incremental positions between warehouses, and setting one by hand (the SQL is in
 * `load/StateTransfer.ts`):
 *
 * - `state copy <pipeline> --from <warehouse> [--to <warehouse>] [--replace]`: the pipeline's
 *   checkpoints (every slice's position and watermark, finished or not) from another warehouse
 *   into this one (`--to`, default the settings' warehouse; created when it does not exist), so
 *   its next run here goes on where the other left off. Rows are not copied.
 * - `state set <pipeline> <slice> <position>`: one slice's position, as a JSON object with the
 *   members its position has (`state show --json` prints them), or an instant for a slice whose
 *   position has a watermark (`alerts`' `watermark`, `seller-leads`' `mark`).
 *
 * Every input is checked before the warehouse is written, with "did you mean" (exit 2): the
 * pipeline, the slice, the members of a position, the files. Nothing is lost: a copy over
 * checkpoints the target has is refused unless `--replace`, and what either replaces is printed
 * with the command that sets it back.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { suggestion } from "../config/Suggest.js"
import type { CheckpointRecord } from "../load/PageCommit.js"
import { copyCheckpoints, pipelinesWithCheckpoints, setCheckpoint, unfinishedRun } from "../load/StateTransfer.js"
import { Warehouse } from "../load/Warehouse.js"
import { InvalidInput } from "../pipeline/RunError.js"
import { loadCliSettingsAndCatalogue } from "../wiring/Catalogue.js"
import { jsonSafe } from "./Format.js"
import { config, knownPipeline, pipelineArg, warehouse, withWarehouse } from "./StateAccess.js"
import { existingWarehouse, existingWritableWarehouse, readOnlyWarehouse } from "./WarehouseAccess.js"

const json = (v: unknown) => JSON.stringify(v, (_k, x) => jsonSafe(x))

/** A shell word: single-quoted when it holds anything a shell would read. */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`)

/** The options that point `state set` where this command pointed: the settings file, then the warehouse. */
const pointing = (config: Option.Option<string>, warehouse: Option.Option<string>) =>
  (Option.isSome(config) ? ` --config ${shellWord(config.value)}` : "") +
  (Option.isSome(warehouse) ? ` --warehouse ${shellWord(warehouse.value)}` : "")

const setBackLine = (pipeline: string, c: CheckpointRecord, where: string) =>
  `  ${c.key}: ${json(c.value)}   (to set it back: estate-etl state set ${pipeline} ${shellWord(c.key)} ${shellWord(json(c.value))}${where})\n`

const copy = Command.make(
  "copy",
  {
    config,
    from: Options.text("from").pipe(Options.withDescription("The warehouse to copy the positions from (read only)")),
    to: Options.text("to").pipe(
      Options.optional,
      Options.withDescription("The warehouse to copy them into (default from settings: data/warehouse.duckdb); created when missing")
    ),
    replace: Options.boolean("replace").pipe(
      Options.withDescription("Replace the checkpoints the target has of the pipeline (printed, with how to set them back)")
    ),
    pipeline: pipelineArg
  },
  (o) =>
    Effect.gen(function* () {
      const { settings, catalogue } = yield* loadCliSettingsAndCatalogue(o.config)
      const from = nodePath.resolve(yield* existingWarehouse(o.from).pipe(Effect.mapError(asField("--from"))))
      const to = nodePath.resolve(Option.getOrElse(o.to, () => settings.warehouse))
      if (fs.existsSync(to) && fs.realpathSync(to) === fs.realpathSync(from))
        return yield* new InvalidInput({ field: "--to", detail: `${to} is the warehouse --from names; give another one` })
      // the source, read-only: which pipelines it holds positions of, and this one's
      const source = yield* Effect.gen(function* () {
        const w = yield* Warehouse
        const present = yield* pipelinesWithCheckpoints(w)
        const name = yield* knownPipeline(catalogue.all, o.pipeline, present)
        const checkpoints = yield* w.checkpoints(name)
        if (checkpoints.length === 0)
          return yield* new InvalidInput({
            field: "--from",
            detail: `${from} holds no checkpoints of ${name}; ${present.length > 0 ? `it holds those of ${present.join(", ")}` : "it holds none of any pipeline"}`
          })
        return { name, checkpoints }
      }).pipe(Effect.provide(readOnlyWarehouse(from)))
      const { name, checkpoints } = source
      const existed = fs.existsSync(to)
      const result = yield* Effect.gen(function* () {
        const w = yield* Warehouse
        const running = yield* unfinishedRun(w, name)
        if (running !== undefined)
          return yield* new InvalidInput({
            field: "--to",
            detail: `${name}'s last run in ${to} (${running.runId}) is ${running.status} and would resume from its own checkpoints; let it finish, or \`estate-etl state reset ${name}\` there first; nothing copied`
          })
        const r = yield* copyCheckpoints(w, name, checkpoints, o.replace)
        if (r.copied === 0 && r.replaced.length > 0)
          return yield* new InvalidInput({
            field: "--replace",
            detail: `${to} already holds ${r.replaced.length} checkpoint${r.replaced.length === 1 ? "" : "s"} of ${name} (${r.replaced.map((c) => c.key).join(", ")}); nothing copied; --replace replaces them (they are printed, with how to set them back)`
          })
        return r
      }).pipe(Effect.provide(existed ? existingWritableWarehouse(to) : Warehouse.Default({ path: to })))
      const where = pointing(
        o.config,
        Option.map(o.to, () => to)
      )
      process.stdout.write(
        `${name}: copied ${result.copied} checkpoint${result.copied === 1 ? "" : "s"} from ${from} to ${to}${existed ? "" : " (created)"}; its next run there goes on from them; rows were not copied\n` +
          checkpoints.map((c) => `  ${c.key}: ${json(c.value)}${c.done ? "" : " (unfinished)"}\n`).join("") +
          (result.replaced.length > 0 ? `replaced:\n${result.replaced.map((c) => setBackLine(name, c, where)).join("")}` : "")
      )
    })
).pipe(
  Command.withDescription(
    "Copy a pipeline's checkpoints (positions, watermarks) from another warehouse into this one, so its next run here goes on where the other left off; rows are not copied. Checkpoints the target has are kept unless --replace. Example: estate-etl state copy alerts --from data/warehouse.duckdb --to data/copy.duckdb"
  )
)

const asField = (field: string) => (e: InvalidInput) => new InvalidInput({ field, detail: e.detail })

/** A position as given: a JSON object, or an instant (for a slice with a watermark). */
type Given = { readonly kind: "object"; readonly value: Record<string, unknown> } | { readonly kind: "instant"; readonly date: Date }

const INSTANT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/

const POSITION_HELP =
  "a JSON object with the members of the slice's position (estate-etl state show <pipeline> --json prints them), or an instant (2026-05-01 or 2026-05-01T00:00:00Z) for a slice with a watermark"

export const parsePosition = (text: string): Either.Either<Given, InvalidInput> => {
  const t = text.trim()
  if (t.startsWith("{")) {
    try {
      const v = JSON.parse(t) as unknown
      if (typeof v === "object" && v !== null && !Array.isArray(v))
        return Either.right({ kind: "object", value: v as Record<string, unknown> })
    } catch (e) {
      return Either.left(new InvalidInput({ field: "position", detail: `not valid JSON (${(e as Error).message}); give ${POSITION_HELP}` }))
    }
  }
  const date = new Date(t.length === 10 ? `${t}T00:00:00Z` : t)
  if (INSTANT.test(t) && !Number.isNaN(date.getTime())) return Either.right({ kind: "instant", date })
  return Either.left(new InvalidInput({ field: "position", detail: `"${text}" is not a position; give ${POSITION_HELP}` }))
}

/** Members of a position that hold its watermark, as the incremental readers name them. */
const WATERMARKS = ["watermark", "mark"]

/** The new value of `old` given `given`, or why not. */
export const newPosition = (pipeline: string, slice: string, old: unknown, given: Given): Either.Either<unknown, InvalidInput> => {
  const members = typeof old === "object" && old !== null && !Array.isArray(old) ? Object.keys(old) : undefined
  const field = `${pipeline} ${slice}`
  if (given.kind === "instant") {
    const member = members?.find((m) => WATERMARKS.includes(m))
    if (member === undefined)
      return Either.left(
        new InvalidInput({ field, detail: `its position has no watermark (${json(old)}); give the whole position as JSON` })
      )
    const was = (old as Record<string, unknown>)[member]
    const value =
      typeof was === "string" && /^\d{4}-\d{2}-\d{2}$/.test(was) ? given.date.toISOString().slice(0, 10) : given.date.toISOString()
    return Either.right({ ...(old as Record<string, unknown>), [member]: value })
  }
  if (members === undefined) return Either.right(given.value)
  const unknown = Object.keys(given.value).find((k) => !members.includes(k))
  if (unknown !== undefined)
    return Either.left(
      new InvalidInput({ field, detail: `its position has no member "${unknown}"${suggestion(unknown, members, { quote: false })}` })
    )
  const missing = members.filter((m) => !Object.hasOwn(given.value, m))
  if (missing.length > 0)
    return Either.left(new InvalidInput({ field, detail: `the position lacks ${missing.join(", ")}; its members: ${members.join(", ")}` }))
  return Either.right(given.value)
}

const set = Command.make(
  "set",
  { config, warehouse, pipeline: pipelineArg, slice: Args.text({ name: "slice" }), position: Args.text({ name: "position" }) },
  (o) =>
    Effect.gen(function* () {
      // the position's syntax before anything is opened
      const given = yield* Either.match(parsePosition(o.position), { onLeft: Effect.fail, onRight: Effect.succeed })
      return yield* withWarehouse("state set", o, true, (pipelines) =>
        Effect.gen(function* () {
          const w = yield* Warehouse
          const name = yield* knownPipeline(pipelines, o.pipeline, yield* pipelinesWithCheckpoints(w))
          const checkpoints = yield* w.checkpoints(name)
          const keys = checkpoints.map((c) => c.key)
          const current = checkpoints.find((c) => c.key === o.slice)
          if (current === undefined)
            return yield* new InvalidInput({
              field: "slice",
              detail:
                keys.length === 0
                  ? `${name} has no checkpoints in ${w.path}, so no slice "${o.slice}" (state copy brings them from another warehouse)`
                  : `${name} has no slice "${o.slice}"${suggestion(o.slice, keys, { quote: false, listAllowed: false })}; its slices: ${keys.slice(0, 20).join(", ")}${keys.length > 20 ? `, ... (${keys.length})` : ""}`
            })
          const value = yield* Either.match(newPosition(name, o.slice, current.value, given), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
          yield* setCheckpoint(w, name, o.slice, value)
          const where = pointing(o.config, o.warehouse)
          process.stdout.write(
            `${name} ${o.slice}: position set to ${json(value)}; the next run reads on from it\n` +
              `was:\n${setBackLine(name, current, where)}`
          )
        })
      )
    })
).pipe(
  Command.withDescription(
    "Set one slice's position: a JSON object with the members it has (state show --json prints them), or an instant for a slice with a watermark. The earlier position is printed with how to set it back. Example: estate-etl state set alerts feed=2 2026-05-01T00:00:00Z"
  )
)

export const copyCommand = copy
export const setCommand = set
