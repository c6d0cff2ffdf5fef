/**
 * Settings per environment: `--env production` (any command, anywhere before `--`) or
 * `ESTATE_ETL_ENV=production` lays `config/production.json` over the settings file, the way
 * `include` lays its files: objects merge member by member, anything else (arrays too) replaces.
 * The overlay is looked up in `config/` of the working directory (the settings root when the
 * settings were found in a folder above, `SettingsRoot.ts`); the flag wins over the variable.
 *
 * A name without an overlay file is bad input (exit 2) listing the overlays there are, with a
 * "did you mean": every `config/*.json` except the settings file itself, `schema.json` and the
 * `*.example.json` templates.
 */
import { Either } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { InvalidInput } from "../shared/InvalidInput.js"
import { envValue, type Source } from "./SettingsEnv.js"
import { suggestion } from "./Suggest.js"

/** The variable naming the overlay when `--env` is not given. */
export const ENV_OVERLAY_VAR = "ESTATE_ETL_ENV"

/** The folder overlays live in, relative to the working directory. */
export const OVERLAY_DIR = "config"

/** `--env` of the invocation being run (`Cli.ts` sets it, every invocation). */
let flagValue: string | undefined

export const setEnvFlag = (name: string | undefined) => {
  flagValue = name
}

/**
 * `argv` (as `process.argv`) without `--env <name>` / `--env=<name>` (before any `--`), and the
 * name; a `--env` without a name is bad input.
 */
export const takeEnvFlag = (
  argv: ReadonlyArray<string>
): Either.Either<{ readonly argv: ReadonlyArray<string>; readonly env: string | undefined }, InvalidInput> => {
  const out = argv.slice(0, 2)
  let env: string | undefined
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      out.push(...argv.slice(i))
      break
    }
    if (arg === "--env" || arg.startsWith("--env=")) {
      const value = arg === "--env" ? argv[++i] : arg.slice("--env=".length)
      if (value === undefined || value === "" || value.startsWith("-"))
        return Either.left(
          new InvalidInput({
            field: "--env",
            detail: `needs an environment's name, e.g. --env production (${OVERLAY_DIR}/production.json)`
          })
        )
      env = value
      continue
    }
    out.push(arg)
  }
  return Either.right({ argv: out, env })
}

export interface Overlay {
  readonly name: string
  /** The overlay file, as found (relative to the working directory). */
  readonly path: string
  /** `flag --env` or `env ESTATE_ETL_ENV` (or `.env`). */
  readonly via: Source
}

/** The overlays `config/` holds: its JSON files but the settings file, `schema.json` and `*.example.json`. */
export const availableOverlays = (base: string | undefined): ReadonlyArray<string> => {
  if (!fs.existsSync(OVERLAY_DIR)) return []
  const baseAbs = base !== undefined ? nodePath.resolve(base) : undefined
  return fs
    .readdirSync(OVERLAY_DIR)
    .filter((f) => f.endsWith(".json") && f !== "schema.json" && !f.endsWith(".example.json"))
    .filter((f) => nodePath.resolve(OVERLAY_DIR, f) !== baseAbs)
    .map((f) => f.slice(0, -".json".length))
    .sort()
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

/** The overlay this invocation names (`--env`, else `ESTATE_ETL_ENV`), if any; `base` is the settings file read. */
export const chosenOverlay = (
  base: string | undefined,
  env: NodeJS.ProcessEnv = process.env
): Either.Either<Overlay | undefined, InvalidInput> => {
  const fromEnv = envValue(ENV_OVERLAY_VAR, env)
  const chosen =
    flagValue !== undefined
      ? { name: flagValue, via: { kind: "flag", name: "--env" } as Source, field: "--env" }
      : fromEnv !== undefined
        ? {
            name: fromEnv.value,
            via: fromEnv.source,
            field: fromEnv.source.kind === ".env" ? `${ENV_OVERLAY_VAR} (.env)` : ENV_OVERLAY_VAR
          }
        : undefined
  if (chosen === undefined) return Either.right(undefined)
  const path = nodePath.join(OVERLAY_DIR, `${chosen.name}.json`)
  if (NAME.test(chosen.name) && !chosen.name.endsWith(".json") && fs.existsSync(path) && fs.statSync(path).isFile())
    return Either.right({ name: chosen.name, path, via: chosen.via })
  const available = availableOverlays(base)
  const where = nodePath.resolve(OVERLAY_DIR)
  return Either.left(
    new InvalidInput({
      field: chosen.field,
      detail:
        `no overlay "${chosen.name}": ${nodePath.join(where, `${chosen.name}.json`)} does not exist` +
        (available.length > 0
          ? `${suggestion(chosen.name, available, { quote: false, listAllowed: false })}; overlays in ${where}: ${available.join(", ")}`
          : `; ${where} holds no overlay (write config/${chosen.name}.json with the settings that differ there)`)
    })
  )
}
