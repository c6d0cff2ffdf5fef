/**
 * What `estate-etl new pipeline <name> --from <operation>` writes: a module re-declaring a
 * built-in pipeline under a new name with its own default parameters (`derivePipeline`), and a
 * node:test file running it against the embedded sandbox through the library API.
 */
import type { Pipeline } from "../pipeline/Pipeline.js"

export interface DerivedModuleInput {
  readonly name: string
  readonly base: Pipeline
  /** What the user typed after `--from` (a pipeline name or an operation). */
  readonly from: string
  readonly params: Record<string, unknown>
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * `value` (JSON data) as a JavaScript literal at `indent` spaces: on one line when it fits in
 * `width` characters, else one member a line; keys unquoted where JavaScript allows.
 */
const literal = (value: unknown, indent: number, width = 100): string => {
  const inline = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(inline).join(", ")}]`
      : typeof v === "object" && v !== null
        ? Object.keys(v).length === 0
          ? "{}"
          : `{ ${Object.entries(v)
              .map(([k, x]) => `${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${inline(x)}`)
              .join(", ")} }`
        : JSON.stringify(v)
  const one = inline(value)
  if (indent + one.length <= width || typeof value !== "object" || value === null) return one
  const pad = " ".repeat(indent + 2)
  const members = Array.isArray(value)
    ? value.map((x) => pad + literal(x, indent + 2, width))
    : Object.entries(value).map(([k, x]) => {
        const key = IDENTIFIER.test(k) ? k : JSON.stringify(k)
        return `${pad}${key}: ${literal(x, indent + 2 + key.length + 2, width)}`
      })
  return `${Array.isArray(value) ? "[" : "{"}\n${members.join(",\n")}\n${" ".repeat(indent)}${Array.isArray(value) ? "]" : "}"}`
}

export const derivedModule = ({ name, base, from, params }: DerivedModuleInput): string => {
  const tables = base.tables.map((t) => t.name).join(", ")
  return `// @ts-check
/**
 * ${name}: the built-in pipeline ${base.name} (operation ${base.cost.operation}) under its own name and
 * default parameters. Written by \`estate-etl new pipeline ${name} --from ${from}\`.
 *
 * It lands rows in ${base.name}'s tables (${tables}), merged by their keys; its runs,
 * checkpoints and parameters are its own. The parameters below are checked by ${base.name}'s
 * schema before any request (\`estate-etl plan ${name}\` shows what a run would cost); the
 * settings' pipelines.${name}.params and \`-p key=value\` go over them.
 */
import { derivePipeline } from "estate-etl"

export default derivePipeline(${JSON.stringify(base.name)}, {
  name: ${JSON.stringify(name)},
  description: ${JSON.stringify(`${base.description} (${name})`)},
  params: ${literal(params, 2)}
})
`
}

export const derivedTest = ({ name, base }: DerivedModuleInput): string => `// @ts-check
/**
 * ${name} against the embedded sandbox, through the library API: a throwaway in-memory
 * warehouse, nothing written to data/. Run with: node --test ${name}.test.mjs (in its folder)
 */
import assert from "node:assert/strict"
import { test } from "node:test"
import { extract } from "estate-etl"
import pipeline from "./${name}.mjs"

test(${JSON.stringify(`${name} lands rows in ${base.records.table} from the embedded sandbox`)}, async () => {
  // settings as an object, so the test reads no file (a small sandbox world)
  const result = await extract(pipeline, { settings: { service: { target: "sandbox" }, sandbox: { properties: 2000 } } })
  assert.equal(result.summary.status, "done")
  assert.ok(result.rows().length > 0, ${JSON.stringify(`no rows in ${base.records.table}`)})
})
`
