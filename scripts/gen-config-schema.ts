/**
 * Writes `config/schema.json`: the JSON Schema of the settings file, generated from the settings'
 * Effect Schema (`src/config/Settings.ts`) with `JSONSchema`, so editors complete and check the
 * config files that say `"$schema": "./schema.json"`.
 *
 * On top of what `JSONSchema` gives: each field's doc comment as its `description` (read from the
 * schema sources), the defaults of the settings' sections, and, under `pipelines`, the parameters
 * of every catalogue pipeline (its own params schema), so `pipelines.<name>.params` completes too.
 *
 *   npx tsx scripts/gen-config-schema.ts           # writes config/schema.json
 *   npx tsx scripts/gen-config-schema.ts --check   # exit 1 when the file is out of date
 */
import { JSONSchema, Option, Schema, SchemaAST as AST } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import ts from "typescript"
import { catalogue } from "../pipelines/index.js"
import { Settings } from "../src/config/Settings.js"
import { CommercialUseLevel } from "../src/service/schema/Enums.js"

const ROOT = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..")
export const SCHEMA_PATH = nodePath.join(ROOT, "config", "schema.json")

type Json = Record<string, any>

/** JSON Schemas for declared types that carry no `jsonSchema` annotation, by identifier. */
const DECLARED: Record<string, Json> = {
  CommercialUseCriterion: {
    anyOf: [
      { type: "string", enum: ["all", ...CommercialUseLevel.values] },
      { type: "array", items: { type: "string", enum: [...CommercialUseLevel.values] } }
    ]
  }
}

/** The AST with every unannotated declaration given a JSON Schema (known ones), or `{}` (any value). */
const annotateDeclarations = (ast: AST.AST): AST.AST => {
  switch (ast._tag) {
    case "Declaration": {
      if (Option.isSome(AST.getJSONSchemaAnnotation(ast))) return ast
      const id = Option.getOrElse(AST.getIdentifierAnnotation(ast), () => "")
      return AST.annotations(ast, { [AST.JSONSchemaAnnotationId]: DECLARED[id] ?? { description: id } })
    }
    case "Refinement":
      return new AST.Refinement(annotateDeclarations(ast.from), ast.filter, ast.annotations)
    case "Transformation":
      return new AST.Transformation(annotateDeclarations(ast.from), annotateDeclarations(ast.to), ast.transformation, ast.annotations)
    case "Union":
      return AST.Union.make(ast.types.map(annotateDeclarations), ast.annotations)
    case "TupleType":
      return new AST.TupleType(
        ast.elements.map((e) => new AST.OptionalType(annotateDeclarations(e.type), e.isOptional, e.annotations)),
        ast.rest.map((r) => new AST.Type(annotateDeclarations(r.type), r.annotations)),
        ast.isReadonly,
        ast.annotations
      )
    case "TypeLiteral":
      return new AST.TypeLiteral(
        ast.propertySignatures.map(
          (p) => new AST.PropertySignature(p.name, annotateDeclarations(p.type), p.isOptional, p.isReadonly, p.annotations)
        ),
        ast.indexSignatures.map((i) => new AST.IndexSignature(i.parameter, annotateDeclarations(i.type), i.isReadonly)),
        ast.annotations
      )
    default:
      return ast
  }
}

/**
 * Doc comments of the properties of every `Schema.Struct({...})` (and plain object literal of
 * schema fields) in a source file: struct variable name (or "") -> property -> first paragraph.
 */
export const docComments = (file: string): Map<string, Map<string, string>> => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
  const out = new Map<string, Map<string, string>>()
  const owner = (node: ts.Node): string => {
    for (let n: ts.Node | undefined = node; n; n = n.parent) if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) return n.name.text
    return ""
  }
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
      const text = ts
        .getJSDocCommentsAndTags(node)
        .map((d) => (typeof d.comment === "string" ? d.comment : (ts.getTextOfJSDocComment(d.comment) ?? "")))
        .join(" ")
        .replace(/\s+/g, " ")
        .trim()
      if (text) {
        const key = owner(node)
        if (!out.has(key)) out.set(key, new Map())
        out.get(key)!.set(node.name.text, text)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/**
 * Draft-07 ignores the siblings of `$ref` (JSONSchema puts `minimum` etc. beside a `$ref` to
 * `Int`): such nodes become `allOf: [{$ref}]` plus the siblings, so editors check the bounds.
 */
const refSiblingsToAllOf = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(refSiblingsToAllOf)
  if (typeof node !== "object" || node === null) return node
  const entries = Object.entries(node).map(([k, v]) => [k, refSiblingsToAllOf(v)] as const)
  const obj: Json = Object.fromEntries(entries)
  if (typeof obj.$ref === "string" && Object.keys(obj).some((k) => !["$ref", "description", "title"].includes(k))) {
    const { $ref, ...rest } = obj
    return { ...rest, allOf: [{ $ref }, ...(Array.isArray(rest.allOf) ? rest.allOf : [])] }
  }
  return obj
}

