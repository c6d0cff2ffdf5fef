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
import * as nodePath from "node:path"
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** `over` laid over `base`: objects merge member by member, anything else replaces. */
export const mergeOver = (base: unknown, over: unknown): unknown =>
  isObject(base) && isObject(over)
    ? Object.fromEntries(
        [...new Set([...Object.keys(base), ...Object.keys(over)])].map((k) => [k, k in over ? mergeOver(base[k], over[k]) : base[k]])
      )
    : over

/** A settings file's JSON, `field` naming it in errors. */
const readJson = (file: string, field: string): Either.Either<unknown, InvalidInput> => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (e) {
    return Either.left(new InvalidInput({ field, detail: `cannot read ${file}: ${(e as Error).message}` }))
  }
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch (e) {
    return Either.left(new InvalidInput({ field, detail: `${file} is not valid JSON: ${(e as Error).message}` }))
  }
}

/** A settings file with the files it `include`s laid over it (relative to its folder). */
export const readSettingsJson = (file: string): Either.Either<unknown, InvalidInput> =>
  Either.flatMap(readJson(file, "--config"), (json) => {
    const include = isObject(json) ? json.include : undefined
    if (!Array.isArray(include)) return Either.right(json)
    let merged = json
    for (const [i, name] of include.entries()) {
      if (typeof name !== "string") return Either.left(new InvalidInput({ field: `${file}: include.${i}`, detail: "a file name" }))
      const part = nodePath.resolve(nodePath.dirname(file), name)
      if (!fs.existsSync(part))
        return Either.left(new InvalidInput({ field: `${file}: include.${i}`, detail: `no settings file at ${part}` }))
      const fragment = readJson(part, `${file}: include.${i}`)
      if (Either.isLeft(fragment)) return fragment
      merged = mergeOver(merged, fragment.right)
    }
    return Either.right(merged)
  })

/** Loads `path` (or the first of `DEFAULT_CONFIGS` that exists; none at all means every default). */
export const loadSettings = (path: string | undefined, check: SettingsCheck = {}): Effect.Effect<Settings, InvalidInput> =>
  Effect.suspend(() => {
    const file = settingsFile(path)
    if (file === undefined) return Effect.succeed(Schema.decodeSync(Settings)({}))
    if (!fs.existsSync(file)) return Effect.fail(new InvalidInput({ field: "--config", detail: `no settings file at ${file}` }))
    return Either.match(readSettingsJson(file), { onLeft: Effect.fail, onRight: (json) => decodeSettings(json, file, check) })
  })
