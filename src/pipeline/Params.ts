/**
 * Parameters of a run: the settings file's `pipelines.<name>.params`, then `--param k=v`
 * overrides, decoded by the pipeline's own schema. A bad value fails here, naming the field and
 * what is allowed, before any request.
 */
import { Either, type ParseResult, Schema } from "effect"
import { credentialValuesIn } from "../config/Credentials.js"
import { issuesLine } from "../config/DecodeErrors.js"
import { FORBIDDEN_KEYS, forbiddenKeyError, forbiddenKeyIn } from "../config/StrictSettings.js"
import type { Pipeline } from "./Pipeline.js"
import { InvalidInput } from "./RunError.js"

/**
 * `k=v` with `v` read as JSON when it parses (numbers, booleans, arrays), else as a string; `a.b=v`
 * nests. A key `__proto__`, `constructor` or `prototype` is refused (it would reach the objects'
 * prototype, not a parameter).
 */
export const parseOverride = (text: string): Either.Either<readonly [Array<string>, unknown], InvalidInput> => {
  const eq = text.indexOf("=")
  if (eq <= 0) {
    return Either.left(new InvalidInput({ field: "--param", detail: `expected key=value, got "${text}"` }))
  }
  const path = text.slice(0, eq).trim().split(".")
  const forbidden = path.find((k) => FORBIDDEN_KEYS.has(k))
  if (forbidden !== undefined) return Either.left(forbiddenKeyError("--param", forbidden))
  const raw = text.slice(eq + 1)
  let value: unknown = raw
  try {
    value = JSON.parse(raw)
  } catch {
    // a plain string
  }
  return Either.right([path, value] as const)
}

const setPath = (target: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown) => {
  let node = target
  path.slice(0, -1).forEach((k) => {
    const child = node[k]
    node = node[k] = typeof child === "object" && child !== null && !Array.isArray(child) ? { ...child } : {}
  })
  node[path[path.length - 1]!] = value
}

/**
 * Schema issues as one line: the first message for each field, unknown keys and enumerations with
 * the closest allowed name, credential values redacted (see `config/DecodeErrors.ts`).
 */
export { issuesLine }

/** One line naming `<pipeline>.<path>` and what is allowed. */
export const paramError = (pipeline: string, error: ParseResult.ParseError): InvalidInput => {
  const { path, line } = issuesLine(error)
  return new InvalidInput({ field: [pipeline, ...path].join("."), detail: line })
}

/**
 * The parameter every pipeline takes besides its own: `sample: true` says the run is a sample, so
 * a cap (`maxPages`) that cuts it short is reported, not a shortfall (as `--sample` does).
 */
export const SAMPLE_PARAM = "sample"

/** The settings' object with the overrides laid over it (before decoding). */
const mergeParams = (
  fromSettings: Record<string, unknown>,
  overrides: ReadonlyArray<string>
): Either.Either<Record<string, unknown>, InvalidInput> => {
  const merged: Record<string, unknown> = { ...fromSettings }
  for (const o of overrides) {
    const parsed = parseOverride(o)
    if (Either.isLeft(parsed)) return Either.left(parsed.left)
    setPath(merged, parsed.right[0], parsed.right[1])
  }
  return Either.right(merged)
}

/**
 * Keys and values parameters may not hold, at any depth (a JSON value of `--param` included):
 * `__proto__`, `constructor` and `prototype` as keys, and values that look like a credential
 * (they would be stored with the run and sent to the service; `config/Credentials.ts`).
 */
const refusedIn = (pipeline: string, params: Record<string, unknown>): InvalidInput | undefined => {
  const forbidden = forbiddenKeyIn(params)
  if (forbidden !== undefined) return forbiddenKeyError([pipeline, ...forbidden].join("."), forbidden[forbidden.length - 1]!)
  const credential = credentialValuesIn(params)[0]
  if (credential === undefined) return undefined
  return new InvalidInput({
    field: [pipeline, ...credential.path].join("."),
    detail: `${credential.key ? "a key here" : "this value"} looks like a credential (${credential.look}); credentials are never read from parameters: they come from the environment (SVC_API_KEY, SVC_EMAIL, SVC_PASSWORD)`
  })
}

/** Decodes the parameters of `pipeline` from the settings' object and the overrides (`sample` aside). */
export const resolveParams = <P>(
  pipeline: Pipeline<P>,
  fromSettings: Record<string, unknown>,
  overrides: ReadonlyArray<string>
): Either.Either<P, InvalidInput> =>
  Either.flatMap(mergeParams(fromSettings, overrides), (merged) => {
    const refused = refusedIn(pipeline.name, merged)
    return (refused !== undefined ? Either.left(refused) : decodeParams(pipeline, merged)).pipe(
      Either.mapLeft((e) => fromTheSettings(pipeline.name, e, fromSettings, overrides))
    )
  })

/**
 * A parameter error whose field the settings gave (no `--param` set it) says so: the same line
 * names `-p pagesize=50` and a settings file's `pagesize`, and only one of them is on the command line.
 */
const fromTheSettings = (
  pipeline: string,
  e: InvalidInput,
  fromSettings: Record<string, unknown>,
  overrides: ReadonlyArray<string>
): InvalidInput => {
  const root = e.field.startsWith(`${pipeline}.`) ? e.field.slice(pipeline.length + 1).split(".")[0]! : undefined
  if (root === undefined || !Object.hasOwn(fromSettings, root)) return e
  const onCommandLine = overrides.some((o) =>
    Either.match(parseOverride(o), { onLeft: () => false, onRight: ([path]) => path[0] === root })
  )
  return onCommandLine
    ? e
    : new InvalidInput({ field: e.field, detail: `${e.detail} (set in the settings: pipelines.${pipeline}.params.${root})` })
}

const decodeParams = <P>(
  pipeline: Pipeline<P>,
  { [SAMPLE_PARAM]: sample, ...own }: Record<string, unknown>
): Either.Either<P, InvalidInput> =>
  sample !== undefined && typeof sample !== "boolean"
    ? Either.left(
        new InvalidInput({ field: `${pipeline.name}.${SAMPLE_PARAM}`, detail: `must be true or false, got ${JSON.stringify(sample)}` })
      )
    : Schema.decodeUnknownEither(pipeline.params, { errors: "all", onExcessProperty: "error" })(own).pipe(
        Either.mapLeft((e) => paramError(pipeline.name, e))
      )

/** Whether the parameters say `sample: true` (see `SAMPLE_PARAM`). */
export const sampleRequested = (fromSettings: Record<string, unknown>, overrides: ReadonlyArray<string>): boolean =>
  Either.match(mergeParams(fromSettings, overrides), { onLeft: () => false, onRight: (m) => m[SAMPLE_PARAM] === true })

/** Parameters as stored in `_runs.params` and compared on resume. */
export const encodeParams = <P>(pipeline: Pipeline<P>, params: P): unknown => Schema.encodeSync(pipeline.params)(params)
