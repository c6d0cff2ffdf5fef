/**
 * How a library call names its pipeline, and what that name tells the compiler:
 *
 * - a built-in's name (`"plots-germany"`): a misspelt name is a compile error, `params` are
 *   checked against the pipeline's parameter schema (its encoded side: what the settings hold),
 *   and `rows()` is typed by its tables;
 * - an inline declaration (`definePipeline(...)`): typed the same way by its own declaration;
 * - `byName("my-plots")`: a pipeline known only at run time (the settings' `pipelineModules`),
 *   with untyped parameters and rows. The name is checked when the call runs.
 */
import type { BuiltInPipeline, PipelineName } from "../../pipelines/index.js"
import type { TableSpec } from "../normalize/Table.js"
import type { Pipeline } from "../pipeline/Pipeline.js"

export type { PipelineName }

/** A pipeline name checked only at run time (see `byName`). */
export type NamedPipeline = string & { readonly "~runtimeName": true }

/** Names a pipeline the compiler cannot know (one of the settings' `pipelineModules`): untyped params and rows. */
export const byName = (name: string): NamedPipeline => name as NamedPipeline

/** What `extract` and `session.run` take: a built-in's name, a declaration, or `byName(...)`. */
export type PipelineRef = PipelineName | Pipeline | NamedPipeline

/** The declaration a reference stands for (`Pipeline` when only the run time knows it). */
export type PipelineOf<X> = X extends NamedPipeline
  ? Pipeline
  : X extends PipelineName
    ? Extract<BuiltInPipeline, { readonly name: X }>
    : X extends Pipeline
      ? X
      : Pipeline

type EncodedParams<Pl> = Pl extends Pipeline<any, any, any, any, infer I> ? I : unknown

/**
 * The `params` a caller may pass: any subset of the pipeline's encoded parameters (the settings'
 * `pipelines.<name>.params` may give the rest); untyped when the pipeline is not known.
 */
export type ParamsOf<X> =
  unknown extends EncodedParams<PipelineOf<X>>
    ? Record<string, unknown>
    : EncodedParams<PipelineOf<X>> extends infer I extends object
      ? Partial<I> & SampleParam
      : Record<string, unknown>

/** The parameter every pipeline takes besides its own (`pipeline/Params.ts` `SAMPLE_PARAM`). */
export interface SampleParam {
  /** A sample: a read cut short by `maxPages` is reported, not a shortfall (as `--sample`). */
  readonly sample?: boolean | undefined
}

/** The table specs of a referenced pipeline. */
export type TablesOf<X> = PipelineOf<X> extends { readonly tables: infer T extends ReadonlyArray<TableSpec> } ? T : ReadonlyArray<TableSpec>

/** The main table's name of a referenced pipeline. */
export type MainTableOf<X> = PipelineOf<X> extends { readonly records: { readonly table: infer M extends string } } ? M : string
