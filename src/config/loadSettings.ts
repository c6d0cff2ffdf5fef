/**
 * Reads the settings file and the environment. Every failure is an `InvalidInput` naming the
 * field (or the file) and what is allowed, raised before anything is sent: a misspelt key (with
 * the closest allowed one), a value outside an enumeration (with the allowed values), a
 * credential in the file, by its key or by its look (with the environment variable to use instead;
 * its value never shows), a `__proto__`, `constructor` or `prototype` key, and, given the known
 * names, an unknown pipeline under `pipelines` or in `sets` or an unknown operation in `budget.costs`.
 */
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import { InvalidInput } from "../shared/InvalidInput.js"
import { issuesLine } from "./DecodeErrors.js"
import { Settings } from "./Settings.js"
import { checkSettingsAgainst, credentialInSettings, forbiddenKeyError, forbiddenKeyIn } from "./StrictSettings.js"

export interface SettingsCheck {
  /**
   * The pipelines the settings may name (`pipelines.<name>`, `sets`): the catalogue's names
   * plus any the caller loads. Not given: pipeline names are not checked.
   */
  readonly knownPipelines?: ReadonlyArray<string> | undefined
  /** Metered operations of the caller's pipelines beyond the built-in cost table (`budget.costs`); checked with `knownPipelines`. */
  readonly knownOperations?: ReadonlyArray<string> | undefined
  /** The environment (after `.env`): a settings value equal to a credential variable's is refused. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv | undefined
}

/** This repository's settings file, used when `--config` is not given and there is no `INIT_CONFIG`. */
export const DEFAULT_CONFIG = "config/sandbox.json"

/** The settings file `estate-etl init` writes in another repository: looked up first. */
export const INIT_CONFIG = "estate-etl.json"

/** Where settings are looked up when `--config` is not given, in order (relative to the working directory). */
export const DEFAULT_CONFIGS: ReadonlyArray<string> = [INIT_CONFIG, DEFAULT_CONFIG]

/** The settings file `path` names, else the first default that exists; `undefined`: none (every default). */
export const settingsFile = (path: string | undefined): string | undefined => path ?? DEFAULT_CONFIGS.find((f) => fs.existsSync(f))

export const decodeSettings = (input: unknown, source: string, check: SettingsCheck = {}): Either.Either<Settings, InvalidInput> => {
  const forbidden = forbiddenKeyIn(input)
  if (forbidden !== undefined) return Either.left(forbiddenKeyError(`${source}: ${forbidden.join(".")}`, forbidden[forbidden.length - 1]!))
  const credential = credentialInSettings(input, source, check.env)
  if (credential !== undefined) return Either.left(credential)
  const decoded = Schema.decodeUnknownEither(Settings, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Either.mapLeft((e) => {
      const { path, line } = issuesLine(e)
      return new InvalidInput({ field: `${source}: ${path.length ? path.join(".") : "(settings)"}`, detail: line })
    })
  )
  const known = check.knownPipelines
  return known === undefined
    ? decoded
    : Either.flatMap(decoded, (settings) => checkSettingsAgainst(settings, { pipelines: known, operations: check.knownOperations }, source))
}

/** Loads `path` (or the first of `DEFAULT_CONFIGS` that exists; none at all means every default). */
export const loadSettings = (path: string | undefined, check: SettingsCheck = {}): Effect.Effect<Settings, InvalidInput> =>
  Effect.suspend(() => {
    const file = settingsFile(path)
    if (file === undefined) return Effect.succeed(Schema.decodeSync(Settings)({}))
    if (!fs.existsSync(file)) return Effect.fail(new InvalidInput({ field: "--config", detail: `no settings file at ${file}` }))
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch (e) {
      return Effect.fail(new InvalidInput({ field: "--config", detail: `cannot read ${file}: ${(e as Error).message}` }))
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      return Effect.fail(new InvalidInput({ field: "--config", detail: `${file} is not valid JSON: ${(e as Error).message}` }))
    }
    return decodeSettings(json, file, check)
  })
