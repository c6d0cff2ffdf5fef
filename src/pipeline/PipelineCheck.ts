/**
 * What every pipeline of the catalogue holds to, checked when a pipeline comes from a user's
 * module (the built-ins are held to it by test/wiring/Catalogue.test.ts): a kebab-case name,
 * a host, a parameters schema, a source with slices, a cost model, at least one table with typed
 * columns and keys among them, and a record mapping onto one of its tables. The checks are on
 * the values a JavaScript module may get wrong; the types say the rest.
 */
import { Schema } from "effect"
import { columnTypeProblem } from "../normalize/ColumnTypes.js"
import type { Disposition, TableSpec } from "../normalize/Table.js"
import type { Pipeline } from "./Pipeline.js"

/** A pipeline name: what `run`, sets and checkpoints call it. */
export const PIPELINE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/
const TABLE_NAME = /^[a-z][a-z0-9_]*$/
const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
/** Why a column type is not one the loader knows, or undefined. */
const typeProblem = (type: unknown): string | undefined => {
  if (typeof type !== "string") return `type ${show(type)}; a column type is DuckDB type text such as "VARCHAR" or "DECIMAL(18,2)"`
  return columnTypeProblem(type)
}
const DISPOSITIONS: Record<Disposition, true> = { merge: true, append: true, replace: true, history: true }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null
const isFunction = (u: unknown): boolean => typeof u === "function"
const show = (u: unknown): string =>
  typeof u === "string" ? JSON.stringify(u) : u === null ? "null" : Array.isArray(u) ? "a list" : typeof u

const tableProblem = (t: unknown, i: number): string | undefined => {
  if (!isObject(t)) return `tables[${i}] is ${show(t)}, not a table (use flatTable(...).spec)`
  const name = t.name
  if (typeof name !== "string" || !TABLE_NAME.test(name))
    return `tables[${i}].name must be lower-case letters, digits and _ (not starting with _), got ${show(name)}`
  if (!Array.isArray(t.columns) || t.columns.length === 0) return `table ${name} has no columns`
  const columns = new Set<string>()
  for (const c of t.columns as ReadonlyArray<unknown>) {
    if (!isObject(c) || typeof c.name !== "string" || !COLUMN_NAME.test(c.name)) return `table ${name} has a column without a valid name`
    const bad = typeProblem(c.type)
    if (bad !== undefined) return `table ${name} column ${c.name}: ${bad}`
    if (columns.has(c.name)) return `table ${name} declares column ${c.name} twice`
    columns.add(c.name)
  }
  if (typeof t.disposition !== "string" || !(t.disposition in DISPOSITIONS))
    return `table ${name} disposition ${show(t.disposition)}; allowed: ${Object.keys(DISPOSITIONS).join(", ")}`
  if (!Array.isArray(t.primaryKey)) return `table ${name} has no primaryKey list (may be empty)`
  const outside = (t.primaryKey as ReadonlyArray<unknown>).find((k) => typeof k !== "string" || !columns.has(k))
  if (outside !== undefined) return `table ${name}: primary key ${show(outside)} is not one of its columns`
  if (t.disposition === "merge" && t.primaryKey.length === 0) return `table ${name} merges rows, so it needs a primaryKey`
  return undefined
}

/** What is wrong with a declaration, as the end of a line naming it; `undefined` when nothing is. */
export const pipelineProblem = (p: Pipeline): string | undefined => {
  const u = p as unknown as Record<string, unknown>
  if (typeof u.name !== "string" || !PIPELINE_NAME.test(u.name))
    return `name must be kebab-case (lower-case letters, digits, -), got ${show(u.name)}`
  if (typeof u.description !== "string") return `description must be a string, got ${show(u.description)}`
  if (u.host !== "platform" && u.host !== "token") return `host must be "platform" or "token", got ${show(u.host)}`
  if (!Schema.isSchema(u.params)) return `params must be an Effect Schema (Schema.Struct({...})), got ${show(u.params)}`
  if (!isObject(u.source) || !isFunction(u.source.slices)) return `source must be a source (paged(...) or fanOut(...))`
  if (!isObject(u.cost) || typeof u.cost.operation !== "string" || u.cost.operation === "" || !isFunction(u.cost.estimate))
    return `cost must be { operation: "<name in the cost table>", estimate: (params) => Effect }`
  if (!Array.isArray(u.tables) || u.tables.length === 0) return `tables must list at least one table`
  const names = new Set<string>()
  for (const [i, t] of (u.tables as ReadonlyArray<unknown>).entries()) {
    const problem = tableProblem(t, i)
    if (problem) return problem
    const name = (t as TableSpec).name
    if (names.has(name)) return `table ${name} is declared twice`
    names.add(name)
  }
  const records = u.records
  if (!isObject(records)) return `records must be { table, schema, toRows }`
  if (typeof records.table !== "string" || !names.has(records.table))
    return `records.table ${show(records.table)} is not one of its tables (${[...names].join(", ")})`
  if (!Schema.isSchema(records.schema)) return `records.schema must be an Effect Schema of one record`
  if (!isFunction(records.toRows)) return `records.toRows must be a function (record, context) => rows by table`
  for (const k of ["archiveRaw", "shardable"] as const)
    if (u[k] !== undefined && typeof u[k] !== "boolean") return `${k} must be true or false, got ${show(u[k])}`
  if (u.fromRaw !== undefined && !isFunction(u.fromRaw)) return `fromRaw must be a function`
  return undefined
}

/** Whether two declarations of one table agree (pipelines may share a table when they do). */
export const sameTable = (a: TableSpec, b: TableSpec): boolean => {
  const shape = (t: TableSpec) =>
    JSON.stringify([t.columns.map((c) => [c.name, c.type, c.nullable ?? true]), t.primaryKey, t.disposition, t.partitionBy ?? []])
  return shape(a) === shape(b)
}
