/**
 * `estate-etl list` at the cold start (`FastPath.ts`) without importing the pipelines: the build
 * writes what `list` shows of each built-in pipeline beside the bundle (`scripts/bundle.mjs`:
 * `dist/bundle/list-snapshot.json`, from `listEntryOf`, the same fields the `list` command reads).
 * The settings are still read and checked as the command reads them (`.env`, the environment, the
 * file), so costs and sets are the user's. Why: importing the pipelines and their schemas was about
 * a third of `list`'s CPU (docs/BENCHMARKS.md).
 *
 * Anything this path does not cover answers `undefined` and the full command line runs: settings
 * that name or find pipeline modules of the user's, settings that fail to load or to check, a
 * missing or unreadable snapshot (under tsx).
 */
import { Effect, Either, Exit } from "effect"
import * as fs from "node:fs"
import { loadDotEnv } from "../config/DotEnv.js"
import { loadEffectiveSettings } from "../config/EffectiveSettings.js"
import { checkSettingsAgainst } from "../config/StrictSettings.js"
import { settingsModuleFiles } from "../pipeline/PipelineModules.js"
import { type ListEntry, listOutput } from "./ListOutput.js"

const readSnapshot = (snapshot: URL): ReadonlyArray<ListEntry> | undefined => {
  try {
    const json = JSON.parse(fs.readFileSync(snapshot, "utf8")) as unknown
    return Array.isArray(json) ? (json as ReadonlyArray<ListEntry>) : undefined
  } catch {
    return undefined
  }
}

/** `list`'s output with the settings of `config` (and `.env`), or `undefined` when the full command must answer. */
export const listFromSnapshot = async (
  config: string | undefined,
  options: { readonly json: boolean; readonly wide: boolean },
  snapshot: URL
): Promise<string | undefined> => {
  const builtIns = readSnapshot(snapshot)
  if (builtIns === undefined) return undefined
  const before = new Set(Object.keys(process.env))
  const exit = await Effect.runPromiseExit(
    Effect.gen(function* () {
      yield* loadDotEnv()
      const { settings, file } = yield* loadEffectiveSettings({ config })
      const modules = yield* settingsModuleFiles(settings.pipelineModules, file?.path)
      if (modules.length > 0) return undefined
      const checked = checkSettingsAgainst(
        settings,
        { pipelines: builtIns.map((p) => p.name), operations: builtIns.filter((p) => p.host === "platform").map((p) => p.operation) },
        file?.path ?? "settings"
      )
      return Either.isRight(checked) ? listOutput(settings, builtIns, options) : undefined
    })
  )
  if (Exit.isSuccess(exit) && exit.value !== undefined) return exit.value
  // the full command line reads `.env` again and reports any failure as it does
  for (const name of Object.keys(process.env)) if (!before.has(name)) delete process.env[name]
  return undefined
}