/**
 * A settings file may hold only part of a pipeline's parameters (`--param key=value` and
 * `a.b=value` overrides complete them), so objects of the params schema require nothing.
 */
const nothingRequired = (schema: Json): Json => {
  const { required: _required, ...rest } = schema
  if (rest.properties) rest.properties = Object.fromEntries(Object.entries<Json>(rest.properties).map(([k, v]) => [k, nothingRequired(v)]))
  return rest
}

/** Follows a local `$ref` (`#/$defs/X`) to the object holding `properties`. */
const deref = (schema: Json, defs: Json): Json => {
  let s = schema
  for (let i = 0; i < 5 && s; i++) {
    if (s.properties) return s
    if (typeof s.$ref === "string" && s.$ref.startsWith("#/$defs/")) s = defs[s.$ref.slice(8)]
    else if (Array.isArray(s.allOf) && s.allOf.length === 1) s = s.allOf[0]
    else return s
  }
  return s
}

const describe = (object: Json, docs: Map<string, string> | undefined, defaults?: Json) => {
  for (const [name, prop] of Object.entries<Json>(object.properties ?? {})) {
    const doc = docs?.get(name)
    if (doc) prop.description = doc
    if (defaults && defaults[name] !== undefined && prop.default === undefined) prop.default = defaults[name]
  }
}

/** The JSON Schema of the settings file (an object ready for `JSON.stringify`). */
export const configSchema = (): Json => {
  const defs: Json = {}
  const root = JSONSchema.fromAST(Settings.ast, { definitions: defs, target: "jsonSchema7" }) as Json
  const settingsDocs = docComments(nodePath.join(ROOT, "src", "config", "Settings.ts"))
  const defaults = Schema.encodeSync(Settings)(Schema.decodeSync(Settings)({})) as Json
  const settings = deref(root, defs)
  describe(settings, settingsDocs.get("Settings"))
  settings.properties.$schema = { type: "string", description: "The JSON Schema of this file (./schema.json)." }
  const sections: Record<string, string> = { service: "ServiceSection", budget: "BudgetSection", sandbox: "SandboxSection" }
  for (const [prop, variable] of Object.entries(sections)) {
    const section = settings.properties[prop]
    if (section) describe(deref(section, defs), settingsDocs.get(variable), defaults[prop])
  }
  for (const prop of ["warehouse", "output"]) if (settings.properties[prop]) settings.properties[prop].default = defaults[prop]

  // pipelines.<name>.params: each catalogue pipeline's own parameters
  const entry = settings.properties.pipelines?.additionalProperties
  if (entry) describe(entry, settingsDocs.get("PipelineEntry"))
  const pipelines: Json = {}
  for (const p of [...catalogue].sort((a, b) => a.name.localeCompare(b.name))) {
    const params = nothingRequired(
      JSONSchema.fromAST(annotateDeclarations(p.params.ast), { definitions: defs, target: "jsonSchema7" }) as Json
    )
    const file = nodePath.join(ROOT, "pipelines", `${p.name}.ts`)
    if (fs.existsSync(file)) {
      const docs = new Map([...docComments(file).values()].flatMap((m) => [...m]))
      describe(deref(params, defs), docs)
    }
    pipelines[p.name] = {
      type: "object",
      description: p.description,
      properties: { params: { ...params, description: `Parameters of ${p.name} (checked by its schema before any request).` } },
      additionalProperties: false
    }
  }
  if (settings.properties.pipelines) {
    settings.properties.pipelines.properties = pipelines
    const names = Object.keys(pipelines)
    if (settings.properties.sets?.additionalProperties?.items && names.length > 0) {
      settings.properties.sets.additionalProperties.items.examples = names
    }
  }
  return refSiblingsToAllOf({
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "estate-etl settings",
    ...root,
    $defs: defs
  }) as Json
}

/** The file's text: stable key order as generated, two-space indent, final newline. */
export const configSchemaText = () => JSON.stringify(configSchema(), null, 2) + "\n"

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(nodePath.resolve(process.argv[1])).href
if (isMain) {
  const text = configSchemaText()
  if (process.argv.includes("--check")) {
    const current = fs.existsSync(SCHEMA_PATH) ? fs.readFileSync(SCHEMA_PATH, "utf8") : ""
    if (current !== text) {
      process.stderr.write(`${SCHEMA_PATH} is out of date; run: npx tsx scripts/gen-config-schema.ts\n`)
      process.exit(1)
    }
  } else {
    fs.mkdirSync(nodePath.dirname(SCHEMA_PATH), { recursive: true })
    fs.writeFileSync(SCHEMA_PATH, text)
    process.stdout.write(`wrote ${nodePath.relative(process.cwd(), SCHEMA_PATH)}\n`)
  }
}
