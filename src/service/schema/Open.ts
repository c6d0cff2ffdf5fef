/**
 * Open response records: every response schema of this folder keeps the fields it does not
 * know. A record is a `Schema.Struct` with a `string -> unknown` index signature, so decoding
 * checks the known fields and passes every other key through unchanged (the spec says several
 * bodies "accept any keys", and new fields must survive until the schemas learn them).
 *
 * How the normalizer finds the unknown keys: every open record exposes `.fields` (the known
 * fields); `splitExtra(Record.fields, decoded)` returns `{ known, extra }`.
 *
 * Leniency. Assumed: the token host writes unset optional fields as `null` (a Pydantic service;
 * its 422 body is Pydantic's), and the spec marks few fields required. So apart from identity
 * fields (`property_id`, `alert_id`, `listing_id` of a listing, `id`s, envelope counts), response
 * fields are `optional` and accept `null` (`nullable`). Types stay strict: a number sent as a
 * string, a fractional integer or an unknown enumeration value fails the record.
 *
 * Bulk decoding: `makeRecordDecoder` (FastDecode.ts) gives the same verdicts ~7x faster.
 */
import { Schema, SchemaAST } from "effect"
import { FastCheckId } from "./FastDecode.js"

/** The index signature that makes a struct open. */
export const AnyKeys = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** An open struct: the given fields are checked, any other key is kept as is. */
export const open = <Fields extends Schema.Struct.Fields>(fields: Fields) => Schema.Struct(fields, AnyKeys)

/**
 * Fast checks for `X | null` where X is a primitive, a literal set or an array of those.
 * Decoding sits on the hot path of bulk loads (20k-200k records); `NullOr(X)` is a union, about
 * twice the cost of one predicate. These schemas accept exactly what `NullOr(X)` accepts and
 * return the input unchanged (none of these X transform).
 */
const primitiveCheck = (schema: Schema.Schema.Any): ((u: unknown) => boolean) | undefined => {
  if (schema === Schema.Number) return (u) => typeof u === "number"
  if (schema === Schema.Int) return (u) => typeof u === "number" && Number.isSafeInteger(u)
  if (schema === Schema.String) return (u) => typeof u === "string"
  if (schema === Schema.Boolean) return (u) => typeof u === "boolean"
  const ast = schema.ast
  if (ast._tag === "Literal") return (u) => u === ast.literal
  if (ast._tag === "Union" && ast.types.every((t) => t._tag === "Literal")) {
    const set = new Set(ast.types.map((t) => (t as SchemaAST.Literal).literal))
    return (u) => set.has(u as never)
  }
  if (ast._tag === "TupleType" && ast.elements.length === 0 && ast.rest.length === 1) {
    const item = primitiveCheck(Schema.make(ast.rest[0]!.type))
    if (item !== undefined) return (u) => Array.isArray(u) && u.every(item)
  }
  return undefined
}

const describe = (schema: Schema.Schema.Any): string => `${String(schema.ast)} | null`

/** `X | null` with a single predicate when X is simple (see `primitiveCheck`), else `NullOr(X)`. */
export const nullOr = <S extends Schema.Schema.Any>(schema: S): Schema.Schema<S["Type"] | null, S["Encoded"] | null, never> => {
  const check = primitiveCheck(schema)
  if (check === undefined) return Schema.NullOr(schema) as never
  const pass = (u: unknown): u is S["Type"] | null => u === null || check(u)
  return Schema.declare(pass, {
    identifier: describe(schema),
    description: describe(schema),
    [FastCheckId]: pass
  }) as never
}

/** A field that may be absent or `null` (the default for response fields not marked required). */
export const nullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(nullOr(schema))

/** The known keys of an open record (its declared fields). */
export const knownKeys = (fields: Schema.Struct.Fields): ReadonlyArray<string> => Object.keys(fields)

/**
 * Splits a decoded record into its declared fields and the rest.
 * `known` holds the declared keys present on `obj`; `extra` every other key (never the declared ones).
 */
export const splitExtra = (
  fields: Schema.Struct.Fields,
  obj: Readonly<Record<string, unknown>>
): { readonly known: Record<string, unknown>; readonly extra: Record<string, unknown> } => {
  const known: Record<string, unknown> = {}
  const extra: Record<string, unknown> = {}
  for (const key of Object.keys(obj)) {
    if (Object.prototype.hasOwnProperty.call(fields, key)) known[key] = obj[key]
    else extra[key] = obj[key]
  }
  return { known, extra }
}

/** A date as the service writes it (`YYYY-MM-DD`); kept as a string on responses. */
/** The scalar members the payloads are made of. */
export const Int = Schema.Int
export const Num = Schema.Number
export const Str = Schema.String
export const Bool = Schema.Boolean

export const DateString = Schema.String
/** A date-time as the service writes it (ISO 8601, UTC); kept as a string on responses. */
export const DateTimeString = Schema.String

/**
 * An integer id of a record: a number, or a `bigint` when it is beyond 2^53 (the clients read
 * such integers exactly, `shared/ExactJson.ts`), so no id is rounded into another one.
 */
export const IntId = Schema.Union(Schema.Int, Schema.BigIntFromSelf)
