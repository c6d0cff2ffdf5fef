/**
 * Reads the settings file and the environment. Every failure is an `InvalidInput` naming the
 * field (or the file) and what is allowed, raised before anything is sent.
 */
import { Effect, Either, Schema } from "effect"
import { issuesLine } from "../pipeline/Params.js"
import * as fs from "node:fs"
import { InvalidInput } from "../pipeline/RunError.js"
import { Settings } from "./Settings.js"

/** The settings file used when `--config` is not given. */
export const DEFAULT_CONFIG = "config/sandbox.json"

export const decodeSettings = (input: unknown, source: string): Either.Either<Settings, InvalidInput> =>
  Schema.decodeUnknownEither(Settings, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Either.mapLeft((e) => {
      const { path, line } = issuesLine(e)
      return new InvalidInput({ field: `${source}: ${path.length ? path.join(".") : "(settings)"}`, detail: line })
    })
  )

/** Loads `path` (or the default file; no file at all means every default). */
export const loadSettings = (path: string | undefined): Effect.Effect<Settings, InvalidInput> =>
  Effect.suspend(() => {
    const file = path ?? DEFAULT_CONFIG
    if (!fs.existsSync(file)) {
      return path === undefined
        ? Effect.succeed(Schema.decodeSync(Settings)({}))
        : Effect.fail(new InvalidInput({ field: "--config", detail: `no settings file at ${file}` }))
    }
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
    return decodeSettings(json, file)
  })
