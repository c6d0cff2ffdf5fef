/**
 * A fast path for decoding response records in bulk. Response schemas here transform nothing
 * (structs, arrays, unions, literals, primitives, integer refinements, `nullOr` checks), so a
 * record that passes them decodes to itself. `makeRecordDecoder` compiles a schema's AST once
 * into plain predicates; a record that passes is returned as is (the same object, extras
 * included), and anything else goes to Effect's decoder, so every failure is Effect's own
 * ParseError and the accepted set is never wider than Effect's.
 *
 * A schema with a part the compiler does not know (a transformation, a suspend, an index
 * signature other than `string -> unknown`) is not compiled: the decoder is then Effect's.
 */
import { Either, Option, ParseResult, Schema, SchemaAST } from "effect"

type Check = (u: unknown) => boolean

/** Annotation carrying a plain predicate equivalent to a declaration's decoder (see `nullOr`). */
export const FastCheckId: unique symbol = Symbol.for("estate-etl/schema/FastCheck")

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const NO_OPTIONS: SchemaAST.ParseOptions = {}

const compileAst = (ast: SchemaAST.AST): Check | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "BigIntKeyword":
      return (u) => typeof u === "bigint"
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "Literal": {
      const lit = ast.literal
      return (u) => u === lit
    }
    case "Refinement": {
      const from = compileAst(ast.from)
      if (from === undefined) return undefined
      return (u) => from(u) && Option.isNone(ast.filter(u, NO_OPTIONS, ast))
    }
    case "Declaration": {
      const check = ast.annotations[FastCheckId]
      return typeof check === "function" ? (check as Check) : undefined
    }
    case "Union": {
      if (ast.types.every((t) => t._tag === "Literal")) {
        const set = new Set<unknown>(ast.types.map((t) => (t as SchemaAST.Literal).literal))
        return (u) => set.has(u)
      }
      const members = ast.types.map(compileAst)
      if (members.some((m) => m === undefined)) return undefined
      const ms = members as Array<Check>
      // plain loops: a closure per call (`ms.some((m) => m(u))`) was a third of the run's garbage
      if (ms.length === 2) {
        const [a, b] = ms as [Check, Check]
        return (u) => a(u) || b(u)
      }
      return (u) => {
        for (let i = 0; i < ms.length; i++) if (ms[i]!(u)) return true
        return false
      }
    }
    case "TupleType": {
      if (ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
      const item = compileAst(ast.rest[0]!.type)
      if (item === undefined) return undefined
      return (u) => {
        if (!Array.isArray(u)) return false
        for (let i = 0; i < u.length; i++) if (!item(u[i])) return false
        return true
      }
    }
    case "TypeLiteral": {
      const openAny =
        ast.indexSignatures.length === 1 &&
        ast.indexSignatures[0]!.parameter._tag === "StringKeyword" &&
        ast.indexSignatures[0]!.type._tag === "UnknownKeyword"
      if (ast.indexSignatures.length > 1 || (ast.indexSignatures.length === 1 && !openAny)) return undefined
      const props: Array<{ name: string; optional: boolean; check: Check }> = []
      for (const ps of ast.propertySignatures) {
        if (typeof ps.name !== "string") return undefined
        const check = compileAst(ps.type)
        if (check === undefined) return undefined
        props.push({ name: ps.name, optional: ps.isOptional, check })
      }
      return (u) => {
        if (!isRecord(u)) return false
        for (const p of props) {
          const v = u[p.name]
          if (v === undefined && !(p.name in u)) {
            if (!p.optional) return false
          } else if (!p.check(v)) return false
        }
        return true
      }
    }
    default:
      return undefined
  }
}

/** The plain predicate of a schema, or undefined when it cannot be compiled. */
export const compileCheck = (schema: Schema.Schema.Any): Check | undefined => compileAst(schema.ast)

/**
 * A bulk decoder of a response record: the record itself when it passes the compiled checks,
 * else Effect's decode (a failure is Effect's ParseError).
 */
export const makeRecordDecoder = <A, I>(schema: Schema.Schema<A, I, never>): ((u: unknown) => Either.Either<A, ParseResult.ParseError>) => {
  const slow = Schema.decodeUnknownEither(schema)
  const check = compileCheck(schema)
  if (check === undefined) return slow
  return (u) => (check(u) ? Either.right(u as A) : slow(u))
}
