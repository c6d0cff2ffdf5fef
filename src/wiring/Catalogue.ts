/**
 * The catalogue a command or a library session works with: the built-in pipelines
 * (`pipelines/index.ts`) and the repository's own modules the settings name
 * (`settings.pipelineModules`, else `pipelines/*.mjs|js` beside the settings file). Every caller
 * loads it here, so `list`, `plan`, `run`, sessions and the settings' check of pipeline names
 * (`pipelines.<name>`, `sets`) see the same pipelines.
 *
 * A user pipeline is checked like a built-in (`PipelineCheck.ts`) and must not take a name that
 * is taken (a built-in's, another module's, a set's), nor declare a table another pipeline
 * declares differently. Any failure is one `InvalidInput` line naming the module (exit 2).
 */
import { Effect, Either, Option } from "effect"
import { loadEffectiveSettings } from "../config/EffectiveSettings.js"
import { catalogue as builtIns } from "../../pipelines/index.js"
import { loadSettings, settingsFile } from "../config/loadSettings.js"
import { serviceUrlsFromEnv } from "../config/SettingsEnv.js"
import type { Settings } from "../config/Settings.js"
import { checkSettingsAgainst, type KnownNames } from "../config/StrictSettings.js"
import { suggestion } from "../config/Suggest.js"
import { InvalidInput } from "../shared/InvalidInput.js"
import type { Pipeline } from "../pipeline/Pipeline.js"
import { pipelineProblem, sameTable } from "../pipeline/PipelineCheck.js"
import { importPipelines, settingsModuleFiles } from "../pipeline/PipelineModules.js"

/** The pipelines this package ships. */
export const builtInPipelines: ReadonlyArray<Pipeline> = builtIns

export interface Catalogue {
  /** Built-ins first, in their order, then the user's, in file order. */
  readonly all: ReadonlyArray<Pipeline>
  /** The user's pipelines with the module that declares each (as messages show it). */
  readonly user: ReadonlyArray<{ readonly pipeline: Pipeline; readonly module: string }>
}

/** Where `name` comes from: `built-in`, or its module file. */
export const originOf = (catalogue: Catalogue, name: string): string =>
  catalogue.user.find((u) => u.pipeline.name === name)?.module ?? "built-in"

/**
 * A built-in pipeline by name or by the operation it reads (`plot_search`: its `cost.operation`),
 * with "did you mean" on a miss.
 */
export const builtInPipeline = (nameOrOperation: string, field = "pipeline"): Either.Either<Pipeline, InvalidInput> => {
  const p = builtIns.find((x) => x.name === nameOrOperation) ?? builtIns.find((x) => x.cost.operation === nameOrOperation)
  if (p) return Either.right(p)
  const candidates = [...builtIns.map((x) => x.name), ...builtIns.map((x) => x.cost.operation)]
  const hint = suggestion(nameOrOperation, candidates, { listAllowed: false })
  return Either.left(
    new InvalidInput({
      field,
      detail: `no built-in pipeline or operation ${JSON.stringify(nameOrOperation)}${hint || `; pipelines: ${builtIns.map((x) => x.name).join(", ")}`}`
    })
  )
}

/**
 * The built-ins and the user's pipelines for these settings. `settingsPath`: the file they came
 * from (module paths are relative to its folder, and only a file's folder is searched for a
 * `pipelines/` folder); `undefined` for settings given as an object (paths relative to the
 * working directory, no search).
 */
export const loadCatalogue = (settings: Settings, settingsPath: string | undefined): Effect.Effect<Catalogue, InvalidInput> =>
  Effect.gen(function* () {
    const files = yield* settingsModuleFiles(settings.pipelineModules, settingsPath)
    const all: Array<Pipeline> = [...builtIns]
    const user: Array<{ pipeline: Pipeline; module: string }> = []
    for (const file of files) {
      for (const pipeline of yield* importPipelines(file)) {
        const refuse = (detail: string) => Effect.fail(new InvalidInput({ field: file.shown, detail }))
        const problem = pipelineProblem(pipeline)
        if (problem) return yield* refuse(`pipeline ${JSON.stringify(pipeline.name)}: ${problem}`)
        const name = pipeline.name
        if (builtIns.some((b) => b.name === name)) return yield* refuse(`pipeline name "${name}" is a built-in pipeline's; choose another`)
        const twin = user.find((u) => u.pipeline.name === name)
        if (twin) return yield* refuse(`pipeline "${name}" is declared by ${twin.module} too; names must be unique`)
        if (settings.sets[name] !== undefined) return yield* refuse(`pipeline "${name}" has the name of a set of the settings; rename one`)
        for (const table of pipeline.tables) {
          const other = all.find((p) => p.tables.some((t) => t.name === table.name && !sameTable(t, table)))
          if (other)
            return yield* refuse(
              `pipeline "${name}": table ${table.name} is declared differently by ${other.name} (columns, keys or disposition); name it otherwise`
            )
        }
        all.push(pipeline)
        user.push({ pipeline, module: file.shown })
      }
    }
    return { all, user }
  }).pipe(Effect.withSpan("Catalogue.load"))

/** Settings, their file and the catalogue they name. */
export interface LoadedSettings {
  readonly settings: Settings
  /** The settings file read (`--config`, or the first default found); `undefined`: every default. */
  readonly file: string | undefined
  readonly catalogue: Catalogue
}

/**
 * Reads the settings (`path`, or the default lookup), loads their catalogue, then checks the
 * pipeline names the settings use (`pipelines.<name>`, `sets`) against it, user pipelines included.
 */
export const loadSettingsAndCatalogue = (path: string | undefined): Effect.Effect<LoadedSettings, InvalidInput> =>
  Effect.gen(function* () {
    const file = settingsFile(path)
    // a library session's file: the environment's base URLs over it (the CLI's takes every variable)
    const settings = serviceUrlsFromEnv(yield* loadSettings(path))
    return yield* withCatalogue(settings, file)
  })

/**
 * The command line's settings (flags, the environment, `.env`, the file, defaults: see
 * `EffectiveSettings.ts`) with their catalogue, checked as `loadSettingsAndCatalogue` does.
 */
export const loadCliSettingsAndCatalogue = (config: Option.Option<string>): Effect.Effect<LoadedSettings, InvalidInput> =>
  Effect.flatMap(loadEffectiveSettings({ config: Option.getOrUndefined(config) }), (e) => withCatalogue(e.settings, e.file?.path))

/** The names settings may use of these pipelines: theirs, and the operations the metered ones call. */
export const knownNamesOf = (
  pipelines: ReadonlyArray<{ readonly name: string; readonly host: string; readonly cost: { readonly operation: string } }>
): KnownNames => ({
  pipelines: pipelines.map((p) => p.name),
  operations: pipelines.filter((p) => p.host === "platform").map((p) => p.cost.operation)
})

/** `settings` (already decoded) with their catalogue, checked as `loadSettingsAndCatalogue` does. */
export const withCatalogue = (settings: Settings, file: string | undefined): Effect.Effect<LoadedSettings, InvalidInput> =>
  Effect.gen(function* () {
    const catalogue = yield* loadCatalogue(settings, file)
    const checked = checkSettingsAgainst(settings, knownNamesOf(catalogue.all), file ?? "settings")
    if (Either.isLeft(checked)) return yield* checked.left
    return { settings, file, catalogue }
  })
