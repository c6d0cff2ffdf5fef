/**
 * A pipeline that reads like another one under its own name and default parameters: what
 * `estate-etl new pipeline <name> --from <operation>` writes into a repository's `pipelines/`.
 *
 * The new pipeline keeps the base's source, cost model, tables and record mapping, so it lands
 * rows in the same tables (merged by their keys) while its runs, checkpoints and parameters are
 * its own. Its parameters are the base's schema with `params` as defaults: the settings'
 * `pipelines.<name>.params` and `--param` overrides go over them (plain objects merged key by
 * key, anything else replaced), and the result is checked by the base's schema.
 */
import { Either, Schema } from "effect"
import { builtInPipeline } from "./Catalogue.js"
import { definePipeline, type Pipeline } from "../pipeline/Pipeline.js"

export interface DeriveOptions {
  /** The new pipeline's name (kebab-case; not a built-in's). */
  readonly name: string
  /** Default: the base's description, naming the base. */
  readonly description?: string | undefined
  /** Default parameters, over the base's own defaults (as in the settings' `pipelines.<name>.params`). */
  readonly params?: Record<string, unknown> | undefined
}

const isPlain = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) && Object.getPrototypeOf(u) === Object.prototype

/** `over` merged onto `base`: plain objects key by key, anything else replaced. */
const merge = (base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) {
    const b = out[k]
    out[k] = isPlain(b) && isPlain(v) ? merge(b, v) : v
  }
  return out
}

/** `schema` with `defaults` filled in under what a run gives. */
const withDefaults = <P>(schema: Schema.Schema<P, any>, defaults: Record<string, unknown>): Schema.Schema<P, any> =>
  Schema.transform(Schema.Record({ key: Schema.String, value: Schema.Unknown }), schema, {
    strict: false,
    decode: (given) => merge(defaults, given),
    encode: (encoded) => encoded
  })

/**
 * `base` (a pipeline, or a built-in's name or operation, e.g. `"plots-germany"` or
 * `"plot_search"`) under `options.name` with its own default parameters. An unknown base name
 * throws (a module that does so is refused, naming the file).
 */
export const derivePipeline = <P>(base: Pipeline<P> | string, options: DeriveOptions): Pipeline<P> => {
  const from = typeof base === "string" ? Either.getOrThrowWith(builtInPipeline(base, "derivePipeline"), (e) => new Error(e.message)) : base
  return definePipeline({
    ...from,
    name: options.name,
    description: options.description ?? `${from.description} (as ${from.name})`,
    params: options.params === undefined ? from.params : withDefaults(from.params, options.params)
  }) as Pipeline<P>
}
