/**
 * The settings checks a schema cannot make alone:
 * - `credentialInSettings`: a credential in the file (a credential-looking key with a string
 *   value, at any depth) is refused, naming the environment variable to use, never the value;
 * - `checkSettingsAgainst`: pipeline names under `pipelines` and in `sets` must be known
 *   pipelines. The known names are an argument (the catalogue, plus whatever pipelines the caller
 *   loads), so this module imports no pipeline.
 * Both fail with `InvalidInput` (exit 2), before any request.
 */
import { Either } from "effect"
import { InvalidInput } from "../shared/InvalidInput.js"
import { credentialsIn } from "./Credentials.js"
import type { Settings } from "./Settings.js"
import { suggestion } from "./Suggest.js"

const DEFAULT_ENV = { apiKeyEnv: "SVC_API_KEY", emailEnv: "SVC_EMAIL", passwordEnv: "SVC_PASSWORD" } as const

/** The environment variable names the file itself sets (`service.apiKeyEnv`...), else the defaults. */
const envNames = (input: unknown): { apiKeyEnv: string; emailEnv: string; passwordEnv: string } => {
  const service = (input as { service?: Record<string, unknown> } | null)?.service
  const pick = (k: keyof typeof DEFAULT_ENV) => {
    const v = typeof service === "object" && service !== null ? service[k] : undefined
    return typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v) ? v : DEFAULT_ENV[k]
  }
  return { apiKeyEnv: pick("apiKeyEnv"), emailEnv: pick("emailEnv"), passwordEnv: pick("passwordEnv") }
}

/** Where the credential named `key` comes from instead. */
const whereInstead = (key: string, env: ReturnType<typeof envNames>): string =>
  /passw(or)?d/i.test(key)
    ? `remove it and set the environment variable ${env.passwordEnv} instead`
    : /token/i.test(key)
      ? `remove it: tokens come from signing in with the environment variables ${env.emailEnv} and ${env.passwordEnv}`
      : `remove it and set the environment variable ${env.apiKeyEnv} instead`

/**
 * A credential found in the raw settings (`service.apiKey: "..."`), as an error naming the field
 * and the environment variable to use; the value is never shown. `undefined` when there is none.
 */
export const credentialInSettings = (input: unknown, source: string): InvalidInput | undefined => {
  const found = credentialsIn(input).filter((c) => typeof c.value === "string" || typeof c.value === "number")
  if (found.length === 0) return undefined
  const env = envNames(input)
  const first = found[0]!
  const key = first.path[first.path.length - 1]!
  const more =
    found.length > 1
      ? ` (also ${found
          .slice(1)
          .map((c) => c.path.join("."))
          .join(", ")})`
      : ""
  return new InvalidInput({
    field: `${source}: ${first.path.join(".")}`,
    detail: `credentials are never read from the settings file; ${whereInstead(key, env)}${more}`
  })
}

/**
 * Every name under `pipelines` and every member of `sets` must be one of `knownPipelineNames`;
 * the first that is not fails, with the closest known name (or the list of them).
 */
export const checkSettingsAgainst = (
  settings: Settings,
  knownPipelineNames: ReadonlyArray<string>,
  source = "settings"
): Either.Either<Settings, InvalidInput> => {
  const known = new Set(knownPipelineNames)
  for (const name of Object.keys(settings.pipelines)) {
    if (!known.has(name)) {
      return Either.left(
        new InvalidInput({ field: `${source}: pipelines.${name}`, detail: `unknown pipeline${suggestion(name, knownPipelineNames)}` })
      )
    }
  }
  for (const [set, members] of Object.entries(settings.sets)) {
    for (const m of members) {
      if (!known.has(m)) {
        return Either.left(
          new InvalidInput({
            field: `${source}: sets.${set}`,
            detail: `unknown pipeline ${JSON.stringify(m)}${suggestion(m, knownPipelineNames)}`
          })
        )
      }
    }
  }
  return Either.right(settings)
}
