/**
 * The settings a command runs with, and where each value came from (`SettingsEnv.ts` has the
 * precedence). The settings file is `--config`, else `ESTATE_ETL_CONFIG`, else the first of
 * `DEFAULT_CONFIGS` that exists (`estate-etl.json`, `config/sandbox.json`), else none (every default);
 * an environment's overlay (`--env`, `ESTATE_ETL_ENV`) is laid over it before it is decoded.
 */
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import { InvalidInput } from "../shared/InvalidInput.js"
import {
  decodeSettings,
  loadSettings,
  mergeOver,
  readSettingsJson,
  type SettingsCheck,
  settingsFile as defaultSettingsFile
} from "./loadSettings.js"
import type { Settings } from "./Settings.js"
import { applySettingsEnv, envValue, SETTINGS_ENV, type Source } from "./SettingsEnv.js"
import { chosenOverlay, type Overlay } from "./SettingsOverlay.js"

export interface SettingsFlags {
  /** `--config`. */
  readonly config?: string | undefined
  /** `--warehouse` (wins over `ESTATE_ETL_WAREHOUSE` and the file). */
  readonly warehouse?: string | undefined
}

export interface EffectiveSettings {
  readonly settings: Settings
  /** The settings file read, and what named it; none when every value is a default or from the environment. */
  readonly file: { readonly path: string; readonly source: Source } | undefined
  /** The environment's overlay laid over the file (`--env`, `ESTATE_ETL_ENV`; `SettingsOverlay.ts`). */
  readonly overlay: Overlay | undefined
  /** Where the value at a dotted path (`service.target`, `budget.costs.plot_search`) came from. */
  readonly sourceOf: (path: ReadonlyArray<string>) => Source
}

/** The settings file to read, and what named it. */
const chosenFile = (flag: string | undefined, env: NodeJS.ProcessEnv) => {
  if (flag !== undefined) return { path: flag, source: { kind: "flag", name: "--config" } as Source }
  const fromEnv = envValue(SETTINGS_ENV.config, env)
  if (fromEnv !== undefined) return { path: fromEnv.value, source: fromEnv.source }
  const found = defaultSettingsFile(undefined)
  return found !== undefined ? { path: found, source: { kind: "default" } as Source } : undefined
}

const hasPath = (value: unknown, path: ReadonlyArray<string>): boolean => {
  let v = value
  for (const key of path) {
    if (typeof v !== "object" || v === null || Array.isArray(v) || !Object.hasOwn(v, key)) return false
    v = (v as Record<string, unknown>)[key]
  }
  return true
}

/** A settings file's JSON (its `include`s laid over it); an overlay's errors name the overlay's flag or variable. */
const readJsonOrFail = (path: string, overlay: Overlay | undefined) =>
  Either.match(readSettingsJson(path), {
    onLeft: (e) => Effect.fail(overlay !== undefined ? new InvalidInput({ field: describeVia(overlay.via), detail: e.detail }) : e),
    onRight: (json) => Effect.succeed(json)
  })

/** `--env`, `ESTATE_ETL_ENV` or `.env ESTATE_ETL_ENV`. */
const describeVia = (via: Source) =>
  via.kind === "flag" || via.kind === "env" ? via.name : via.kind === ".env" ? `.env ${via.name}` : via.kind

/** What `config show` names as the source of a value the overlay sets. */
export const overlaySource = (overlay: Overlay): Source => ({
  kind: "overlay",
  file: overlay.path,
  env: overlay.name,
  via: describeVia(overlay.via)
})

/** The settings after flags, environment (and `.env`), file and defaults, with each value's source. */
export const loadEffectiveSettings = (
  flags: SettingsFlags,
  check: SettingsCheck = {},
  env: NodeJS.ProcessEnv = process.env
): Effect.Effect<EffectiveSettings, InvalidInput> =>
  Effect.gen(function* () {
    const file = chosenFile(flags.config, env)
    if (file !== undefined && file.source.kind !== "flag" && file.source.kind !== "default" && !fs.existsSync(file.path)) {
      return yield* new InvalidInput({
        field: file.source.kind === ".env" ? `${SETTINGS_ENV.config} (.env)` : SETTINGS_ENV.config,
        detail: `no settings file at ${file.path}`
      })
    }
    const overlay = yield* Either.match(chosenOverlay(file?.path, env), { onLeft: Effect.fail, onRight: Effect.succeed })
    const overlayRaw: unknown = overlay !== undefined ? yield* readJsonOrFail(overlay.path, overlay) : {}
    const fromFile =
      overlay === undefined
        ? yield* loadSettings(file?.path, { env, ...check })
        : yield* Effect.gen(function* () {
            if (file !== undefined && !fs.existsSync(file.path))
              return yield* new InvalidInput({ field: "--config", detail: `no settings file at ${file.path}` })
            const base = file !== undefined ? yield* readJsonOrFail(file.path, undefined) : {}
            const source = `${overlay.path} over ${file?.path ?? "the defaults"}`
            return yield* Either.match(decodeSettings(mergeOver(base, overlayRaw), source, { env, ...check }), {
              onLeft: Effect.fail,
              onRight: Effect.succeed
            })
          })
    // which values the file itself holds (defaults fill the rest); it decoded, so it parses
    const raw: unknown = file !== undefined ? Either.getOrElse(readSettingsJson(file.path), () => ({})) : {}
    const { overrides, settings } = yield* Either.match(applySettingsEnv(fromFile, env), {
      onLeft: Effect.fail,
      onRight: Effect.succeed
    })
    const all = new Map(overrides)
    if (flags.warehouse !== undefined) all.set("warehouse", { kind: "flag", name: "--warehouse" })
    return {
      settings: flags.warehouse !== undefined ? { ...settings, warehouse: flags.warehouse } : settings,
      file,
      overlay,
      sourceOf: (path) => {
        const overridden = all.get(path.join("."))
        if (overridden !== undefined) return overridden
        if (overlay !== undefined && hasPath(overlayRaw, path)) return overlaySource(overlay)
        return file !== undefined && hasPath(raw, path) ? { kind: "file", file: file.path } : { kind: "default" }
      }
    }
  })

/** The command line's settings: `--config` (or `ESTATE_ETL_CONFIG`, or the default file) with the environment's overrides. */
export const loadCliSettings = (config: Option.Option<string>, check: SettingsCheck = {}): Effect.Effect<Settings, InvalidInput> =>
  Effect.map(loadEffectiveSettings({ config: Option.getOrUndefined(config) }, check), (e) => e.settings)
